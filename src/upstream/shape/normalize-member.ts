/** Normalizes one member of the team list (`GET /v1/{org}/team`). */
import type { Member } from '../../snapshot/model.js';
import { DriftLog, type Normalized } from './drift.js';
import { identityPartId, MEMBER_NOUNS } from './identity-part.js';
import { describeValue, flattenResource, isRecord, type JsonRecord } from './json.js';
import type { ShapeOptions } from './options.js';
import { asId, asText, asWord, keysSeen, type ReadContext, readField, traceKeys } from './read.js';
import { splitWords } from './words.js';

/** Normalizes a member; the value is undefined when the record is unusable (no id). */
export function normalizeMember(raw: unknown, opts: ShapeOptions): Normalized<Member | undefined> {
  const drift = new DriftLog('team');
  if (!isRecord(raw)) {
    drift.fatal('member', `record is ${describeValue(raw)}, expected an object`);
    return { value: undefined, drift: drift.issues };
  }
  const ctx: ReadContext = { opts, drift };
  const record = flattenResource(raw);
  traceKeys(ctx, record);
  const id = readField(ctx, record, 'member.id', asId) ?? memberPartId(ctx, record);
  if (id === undefined) {
    drift.fatal('member.id', `no usable id; keys seen: ${keysSeen(raw)}`);
    return { value: undefined, drift: drift.issues };
  }
  const member: Member = { id };
  const name = splitName(ctx, record) ?? readField(ctx, record, 'member.name', asText);
  if (name !== undefined) member.name = name;
  const email = readField(ctx, record, 'member.email', asText);
  if (email !== undefined) member.email = email;
  const role = readField(ctx, record, 'member.role', asWord);
  if (role !== undefined) member.role = role;
  return { value: member, drift: drift.issues };
}

/** A member with no id of its own, known by its part named for it (`snippet.memberDetails.channelId`). */
function memberPartId(ctx: ReadContext, record: JsonRecord): string | undefined {
  const found = identityPartId(record, MEMBER_NOUNS);
  if (found === undefined) return undefined;
  ctx.opts.trace?.field('team', 'member.id', found.path, undefined, { tier: 'structure', confidence: 0.5 });
  return found.id;
}

const GIVEN = new Set(['given', 'first', 'forename']);
const FAMILY = new Set(['family', 'last', 'surname']);

/** The top-level text key whose words hold one of `part` and no other than `name`. */
function namePart(record: JsonRecord, part: ReadonlySet<string>): string | undefined {
  for (const [k, v] of Object.entries(record)) {
    const words = splitWords(k);
    if (typeof v !== 'string' || v.trim() === '' || !words.some((w) => part.has(w))) continue;
    if (words.every((w) => part.has(w) || w === 'name')) return k;
  }
  return undefined;
}

/**
 * A person's name split in two (`given_name` + `family_name`, `firstName` + `lastName`),
 * as many APIs write it, joined given first; only when the record has no whole-name key.
 */
function splitName(ctx: ReadContext, record: JsonRecord): string | undefined {
  const whole = Object.keys(record).some((k) => {
    const words = splitWords(k);
    return words.includes('name') && !words.some((w) => GIVEN.has(w) || FAMILY.has(w) || w === 'middle');
  });
  if (whole) {
    // A name given as an object of its parts (PayPal's `name: { given_name, surname }`).
    const inner = Object.entries(record).find(
      ([k, v]) => isRecord(v) && splitWords(k).join(' ') === 'name',
    )?.[1];
    return isRecord(inner) ? splitName(ctx, inner) : undefined;
  }
  const given = namePart(record, GIVEN);
  const family = namePart(record, FAMILY);
  if (given === undefined || family === undefined) return undefined;
  ctx.opts.trace?.field(ctx.drift.endpoint, 'member.name', given, undefined, {
    tier: 'words',
    confidence: 1,
  });
  ctx.opts.trace?.field(ctx.drift.endpoint, 'member.name', '', `joined with ${family}`);
  return `${String(record[given]).trim()} ${String(record[family]).trim()}`;
}
