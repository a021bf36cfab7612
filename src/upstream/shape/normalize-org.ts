/** Normalizes the organization profile (`GET /v1/{org}`). */
import type { Org } from '../../snapshot/model.js';
import { DriftLog, type Normalized } from './drift.js';
import { describeValue, flattenResource, isRecord } from './json.js';
import type { ShapeOptions } from './options.js';
import { asRecord, asText, hasAnyField, keysSeen, type ReadContext, readField, traceKeys } from './read.js';
import { flattenSettings } from './settings.js';

/** Normalizes an org profile; `slug` is the one tally asked for (the path is authoritative). */
export function normalizeOrg(
  raw: Record<string, unknown>,
  slug: string,
  opts: ShapeOptions,
): Normalized<Org> {
  const drift = new DriftLog('org');
  const org: Org = { slug, settings: {} };
  if (!isRecord(raw)) {
    drift.fatal('org', `record is ${describeValue(raw)}, expected an object`);
    return { value: org, drift: drift.issues };
  }
  const ctx: ReadContext = { opts, drift };
  const record = flattenResource(raw);
  traceKeys(ctx, record);
  // A body with nothing tally reads is a failed read, never a profile whose every field
  // changed (docs/upstream-shapes.md, "Absent is not changed").
  if (
    !hasAnyField(ctx, record, ['org.name', 'org.plan', 'org.settings']) &&
    !('slug' in record || 'id' in record)
  ) {
    drift.fatal('org', `none of the fields tally reads is in the body; keys seen: ${keysSeen(raw)}`);
    return { value: org, drift: drift.issues };
  }
  const name = readField(ctx, record, 'org.name', asText);
  if (name !== undefined) org.name = name;
  const plan = readField(ctx, record, 'org.plan', asText);
  if (plan !== undefined) org.plan = plan;
  // The subscription carries the plan too (and a subscription without one fails its read):
  // here a missing plan is reported, and the rest of the profile still read.
  else if (!hasAnyField(ctx, record, ['org.plan'])) drift.note('org.plan', 'no plan found');
  const settings = readField(ctx, record, 'org.settings', asRecord);
  if (settings !== undefined) org.settings = flattenSettings(settings, drift, 'org.settings');
  return { value: org, drift: drift.issues };
}
