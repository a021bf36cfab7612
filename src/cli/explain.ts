/**
 * `tally once --explain`: what tally understood of each endpoint of a server — the
 * request that worked, where the list sat and how it was paged, what was learned, where
 * every model field came from and how it was converted, which keys were left unread, and
 * the drift found (docs/upstream-shapes.md, "Explain"). Names and paths only: values
 * from the server never appear here.
 */
import type { Learned, QueryMemory } from '../upstream/query/adapt.js';
import { describeTimeFormat } from '../upstream/query/time-formats.js';
import { silentWay } from '../upstream/lists/silent-pages.js';
import {
  describeIssue,
  type DriftIssue,
  type Endpoint,
  type FieldTier,
  type LocatedBy,
  type ShapeTrace,
} from '../upstream/shape/index.js';

/** What was learned of one endpoint of one org. */
export interface EndpointExplain {
  /** The path and query of the first request that was answered (no credentials). */
  request?: string;
  /** Paging styles the pages were read with, and how many pages. */
  paging: Record<string, number>;
  /** Lists (or objects) read: one per request of a first page. */
  reads: number;
  /** Where the list was in the body (`""`: the body is the list). */
  listAt: string[];
  /** Items read over every page. */
  items: number;
  /** What tally learned the endpoint takes (requests that adapt). */
  learned?: Learned;
  /** Model field → source path (with its conversion) → records read that way. */
  fields: Record<string, Record<string, number>>;
  /** Keys of the records that no model field was read from, with how often they were seen. */
  ignoredKeys: Record<string, number>;
  /** Distinct drift problems: `field: problem`. */
  drift: string[];
  /** Records read (each record's keys reported once). */
  records?: number;
  /** Where the list or object sat and how it was found there: path (`""`: the body) → how. */
  located?: Record<string, LocatedBy>;
  /** Model field → records it could not be read from (no tier found it). */
  unread?: Record<string, number>;
}

/** Distinct keys kept per endpoint; a server with endless distinct keys cannot grow this further. */
const MAX_KEYS = 200;
const MAX_DRIFT = 50;

/** Collects the trace of one `once` run, org by org. */
export class ExplainCollector implements ShapeTrace {
  private readonly orgs = new Map<string, Map<Endpoint, EndpointExplain & { keys: Map<string, number> }>>();
  private org = '';

  /** Sets the org the next reads belong to. */
  startOrg(org: string): void {
    this.org = org;
  }

  field(
    endpoint: Endpoint,
    key: string,
    path: string,
    how: string | undefined,
    found?: { tier: FieldTier; confidence: number },
  ): void {
    const e = this.entry(endpoint);
    const byPath = e.fields[key] ?? {};
    e.fields[key] = byPath;
    const last = this.last.get(`${endpoint} ${key}`);
    // A field found by the words of its key says so, with how sure tally is; an alias is exact.
    const tier =
      found !== undefined && found.tier !== 'alias'
        ? ` [${found.tier}, confidence ${found.confidence.toFixed(2)}]`
        : '';
    let source = `${how === undefined ? path : `${path} (${how})`}${tier}`;
    if (path === '' && last !== undefined) {
      // A refinement of the source just reported: the same value, now with its conversion.
      byPath[last] = (byPath[last] ?? 1) - 1;
      if (byPath[last] === 0) delete byPath[last];
      source = `${last} (${how ?? ''})`;
    }
    byPath[source] = (byPath[source] ?? 0) + 1;
    this.last.set(`${endpoint} ${key}`, source);
  }

  /** The last source reported per endpoint and field, for refinements. */
  private readonly last = new Map<string, string>();

  missing(endpoint: Endpoint, key: string): void {
    const e = this.entry(endpoint);
    const unread = e.unread ?? {};
    e.unread = unread;
    unread[key] = (unread[key] ?? 0) + 1;
  }

  located(endpoint: Endpoint, path: string, by: LocatedBy): void {
    const e = this.entry(endpoint);
    const located = e.located ?? {};
    e.located = located;
    if (Object.keys(located).length < MAX_DRIFT) located[path] = by;
  }

  keys(endpoint: Endpoint, keys: readonly string[]): void {
    const e = this.entry(endpoint);
    e.records = (e.records ?? 0) + 1;
    for (const k of keys) {
      if (e.keys.size >= MAX_KEYS && !e.keys.has(k)) continue;
      e.keys.set(k, (e.keys.get(k) ?? 0) + 1);
    }
  }

