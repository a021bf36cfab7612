/**
 * How AI features are funded: a wallet with a balance, or the organization's own
 * provider key (BYOK). Anything else is kept as `unknown` with the word the server used.
 */
import type { AiFunding } from '../../snapshot/model.js';
import { describeValue, getPath, isRecord, type JsonRecord } from './json.js';
import { aliasesFor } from './fields.js';
import {
  currencyOf,
  type Money,
  type MoneyHabit,
  moneyBesideCode,
  moneyFromMinor,
  parseMoney,
  parseNumber,
  saysMinorUnits,
} from './numbers.js';
import { asAny, asText, asWord, type ReadContext, readField, toBool } from './read.js';

const WALLET_WORDS = new Set(['wallet', 'credits', 'credit', 'prepaid', 'balance', 'prepaid_wallet']);
const BYOK_WORDS = new Set([
  'byok',
  'own_key',
  'bring_your_own_key',
  'customer_key',
  'api_key',
  'custom_key',
  'user_key',
  'own',
]);

/** Maps a funding word to a mode; `undefined` for a word tally does not know. */
export function fundingMode(word: string): 'wallet' | 'byok' | undefined {
  const w = word
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  if (WALLET_WORDS.has(w)) return 'wallet';
  if (BYOK_WORDS.has(w)) return 'byok';
  return undefined;
}

/** Reads the AI funding of a subscription record. */
export function readFunding(ctx: ReadContext, sub: JsonRecord): AiFunding {
  const found = readField(ctx, sub, 'subscription.funding', asAny);
  let scope: JsonRecord = sub;
  let word: string | undefined;
  if (typeof found === 'string') word = found.trim().toLowerCase();
  else if (isRecord(found)) {
    scope = found;
    word = readField(ctx, found, 'funding.mode', asWord);
  } else if (found !== undefined) {
    ctx.drift.note('subscription.funding', `is ${describeValue(found)}, expected an object or a word`);
  } else {
    word = readField(ctx, sub, 'subscription.fundingMode', asWord);
  }
  const mode = word !== undefined ? fundingMode(word) : inferMode(scope);
  if (mode === 'wallet') return readWallet(ctx, scope);
  if (mode === 'byok') return readByok(ctx, scope);
  if (word !== undefined && word !== '') return { mode: 'unknown', raw: word };
  if (found === undefined) ctx.drift.note('subscription.funding', 'no AI funding found');
  return { mode: 'unknown' };
}

/** Without a mode word: the one of `wallet` / `byok` that is present (and not disabled). */
function inferMode(scope: JsonRecord): 'wallet' | 'byok' | undefined {
  const on = (v: unknown): boolean => {
    if (!isRecord(v)) return v !== undefined && v !== null && v !== false;
    const enabled = toBool(getPath(v, 'enabled') ?? getPath(v, 'active'));
    return enabled !== false;
  };
  const wallet = on(getPath(scope, 'wallet')) || getPath(scope, 'balance') !== undefined;
  const byok = on(getPath(scope, 'byok')) || getPath(scope, 'provider') !== undefined;
  if (wallet && !byok) return 'wallet';
  if (byok && !wallet) return 'byok';
  return undefined;
}

