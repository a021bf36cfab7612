/**
 * The explicit state of one list read (src/upstream/lists/reader.ts): everything that
 * changes while its pages are read, in one place, so that each event's method says what
 * it changes.
 */
import type { Learned } from '../query/adapt.js';
import type { Validators } from '../transport/http.js';
import type { DriftIssue, PageState } from '../shape/index.js';
import type { Blind } from './silent-pages.js';
import type { Via } from './types.js';

export interface ListState {
  /** The URL about to be read. */
  url: URL;
  /** What the first page's query learned so far (adapt.ts). */
  learned: Learned;
  /** Safer first queries tried in this read. */
  adaptations: number;
  /** Time formats tried per parameter in this read (adapt.ts). */
  tried: Map<string, Set<string>>;
  /** The version of the memory this read has taken into account (adapt.ts). */
  known: number;
  /** The read starts from tally's own query, re-trying what refusals taught (query/evidence.ts). */
  retrial: boolean;
  /**
   * The read starts from the query a refused read got to, while refusals of the query known
   * to work are tallied (query/evidence.ts): its answer says nothing of those refusals.
   */
  provisional: boolean;
  /** The name the cursor goes back in, when the server was found to ignore `cursor`. */
  cursorName: string | undefined;
  /** The parameter that asks for the page after a "more" without a pointer (keyset.ts), once known. */
  moreBy: string | undefined;
  /** Validators go with the first request. */
  conditional: boolean;
  items: unknown[];
  drift: DriftIssue[];
  note: string | undefined;
  /** Pages read successfully. */
  pages: number;
  /** Where the list stands, as the shape layer counts it. */
  at: PageState;
  /** Exact URLs read, and the same with implicit parameters left out (page 1, offset 0, the page size). */
  visited: Set<string>;
  visitedKeys: Set<string>;
  /** Ids of the records read so far, and how many records had none. */
  seenIds: Set<string>;
  unidentified: number;
  /** The first item of the last page, to spot a repeated page whose records have no ids. */
  lastFirst: string | undefined;
  /** Pages go on by offset: the server ignored the page number. */
  byOffset: boolean;
  /** How the URL about to be read was made from the page before. */
  via: Via | undefined;
  /** The URL about to be read is a page already read, up to implicit parameters. */
  again: boolean;
  validators: Validators | undefined;
  /** After a first page that shows no paging at all: how the read goes on (silent-pages.ts). */
  blind: Blind | undefined;
  /** The ids of the page before (the last of the list read so far). */
  before: Set<string>;
  /** The id of the last record of that page: the page after it is asked after it (by `keyset`). */
  lastId: string | undefined;
  /** The page size the answered first request asked for (0: none). */
  asked: number;
  /** This read holds the claim to find out (ProbeLedger.mayProbe, silent-pages.ts). */
  probeOpen: boolean;
  /**
   * Another read is finding out for the endpoint: its end, which this read waits for before
   * it goes on (`'waited'` once it has: it reads on by what was found, never finds out itself).
   */
  held: Promise<void> | 'waited' | undefined;
}

/** The state of a read about to ask for `url`. */
export function initialState(url: URL, learned: Learned, perPage: number, known: number): ListState {
  return {
    url,
    learned,
    adaptations: 0,
    tried: new Map(),
    known,
    retrial: false,
    provisional: false,
    cursorName: undefined,
    moreBy: learned.moreBy,
    conditional: false,
    items: [],
    drift: [],
    note: undefined,
    pages: 0,
    at: { page: 1, perPage, seen: 0 },
    visited: new Set(),
    visitedKeys: new Set(),
    seenIds: new Set(),
    unidentified: 0,
    lastFirst: undefined,
    byOffset: false,
    via: undefined,
    again: false,
    validators: undefined,
    blind: undefined,
    before: new Set(),
    lastId: undefined,
    asked: 0,
    probeOpen: false,
    held: undefined,
  };
}
