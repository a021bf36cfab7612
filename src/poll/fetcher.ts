/**
 * What the poller needs from the upstream client: one read per part, each returning a
 * Part that says how it went. Declared with the client (src/upstream/types.ts).
 */
export type { FetchOptions, Fetcher, OrgAuth, Priority } from '../upstream/types.js';