function readWallet(ctx: ReadContext, scope: JsonRecord): AiFunding {
  const funding: AiFunding & { mode: 'wallet' } = { mode: 'wallet' };
  const raw = readField(ctx, scope, 'funding.balance', asAny);
  const habit = ctx.opts.money;
  let money = parseMoney(raw, 0, habit);
  // A plain number whose siblings say it counts cents (`unit: "cents"`, `in_minor_units`),
  // or an integer beside a currency code, as payment APIs write money (numbers.ts).
  const n = parseNumber(raw);
  const beside = n === undefined ? undefined : parentOf(scope, aliasesFor('funding.balance', ctx.opts));
  if (n !== undefined && beside !== undefined && saysMinorUnits(beside.parent)) {
    const code =
      currencyOf(beside.parent) ?? readField(ctx, scope, 'funding.currency', asText)?.toUpperCase();
    const m = moneyFromMinor(n, beside.key, beside.parent, code, true);
    money = { ...m, how: m.how?.slice(beside.key.length + 1) ?? '' };
  } else if (n !== undefined) {
    const parent = beside?.parent ?? scope;
    const code = currencyOf(parent);
    const m = moneyBesideCode(raw, beside?.key ?? 'balance', parent, code, habit);
    if (m !== undefined) money = { ...m, how: (m.how ?? '').replace(/^\S+ ÷/, '÷') };
  }
  // The path is the alias readField just reported; the conversion refines it.
  if (money?.how !== undefined) traceBalance(ctx, '', money.how);
  if (money === undefined) {
    const minor = parseNumber(readField(ctx, scope, 'funding.balanceMinor', asAny));
    if (minor !== undefined) {
      const code = readField(ctx, scope, 'funding.currency', asText);
      money = parseMoney({ minor_units: minor, ...(code === undefined ? {} : { currency: code }) });
      if (money?.how !== undefined) traceBalance(ctx, '', money.how.replace(/^minor_units /, ''));
    } else if (raw !== undefined)
      ctx.drift.note('funding.balance', `is ${describeValue(raw)}, expected an amount`);
  }
  // Deeper than the aliases: a balance a few levels down, under any usual name.
  if (money === undefined && raw === undefined) {
    const deep = findBalance(scope, '', 0, habit);
    if (deep !== undefined) {
      money = deep.money;
      traceBalance(ctx, deep.path, deep.money.how?.replace(/^minor_units /, ''));
    }
  }
  // A wallet is money: one whose balance cannot be read must not pass as an empty wallet.
  if (money?.amount === undefined && raw === undefined)
    ctx.drift.note('funding.balance', 'wallet funding but no readable balance');
  if (money?.amount !== undefined) funding.balance = money.amount;
  const currency = money?.currency ?? readField(ctx, scope, 'funding.currency', asText)?.toUpperCase();
  if (currency !== undefined) funding.currency = currency;
  return funding;
}

/** Tells the trace where the balance came from; an empty path refines the source just reported. */
function traceBalance(ctx: ReadContext, path: string, how: string | undefined): void {
  ctx.opts.trace?.field(ctx.drift.endpoint, 'funding.balance', path, how);
}

/** Key names that hold a wallet's balance somewhere below the funding object. */
const BALANCE_NAME =
  /^(balance|wallet_?balance|remaining|available|credits?|funds|amount)(_?(cents|minor|minor_?units))?$/i;
const MINOR_NAME = /(cents|minor)/i;
const MAX_DEPTH = 4;

/** The first balance-named value in `v` (depth first, at most {@link MAX_DEPTH} levels), with its path. */
function findBalance(
  v: JsonRecord,
  prefix: string,
  depth: number,
  habit: MoneyHabit | undefined,
): { path: string; money: Money } | undefined {
  if (depth > MAX_DEPTH) return undefined;
  const currency = typeof v['currency'] === 'string' ? v['currency'] : undefined;
  for (const [key, value] of Object.entries(v)) {
    if (!BALANCE_NAME.test(key)) continue;
    const path = prefix === '' ? key : `${prefix}.${key}`;
    const n = parseNumber(value);
    const money =
      n !== undefined && MINOR_NAME.test(key)
        ? parseMoney({ minor_units: n, ...(currency === undefined ? {} : { currency }) })
        : n !== undefined && saysMinorUnits(v)
          ? moneyFromMinor(n, 'minor_units', v, currency?.toUpperCase(), true)
          : n !== undefined
            ? moneyBesideCode(value, 'minor_units', v, currency, habit)
            : parseMoney(value, 0, habit);
    if (money?.amount !== undefined) {
      return {
        path,
        money:
          currency !== undefined && money.currency === undefined
            ? { ...money, currency: currency.toUpperCase() }
            : money,
      };
    }
  }
  for (const [key, value] of Object.entries(v)) {
    if (!isRecord(value)) continue;
    const found = findBalance(value, prefix === '' ? key : `${prefix}.${key}`, depth + 1, habit);
    if (found) return found;
  }
  return undefined;
}

/** The object holding the first of `paths` present in `scope`, and the key there. */
function parentOf(
  scope: JsonRecord,
  paths: readonly string[],
): { parent: JsonRecord; key: string } | undefined {
  for (const path of paths) {
    const v = getPath(scope, path);
    if (v === undefined || v === null) continue;
    const dot = path.lastIndexOf('.');
    const parent = dot < 0 ? scope : getPath(scope, path.slice(0, dot));
    return isRecord(parent) ? { parent, key: path.slice(dot + 1) } : undefined;
  }
  return undefined;
}

function readByok(ctx: ReadContext, scope: JsonRecord): AiFunding {
  const funding: AiFunding & { mode: 'byok' } = { mode: 'byok' };
  const provider = readField(ctx, scope, 'funding.provider', asText);
  if (provider !== undefined) funding.provider = provider;
  const keyStatus = readField(ctx, scope, 'funding.keyStatus', asWord);
  if (keyStatus !== undefined) funding.keyStatus = keyStatus;
  return funding;
}