  page(
    endpoint: Endpoint,
    info: { url: URL; listPath: string; style: string; items: number; first: boolean },
  ): void {
    const e = this.entry(endpoint);
    e.request ??= `${info.url.pathname}${info.url.search}`;
    e.items += info.items;
    if (info.first) e.reads += 1;
    if (info.style === 'object') return;
    e.paging[info.style] = (e.paging[info.style] ?? 0) + 1;
    if (!e.listAt.includes(info.listPath)) e.listAt.push(info.listPath);
  }

  /** Records a drift issue of the current org. */
  drift(issue: DriftIssue & { org: string }): void {
    const e = this.entry(issue.endpoint, issue.org);
    const line = `${describeIssue(issue)}${issue.fatal ? ' (fatal: the read failed)' : ''}`;
    if (!e.drift.includes(line) && e.drift.length < MAX_DRIFT) e.drift.push(line);
  }

  /** Everything collected, per org and endpoint, with what `memory` learned. */
  result(memory: QueryMemory): Record<string, Partial<Record<Endpoint, EndpointExplain>>> {
    const out: Record<string, Partial<Record<Endpoint, EndpointExplain>>> = {};
    for (const [org, endpoints] of this.orgs) {
      const perOrg: Partial<Record<Endpoint, EndpointExplain>> = {};
      for (const [endpoint, e] of endpoints) {
        const used = new Set(
          Object.values(e.fields).flatMap((byPath) => Object.keys(byPath).map((p) => rootKey(p))),
        );
        const ignoredKeys: Record<string, number> = {};
        for (const [k, n] of e.keys) if (!used.has(fold(k))) ignoredKeys[k] = n;
        // What, not when: a single look learns it all at once (query/evidence.ts).
        const known = memory.get(org, endpoint);
        const { learnedAt: _at, confirmedAt: _confirmed, ...learned } = known ?? {};
        const { keys: _keys, ...rest } = e;
        if (e.unread !== undefined) rest.unread = stillUnread(e);
        perOrg[endpoint] = { ...rest, ignoredKeys, ...(known ? { learned } : {}) };
      }
      out[org] = perOrg;
    }
    return out;
  }

  private entry(endpoint: Endpoint, org = this.org) {
    let endpoints = this.orgs.get(org);
    if (!endpoints) {
      endpoints = new Map();
      this.orgs.set(org, endpoints);
    }
    let e = endpoints.get(endpoint);
    if (!e) {
      e = {
        paging: {},
        reads: 0,
        listAt: [],
        items: 0,
        fields: {},
        ignoredKeys: {},
        drift: [],
        keys: new Map(),
      };
      endpoints.set(endpoint, e);
    }
    return e;
  }
}

/**
 * Fields missed on some reads and not made up by others: a field read one way after
 * another way missed (a balance in minor units after none in major ones) is read.
 */
function stillUnread(e: EndpointExplain): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [field, missed] of Object.entries(e.unread ?? {})) {
    const read = Object.values(e.fields[field] ?? {}).reduce((a, b) => a + b, 0);
    const left = e.records === undefined ? missed : Math.min(missed, e.records - read);
    if (left > 0) out[field] = left;
  }
  return out;
}

