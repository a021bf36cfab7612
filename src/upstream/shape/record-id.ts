/**
 * The id of a list record, read the way its normalizer reads it (same aliases, same
 * conversion, JSON:API resources flattened), without reporting anything: the paging
 * loop tells pages apart by the ids they bring, and the client keeps one record per id.
 */
import { DriftLog } from './drift.js';
import type { Endpoint } from './endpoints.js';
import type { FieldKey } from './fields.js';
import { identityPartId, MEMBER_NOUNS } from './identity-part.js';
import { flattenResource, isRecord } from './json.js';
import type { ShapeOptions } from './options.js';
import { asId, readField } from './read.js';

/** The id field of each list endpoint's records. */
const ID_FIELD: Partial<Record<Endpoint, FieldKey>> = {
  team: 'member.id',
  channels: 'channel.id',
  sessions: 'session.id',
};

/** The model field holding the id of `endpoint`'s records (`channel.id`), or undefined for an object endpoint. */
export function idField(endpoint: Endpoint): FieldKey | undefined {
  return ID_FIELD[endpoint];
}

/** The id of one raw record of a list, or undefined when it has none tally can use. */
export function recordId(endpoint: Endpoint, raw: unknown, opts: ShapeOptions): string | undefined {
  const key = ID_FIELD[endpoint];
  if (key === undefined || !isRecord(raw)) return undefined;
  // Silent: neither the trace (--explain) nor drift hears of this read; the normalizer reports.
  const ctx = {
    opts: opts.trace === undefined ? opts : { ...opts, trace: undefined },
    drift: new DriftLog(endpoint),
  };
  const flat = flattenResource(raw);
  const id = readField(ctx, flat, key, asId);
  // A member with no id of its own is known by its part named for it, as the normalizer reads it.
  return id === undefined && endpoint === 'team' ? identityPartId(flat, MEMBER_NOUNS)?.id : id;
}
