/** The query of `/`: its filters and refresh interval, read leniently. */

/** Seconds between the page's refreshes unless `?refresh=` says otherwise (0: never). */
export const DEFAULT_REFRESH_SECONDS = 10;

/** The page's filters, from its query. */
export interface PageQuery {
  org?: string;
  /** `live`, `offline`, `unknown`, `changed` (a change in the last hour) or absent for all. */
  status?: string;
  q?: string;
  page: number;
  kind?: string;
  entity?: string;
  /** Seconds between refreshes (0: none) when not the default; links and forms keep it. */
  refresh?: number;
}

/** Reads the page's filters; anything malformed is ignored, never an error page. */
export function parseQuery(q: URLSearchParams): PageQuery {
  const text = (name: string, max = 200) => {
    const v = q.get(name)?.trim();
    return v === undefined || v === '' ? undefined : v.slice(0, max);
  };
  const page = Number(q.get('page'));
  const out: PageQuery = { page: Number.isInteger(page) && page >= 1 && page <= 100_000 ? page : 1 };
  const org = text('org');
  if (org !== undefined) out.org = org;
  const status = text('status');
  if (status === 'live' || status === 'offline' || status === 'unknown' || status === 'changed')
    out.status = status;
  const search = text('q');
  if (search !== undefined) out.q = search;
  const kind = text('kind', 64);
  if (kind !== undefined) out.kind = kind;
  const entity = text('entity');
  if (entity !== undefined) out.entity = entity;
  const refresh = Number(text('refresh', 8) ?? Number.NaN);
  if (Number.isInteger(refresh) && refresh >= 0 && refresh <= 3600 && refresh !== DEFAULT_REFRESH_SECONDS)
    out.refresh = refresh;
  return out;
}
