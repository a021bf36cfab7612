/**
 * Reads every page of a list: the entry point the client calls. The reading itself lives
 * in src/upstream/lists/ (docs/upstream-client.md, "Paging"): reader.ts, one method per
 * event over an explicit state (state.ts); keyset.ts, the page after a "more" without a
 * pointer; outcomes.ts, telling pages apart and the errors a read ends with.
 */
import { ListReader } from './reader.js';
import type { ListRead, ListRequest } from './types.js';
import type { Requester } from '../transport/requester.js';

export { pageKey } from './outcomes.js';
export type { ListRead, ListRequest } from './types.js';

/**
 * Reads every page of the list at `req.url`. Resolves with what was read; rejects only
 * when the request's signal is aborted.
 *
 * Pages are told apart by the ids of their records (the ids the normalizer will read). A
 * page after the first that brings no new id, or mostly ids already read, means the
 * paging does not advance: the server ignores the parameter tally sent, answers a cursor
 * page again, or links back to a page already read. tally then asks for the same page
 * another way when it has one (by offset instead of page number; the cursor under the
 * name its key suggests, `next_page_token` → `page_token`, `pageToken`; after the last
 * record by another parameter), and otherwise stops: the list is incomplete, keeping each
 * record once, with a drift note.
 */
export function readList(requester: Requester, req: ListRequest): Promise<ListRead> {
  return new ListReader(requester, req).read();
}
