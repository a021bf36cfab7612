/** Normalizes the subscription (`GET /v1/{org}/subscription`): plan, limits, usage, AI funding. */
import type { Subscription } from '../../snapshot/model.js';
import { DriftLog, type Normalized } from './drift.js';
import { readFunding } from './funding.js';
import type { FieldKey } from './fields.js';
import { describeValue, flattenResource, isRecord, type JsonRecord } from './json.js';
import { withLimitNames } from '../../snapshot/limit-names.js';
import { readLimits } from './limits.js';
import type { ShapeOptions } from './options.js';
import { asAny, asText, hasAnyField, keysSeen, type ReadContext, readField, traceKeys } from './read.js';

/** Normalizes a subscription. */
export function normalizeSubscription(
  raw: Record<string, unknown>,
  opts: ShapeOptions,
): Normalized<Subscription> {
  const drift = new DriftLog('subscription');
  const sub: Subscription = { limits: {}, usage: {}, funding: { mode: 'unknown' } };
  if (!isRecord(raw)) {
    drift.fatal('subscription', `record is ${describeValue(raw)}, expected an object`);
    return { value: sub, drift: drift.issues };
  }
  const ctx: ReadContext = { opts, drift };
  const record = flattenResource(raw);
  traceKeys(ctx, record);
  // A body with nothing tally reads is a failed read, never a subscription whose plan,
  // limits and funding all changed (docs/upstream-shapes.md, "Absent is not changed").
  const known = [
    'subscription.plan',
    'subscription.limits',
    'subscription.usage',
    'subscription.funding',
    'subscription.fundingMode',
  ] as const;
  if (!hasAnyField(ctx, record, known)) {
    drift.fatal('subscription', `none of the fields tally reads is in the body; keys seen: ${keysSeen(raw)}`);
    return { value: sub, drift: drift.issues };
  }
  const plan = readField(ctx, record, 'subscription.plan', asText);
  if (plan !== undefined) sub.plan = plan;
  // A plan tally cannot find is reported (an explicit null is a plan: none), and the rest
  // still read: the limits and the wallet beside it are good (docs/upstream-shapes.md).
  else if (!hasAnyField(ctx, record, ['subscription.plan'])) drift.note('subscription.plan', 'no plan found');

  // Deeper than the aliases: a limits object a few levels down (`account.billing.limits`).
  const limitsRaw =
    readField(ctx, record, 'subscription.limits', asAny) ??
    findNamed(ctx, record, LIMITS_NAME, 'subscription.limits');
  const fromLimits =
    limitsRaw === undefined ? undefined : readLimits(limitsRaw, 'subscription.limits', opts, drift);
  const usageRaw =
    readField(ctx, record, 'subscription.usage', asAny) ??
    findNamed(ctx, record, USAGE_NAME, 'subscription.usage');
  const fromUsage =
    usageRaw === undefined ? undefined : readLimits(usageRaw, 'subscription.usage', opts, drift);
  // One name per limit, so that a limit and its usage pair up (snapshot/limit-names.ts).
  sub.limits = withLimitNames(Object.fromEntries(fromLimits?.limits ?? []));
  // Usage given on its own wins over usage given inside the limits.
  sub.usage = {
    ...withLimitNames(Object.fromEntries(fromLimits?.usage ?? [])),
    ...withLimitNames(Object.fromEntries(fromUsage?.usage ?? [])),
  };

  sub.funding = readFunding(ctx, record);
  return { value: sub, drift: drift.issues };
}

/** Key names of a limits or a usage group, wherever it sits. */
const LIMITS_NAME = /^(limits|quotas|entitlements|allowances|plan_limits|planLimits)$/;
const USAGE_NAME = /^(usage|consumption|used)$/;
const MAX_DEPTH = 3;

/**
 * The first object or list under a key matching `name`, at most {@link MAX_DEPTH} levels
 * below the record (breadth first: the shallowest wins), traced for `--explain`.
 */
function findNamed(ctx: ReadContext, record: JsonRecord, name: RegExp, field: FieldKey): unknown {
  let level: [string, JsonRecord][] = [['', record]];
  for (let depth = 0; depth <= MAX_DEPTH && level.length > 0; depth++) {
    const next: [string, JsonRecord][] = [];
    for (const [prefix, obj] of level) {
      for (const [key, value] of Object.entries(obj)) {
        const path = prefix === '' ? key : `${prefix}.${key}`;
        if (name.test(key) && (isRecord(value) || Array.isArray(value))) {
          ctx.opts.trace?.field(ctx.drift.endpoint, field, path, undefined);
          return value;
        }
        if (isRecord(value)) next.push([path, value]);
      }
    }
    level = next;
  }
  return undefined;
}
