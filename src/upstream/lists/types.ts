/**
 * What reading a list takes and gives (src/upstream/lists/reader.ts): the contract the
 * client (client.ts) relies on, unchanged by how the reader goes about it.
 */
import type { AdaptContext, Learned, QueryMemory } from '../query/adapt.js';
import type { UpstreamError } from '../errors.js';
import type { Validators } from '../transport/http.js';
import type { RequestContext } from '../transport/requester.js';
import type { DriftIssue, Endpoint, ShapeOptions } from '../shape/index.js';
import type { Way } from './keyset.js';

/** Page size asked for when the shape options do not say. */
export const DEFAULT_PER_PAGE = 100;

/** The outcome of reading a list: the raw items, and why they are not all of it when not. */
export interface ListRead {
  items: unknown[];
  /** Pages read successfully. */
  pages: number;
  /** Set when the list is not complete. */
  error?: UpstreamError;
  /** A doubt about the end of the list the shape layer raised (e.g. a full page without paging). */
  note?: string;
  /** The server answered 304 to the validators sent: the copy held is current. */
  notModified?: boolean;
  /** Validators of the first page, when the whole list was that one page. */
  validators?: Validators;
  /** Paging that did not advance or looped back, as drift (field `paging`); never values or URLs. */
  drift: DriftIssue[];
  /** Not asked: every safer query of the list was refused, and its wait is not over. */
  notSent?: boolean;
}

/** What reading a list needs besides the requester. */
export interface ListRequest extends RequestContext {
  endpoint: Endpoint;
  url: URL;
  shape: ShapeOptions;
  maxPages: number;
  /** Records in the copy `validators` stand for (see silent-pages.ts): a list that may be cut is asked plainly when due. */
  heldCount?: number | undefined;
  /** Adapts the first page's query to what the server takes (adapt.ts); absent: never. */
  adapt?: { memory: QueryMemory; ctx: AdaptContext; now: () => number } | undefined;
  /** Told of each safer query tried and of what was learned. */
  onAdapt?: ((what: string, change: Learned) => void) | undefined;
}

/**
 * How the URL of a page was made from the page before: the parameter tally set, and the
 * other ways to ask for the same page should the server ignore or refuse it (offsets
 * instead of a page number; another name for a cursor; another parameter for the last
 * record's id).
 */
export interface Via {
  param: string;
  kind: Way['kind'];
  others: Way[];
  /** The parameters asked with before this one, for the message when none works. */
  tried: string[];
  /** The id the page after is asked after (keyset), for a parameter a refusal names. */
  lastId?: string | undefined;
  /** The ways are those of a "more" without a pointer (keyset.ts): the one that works is remembered. */
  keyset?: boolean | undefined;
  /** The last of them failed by a refusal (400, 422), not by an answer that did not advance. */
  refused?: boolean | undefined;
}
