/** Normalizes one member of the team list (`GET /v1/{org}/team`). */
import type { Member } from '../../snapshot/model.js';
import { DriftLog, type Normalized } from './drift.js';
import { describeValue, flattenResource, isRecord } from './json.js';
import type { ShapeOptions } from './options.js';
import { asId, asText, asWord, keysSeen, type ReadContext, readField, traceKeys } from './read.js';

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
  const id = readField(ctx, record, 'member.id', asId);
  if (id === undefined) {
    drift.fatal('member.id', `no usable id; keys seen: ${keysSeen(raw)}`);
    return { value: undefined, drift: drift.issues };
  }
  const member: Member = { id };
  const name = readField(ctx, record, 'member.name', asText);
  if (name !== undefined) member.name = name;
  const email = readField(ctx, record, 'member.email', asText);
  if (email !== undefined) member.email = email;
  const role = readField(ctx, record, 'member.role', asWord);
  if (role !== undefined) member.role = role;
  return { value: member, drift: drift.issues };
}
