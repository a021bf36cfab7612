/**
 * Operator overrides of response shapes (`upstream.shape` in the config), for a server
 * whose answers the defaults do not fit. Every option is optional.
 */
import type { PagingMode } from '../../config/paging-modes.js';
import type { Endpoint } from './endpoints.js';
import type { FieldKey } from './field-aliases.js';
import type { MoneyHabit } from './numbers.js';

/** How the next page of a list is found: the config's own list (src/config/paging-modes.ts). */
export type { PagingMode };

/** Response-shape overrides; everything is optional. */
export interface ShapeOptions {
  /** Dot path to the list or object per endpoint, e.g. `data.items`; `""` is the root. */
  envelope?: Partial<Record<Endpoint, string>>;
  /** Paging style; `auto` (default) detects it per response. */
  paging?: PagingMode;
  /** Query parameter carrying a cursor; default `cursor`. */
  cursorParam?: string;
  /** Query parameter carrying a page number; default `page`. */
  pageParam?: string;
  /** Query parameter carrying the page size; default `per_page`. */
  perPageParam?: string;
  /** Page size asked for on the first request; default 100. */
  perPage?: number;
  /** Extra aliases per model field, tried before the built-in ones. */
  fields?: Partial<Record<FieldKey, string[]>>;
  /** How this org's server writes money in numbers, learned as it is read (numbers.ts, `MoneyHabit`). */
  money?: MoneyHabit | undefined;
  /** Told where each value was found (`tally once --explain`); absent in normal runs. */
  trace?: ShapeTrace | undefined;
}

/** Which tier found a field: its alias table, the words of a key, or the shape of the body. */
export type FieldTier = 'alias' | 'words' | 'structure';

/** How a list or object was found: the operator's path, a known name, or its shape alone. */
export type LocatedBy = 'operator' | 'name' | 'shape';

/** Where tally found what it read, for `tally once --explain`. Names and paths only, never values. */
export interface ShapeTrace {
  /**
   * A model field of a record of `endpoint` was read from `path`; `how` names a conversion.
   * An empty `path` adds `how` to the source reported just before for the same field.
   */
  field(
    endpoint: Endpoint,
    key: string,
    path: string,
    how: string | undefined,
    found?: { tier: FieldTier; confidence: number },
  ): void;
  /** A model field of a record of `endpoint` could not be read (no tier found it). */
  missing?(endpoint: Endpoint, key: string): void;
  /** The list or object of a response of `endpoint` was found at `path` (`""`: the body), and how. */
  located?(endpoint: Endpoint, path: string, by: LocatedBy): void;
  /** The keys one record of `endpoint` had. */
  keys(endpoint: Endpoint, keys: readonly string[]): void;
  /** A page of `endpoint` was read from `url`: its list at `listPath`, paging by `style`. */
  page(
    endpoint: Endpoint,
    info: { url: URL; listPath: string; style: string; items: number; first: boolean },
  ): void;
}

/** Defaults of the paging options. */
export const PAGING_DEFAULTS = {
  paging: 'auto',
  cursorParam: 'cursor',
  pageParam: 'page',
  perPageParam: 'per_page',
  perPage: 100,
} as const satisfies Required<
  Pick<ShapeOptions, 'paging' | 'cursorParam' | 'pageParam' | 'perPageParam' | 'perPage'>
>;

/** Paging options with defaults applied. */
export interface PagingOptions {
  paging: PagingMode;
  cursorParam: string;
  pageParam: string;
  perPageParam: string;
  perPage: number;
}

/** Applies the defaults to the paging options (empty names fall back to the default). */
export function pagingOptions(opts: ShapeOptions): PagingOptions {
  const perPage = opts.perPage;
  return {
    paging: opts.paging ?? PAGING_DEFAULTS.paging,
    cursorParam: opts.cursorParam || PAGING_DEFAULTS.cursorParam,
    pageParam: opts.pageParam || PAGING_DEFAULTS.pageParam,
    perPageParam: opts.perPageParam || PAGING_DEFAULTS.perPageParam,
    perPage:
      perPage !== undefined && Number.isInteger(perPage) && perPage > 0 ? perPage : PAGING_DEFAULTS.perPage,
  };
}
