/** What every panel of the page uses: escaping, links that keep the filters, times, values. */
import type { PageQuery } from './query.js';

/** One escaping function for everything that goes into the page, text or attribute. */
export function h(value: unknown): string {
  return String(value ?? '').replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Text from upstream (names, titles, ids, values) in the page's text: escaped and set in a
 * `<bdi>`, so right-to-left text or a stray override character (U+202E) in it cannot
 * reorder what stands around it (docs/http-api.md, "`GET /`"). Attributes take `h`.
 */
export function t(value: unknown): string {
  return `<bdi>${h(value)}</bdi>`;
}

/**
 * A relative link to the page with `query` (empty values left out), keeping the refresh
 * interval of the page it is on.
 */
export function link(q: PageQuery, query: Record<string, string | number | undefined>, hash = ''): string {
  const p = new URLSearchParams();
  const all: Record<string, string | number | undefined> = { ...query, refresh: q.refresh };
  for (const [k, v] of Object.entries(all)) if (v !== undefined && v !== '') p.set(k, String(v));
  const s = p.toString();
  return `./${s === '' ? '' : `?${s}`}${hash}`;
}

export function time(ms: number | undefined, now: number): string {
  if (ms === undefined) return '<span class="muted">never</span>';
  const iso = new Date(ms).toISOString();
  return `<time datetime="${h(iso)}" title="${h(iso)}">${h(ago(now - ms))}</time>`;
}

export function ago(ms: number): string {
  const future = ms < 0;
  const s = Math.round(Math.abs(ms) / 1000);
  const text =
    s < 90
      ? `${s}s`
      : s < 5400
        ? `${Math.round(s / 60)}m`
        : s < 172_800
          ? `${Math.round(s / 3600)}h`
          : `${Math.round(s / 86_400)}d`;
  return future ? `in ${text}` : `${text} ago`;
}

/** A filter form's field that keeps the page's refresh interval. */
export function keepRefresh(q: PageQuery): string {
  return q.refresh === undefined ? '' : `<input type="hidden" name="refresh" value="${h(q.refresh)}">`;
}

export function show(v: unknown): string {
  if (v === undefined) return '';
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > 120 ? `${s.slice(0, 120)}…` : s;
}

export function value<T>(part: { state: string; value?: T } | undefined): T | undefined {
  return part !== undefined && part.state !== 'failed' ? part.value : undefined;
}