/** The first key of a source path, folded the way field lookups fold case. */
function rootKey(source: string): string {
  const path = source.split(' ')[0] ?? '';
  return fold(path.split(/[.[]/)[0] ?? '');
}

function fold(key: string): string {
  return key.replace(/[_-]/g, '').toLowerCase();
}

/** The explanation as text, one block per org and endpoint. */
export function formatExplain(
  result: Record<string, Partial<Record<Endpoint, EndpointExplain>>>,
  windowParams: readonly [string, string] = ['from', 'to'],
): string {
  const lines: string[] = [];
  for (const [org, endpoints] of Object.entries(result)) {
    lines.push(`${org}`);
    for (const [endpoint, e] of Object.entries(endpoints)) {
      if (!e) continue;
      lines.push(`  ${endpoint}`);
      if (e.request !== undefined) lines.push(`    request: GET ${e.request}`);
      const paging = Object.entries(e.paging)
        .map(([style, n]) => `${style} (${n} page${n === 1 ? '' : 's'})`)
        .join(', ');
      if (paging !== '') {
        const at = e.listAt.map((p) => (p === '' ? 'the body itself' : p)).join(', ');
        const lists = e.reads === 1 ? '' : ` over ${e.reads} lists`;
        lines.push(`    list at: ${at}; paging: ${paging}${lists}; ${e.items} items`);
      }
      for (const [path, by] of Object.entries(e.located ?? {}))
        if (by !== 'name') lines.push(`    found at: ${path === '' ? 'the body itself' : path} (by ${by})`);
      if (e.learned) lines.push(`    learned: ${describeLearned(e.learned, windowParams)}`);
      for (const [field, byPath] of Object.entries(e.fields).sort(([a], [b]) =>
        a < b ? -1 : a > b ? 1 : 0,
      )) {
        const sources = Object.entries(byPath)
          .sort((a, b) => b[1] - a[1])
          .map(([p, n]) => (Object.keys(byPath).length > 1 ? `${p} ×${n}` : p));
        lines.push(`    ${field} ← ${sources.join(' | ')}`);
      }
      const unread = Object.entries(e.unread ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      if (unread.length > 0) {
        const of = e.records === undefined ? '' : ` (${e.records} record${e.records === 1 ? '' : 's'} read)`;
        lines.push(`    not read: ${unread.map(([f, n]) => `${f} ×${n}`).join(', ')}${of}`);
      }
      const ignored = Object.keys(e.ignoredKeys);
      if (ignored.length > 0) lines.push(`    keys not read: ${ignored.join(', ')}`);
      for (const d of e.drift) lines.push(`    drift: ${d}`);
    }
  }
  if (lines.length > 0) lines.push(LEGEND);
  return `${lines.join('\n')}\n`;
}

/** How to read the field lines, once at the end. */
const LEGEND =
  '(field ← key: read by its alias, exact, confidence 1; [words, confidence c]: read by the words' +
  ' of the key, c the share of its words that mean the field; found at … (by shape): the list or' +
  ' record found by the shape of the body, not by a known name)';

function describeLearned(l: Learned, windowParams: readonly [string, string]): string {
  const parts: string[] = [];
  if (l.perPage !== undefined) parts.push(`page size ${l.perPage}`);
  if (l.drop?.length) parts.push(`left out ${l.drop.join(', ')}`);
  // A parameter left out is sent in no format: only those still sent are named here.
  const byFormat = new Map<string, string[]>();
  for (const [p, f] of Object.entries(l.times ?? {}))
    if (!l.drop?.includes(p)) byFormat.set(f, [...(byFormat.get(f) ?? []), p]);
  for (const [f, ps] of byFormat) parts.push(`${ps.join(', ')} as ${describeTimeFormat(f)}`);
  const st = l.filterStyle;
  if (st !== undefined)
    parts.push(
      st.kind === 'params'
        ? `filters sent as ${st.from}, ${st.to}, ${st.status}`
        : `filters sent as one ${st.kind === 'odata' ? 'OData $filter' : 'AIP-160 filter'} expression on ${st.field} and ${st.status}`,
    );
  if (l.ignored?.length) parts.push(ignoredFilters(l, windowParams));
  if (l.cursorParam !== undefined) parts.push(`cursor sent back as ${l.cursorParam}`);
  if (l.moreBy !== undefined) parts.push(`the page after a "more" without a pointer asked by ${l.moreBy}`);
  if (l.cursorStuck === true)
    parts.push('the server ignores the cursor under every name tried (lists incomplete)');
  if (l.silentPages !== undefined)
    parts.push(
      `pages of ${l.silentPages.size} without paging signs, read on by ${l.silentPages.by === 'page' ? `page number (from ${l.silentPages.base ?? 1})` : silentWay(l.silentPages)}`,
    );
  if (l.wholeUpTo !== undefined && l.silentPages === undefined)
    parts.push(`no page found after ${l.wholeUpTo} records without paging signs`);
  if (l.refused) parts.push('no query answered yet (the server refused every one tried)');
  return parts.join('; ') || 'nothing';
}

/**
 * What the server does with the filters tally applies itself: a window whose parameters
 * were left out after a refusal was never sent, and is not one the server ignores.
 */
function ignoredFilters(l: Learned, [from, to]: readonly [string, string]): string {
  const unsent = (f: string): boolean =>
    f === 'window' && l.drop !== undefined && l.drop.includes(from) && l.drop.includes(to);
  const ignored = (l.ignored ?? []).filter((f) => !unsent(f));
  const left = (l.ignored ?? []).filter(unsent);
  const said: string[] = [];
  if (ignored.length > 0) said.push(`server ignores the ${ignored.join(' and ')} filter`);
  if (left.length > 0) said.push(`the ${left.join(' and ')} is not sent`);
  return `${said.join('; ')} (tally filters)`;
}
