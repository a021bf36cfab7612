/**
 * The shape layer of the upstream client: finds the list or object in whatever envelope
 * a response came in, finds the next page, and normalizes records into tally's model,
 * reporting schema drift instead of throwing. Pure: no I/O, no clock.
 */
export { describeIssue, type DriftIssue, type Normalized, SchemaDriftError } from './drift.js';
export { ENDPOINTS, type Endpoint, LIST_ENDPOINTS } from './endpoints.js';
export { readObject } from './envelope.js';
export { FIELD_ALIASES, FIELD_KEYS, type FieldKey, isFieldKey } from './fields.js';
export { type LinkValue, parseLinkHeader } from './link-header.js';
export { normalizeChannel } from './normalize-channel.js';
export { normalizeSessionDetail } from './normalize-detail.js';
export { normalizeMember } from './normalize-member.js';
export { normalizeOrg } from './normalize-org.js';
export { normalizeSession } from './normalize-session.js';
export { normalizeSubscription } from './normalize-subscription.js';
export {
  type FieldTier,
  type LocatedBy,
  PAGING_DEFAULTS,
  type PagingMode,
  type ShapeOptions,
  type ShapeTrace,
} from './options.js';
export {
  firstPageParams,
  type ListPage,
  type NextPage,
  type PageState,
  type PagingStyle,
  readListPage,
} from './paging.js';
export type { Headers as ResponseHeaders } from './paging-signals.js';
export { idField, recordId } from './record-id.js';
export { parseTime } from './time.js';
