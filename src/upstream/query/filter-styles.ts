/**
 * How a server wants the session list's filters written (docs/upstream-shapes.md,
 * "Requests that adapt", "Filter styles"). tally asks with plain parameters (`status`,
 * `from`, `to`); a server that refuses them often says in the same answer how it wants
 * them, and tally reads that to pick the next style instead of trying a blind list:
 *
 * - other plain names it lists (`start_time`/`end_time`, `since`/`until`,
 *   `created_at_min`/`created_at_max` as Shopify's REST lists take them);
 * - bracketed operators (`created[gte]`/`created[lte]`, as Stripe's list endpoints take a
 *   range: https://docs.stripe.com/changelog/clover/2025-11-17/invoice-payments-list-created);
 * - the JSON:API `filter[...]` family, whose members the spec leaves to the server
 *   (https://jsonapi.org/format/#fetching-filtering): the names it lists, else tally's own
 *   names inside it;
 * - one OData `$filter` expression (`status eq 'live' and startDateTime ge 2026-…Z`: OData
 *   v4 URL conventions, https://docs.oasis-open.org/odata/odata/v4.0/errata03/os/complete/part2-url-conventions/);
 * - one Google AIP-160 `filter` expression (`status = "live" AND start_time >= "2026-…Z"`:
 *   https://google.aip.dev/160).
 *
 * Plain names, brackets and `filter[...]` are all names for the same three parameters, so
 * they are one kind (`params`); the two expression languages are written whole.
 */

/** A way of writing the status and time-range filters. */
export type FilterStyle =
  | { kind: 'params'; from: string; to: string; status: string }
  | { kind: 'odata' | 'aip160'; field: string; status: string };

/** Tally's own names of the filters (`upstream.filters`). */
export interface FilterNames {
  from: string;
  to: string;
  status: string;
}

/** What choosing a style needs of the request's context (adapt.ts, AdaptContext). */
export interface StyleContext {
  filterNames?: FilterNames | undefined;
  fixedParams?: ReadonlySet<string> | undefined;
}

const NAME = /^[A-Za-z$_][A-Za-z0-9_.$-]{0,63}(\[[A-Za-z0-9_.$-]{1,32}\]){0,2}$/;

/** A stored style, checked (anything malformed: none). */
export function sanitizeStyle(v: unknown): FilterStyle | undefined {
  if (v === null || typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  const ok = (x: unknown): x is string => typeof x === 'string' && NAME.test(x);
  if (o['kind'] === 'params' && ok(o['from']) && ok(o['to']) && ok(o['status']))
    return { kind: 'params', from: o['from'], to: o['to'], status: o['status'] };
  if ((o['kind'] === 'odata' || o['kind'] === 'aip160') && ok(o['field']) && ok(o['status']))
    return { kind: o['kind'], field: o['field'], status: o['status'] };
  return undefined;
}

/** The parameters `style` sends (to leave out, or to tell a complaint about them). */
export function styleParams(style: FilterStyle | undefined, names: FilterNames): string[] {
  if (style === undefined) return [names.from, names.to, names.status];
  if (style.kind === 'params') return [style.from, style.to, style.status];
  return [style.kind === 'odata' ? '$filter' : 'filter'];
}

/**
 * Rewrites `url`'s filters from the parameters of `current` (tally's own names when
 * undefined) into `next`, in place. Expressions are written whole and not read back, so
 * only a query in parameters is rewritten; times keep the text they were sent with, and go
 * into an expression as ISO 8601 in UTC.
 */
export function restyle(
  url: URL,
  current: FilterStyle | undefined,
  next: FilterStyle,
  names: FilterNames,
): boolean {
  const from = current === undefined ? names : current.kind === 'params' ? current : undefined;
  if (from === undefined) return false;
  const values = {
    from: url.searchParams.get(from.from),
    to: url.searchParams.get(from.to),
    status: url.searchParams.get(from.status),
  };
  for (const p of [from.from, from.to, from.status]) url.searchParams.delete(p);
  if (next.kind === 'params') {
    if (values.from !== null) url.searchParams.set(next.from, values.from);
    if (values.to !== null) url.searchParams.set(next.to, values.to);
    if (values.status !== null) url.searchParams.set(next.status, values.status);
    return true;
  }
  const expr = expression(next, values);
  if (expr !== '') url.searchParams.set(next.kind === 'odata' ? '$filter' : 'filter', expr);
  return true;
}

/** One expression of the filters in `style`'s language. */
function expression(
  style: Extract<FilterStyle, { kind: 'odata' | 'aip160' }>,
  v: { from: string | null; to: string | null; status: string | null },
): string {
  const iso = (s: string | null) => {
    if (s === null) return undefined;
    const ms = /^\d+$/.test(s) ? Number(s) * (s.length > 11 ? 1 : 1000) : Date.parse(s);
    return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
  };
  const from = iso(v.from);
  const to = iso(v.to);
  const statuses = (v.status ?? '').split(',').filter((s) => /^[A-Za-z0-9_ -]{1,40}$/.test(s));
  const odata = style.kind === 'odata';
  const parts: string[] = [];
  if (statuses.length > 0) {
    const one = statuses.map((s) => (odata ? `${style.status} eq '${s}'` : `${style.status} = "${s}"`));
    parts.push(one.length === 1 ? one[0]! : `(${one.join(odata ? ' or ' : ' OR ')})`);
  }
  // OData writes a DateTimeOffset bare; AIP-160 compares a timestamp field with a string.
  if (from !== undefined) parts.push(odata ? `${style.field} ge ${from}` : `${style.field} >= "${from}"`);
  if (to !== undefined) parts.push(odata ? `${style.field} le ${to}` : `${style.field} <= "${to}"`);
  return parts.join(odata ? ' and ' : ' AND ');
}

/** Words of a name (`created_at_min` → created at min; `startDateTime` → start date time). */
function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

const FROM_WORDS = new Set([
  'from',
  'since',
  'after',
  'start',
  'starts',
  'begin',
  'min',
  'gte',
  'gt',
  'earliest',
]);
const TO_WORDS = new Set(['to', 'until', 'before', 'end', 'ends', 'max', 'lte', 'lt', 'latest']);
const TIME_FIELD_WORDS = new Set([
  'start',
  'starts',
  'started',
  'begin',
  'scheduled',
  'created',
  'time',
  'date',
]);
const STATUS_WORDS = new Set(['status', 'state']);
/** Words of a message that are never parameter names. */
const PROSE = new Set([
  'unknown',
  'parameter',
  'parameters',
  'query',
  'allowed',
  'supported',
  'invalid',
  'expected',
]);

/**
 * The names an error's words offer: tokens that look like parameter or property names
 * (with `_`, `-`, `.`, brackets or inner capitals, `$filter`, or `since`/`until`), minus
 * the ones `sent`.
 */
function offered(words: string, sent: ReadonlySet<string>): string[] {
  const tokens = words.match(/\$?[A-Za-z][A-Za-z0-9_.-]*(\[[A-Za-z0-9_.$-]+\])*/g) ?? [];
  const out: string[] = [];
  for (const raw of tokens) {
    const t = raw.replace(/[.-]+$/, '');
    if (sent.has(t) || PROSE.has(t.toLowerCase()) || out.includes(t)) continue;
    if (/[_.[\]-]|[a-z][A-Z]|^\$/.test(t) || /^(since|until|filter|status|state)$/i.test(t)) out.push(t);
  }
  return out;
}

/** The first of `names` one of whose words is in `set` (by its last bracket, else its words). */
function pick(names: readonly string[], set: ReadonlySet<string>): string | undefined {
  return names.find((n) => {
    const op = /\[([A-Za-z]+)\]$/.exec(n)?.[1]?.toLowerCase();
    return op !== undefined ? set.has(op) : wordsOf(n).some((w) => set.has(w));
  });
}

/**
 * The style the server's words (`words`, as the server wrote them) say it speaks, other
 * than `current` and those `tried`, or undefined when they say none. `sent`: the
 * parameters of the refused query.
 */
export function styleFromWords(
  words: string,
  names: FilterNames,
  current: FilterStyle | undefined,
  sent: readonly string[],
  tried: ReadonlySet<string>,
): FilterStyle | undefined {
  const offers = offered(words, new Set(sent));
  const fresh = (s: FilterStyle | undefined) =>
    s !== undefined && !tried.has(JSON.stringify(s)) && JSON.stringify(s) !== JSON.stringify(current)
      ? s
      : undefined;
  const props = offers.filter((n) => !/[[\]$]/.test(n) && n.toLowerCase() !== 'filter');
  const status = pick(props, STATUS_WORDS) ?? names.status;
  const field = (fallback: string) => pick(props, TIME_FIELD_WORDS) ?? fallback;
  // One expression: `$filter` (OData), or a `filter` the words speak of as an expression.
  if (/\$filter\b/i.test(words)) return fresh({ kind: 'odata', field: field('startDateTime'), status });
  const family = offers.filter((n) => /^filter\[/i.test(n));
  if (family.length > 0 || /\bfilter\[/i.test(words)) {
    return fresh({
      kind: 'params',
      from: pick(family, FROM_WORDS) ?? `filter[${names.from}]`,
      to: pick(family, TO_WORDS) ?? `filter[${names.to}]`,
      status: pick(family, STATUS_WORDS) ?? `filter[${names.status}]`,
    });
  }
  // Bracketed operators on one field (`created[gte]`, `starts_at[lte]`).
  const brackets = offers.filter((n) => /^[A-Za-z][\w.-]*\[(gte?|lte?)\]$/i.test(n));
  const bFrom = pick(brackets, FROM_WORDS);
  const base = bFrom?.split('[')[0];
  // The end of the range: the one it lists, else the same field with the opposite operator.
  const bTo =
    bFrom === undefined
      ? undefined
      : (brackets.find((n) => n.startsWith(`${base}[`) && pick([n], TO_WORDS) === n) ??
        `${base}[${/\[gt\]$/i.test(bFrom) ? 'lt' : 'lte'}]`);
  if (bFrom !== undefined && bTo !== undefined)
    return fresh({ kind: 'params', from: bFrom, to: bTo, status });
  // One AIP-160 expression: `filter` named with the AIP, or spoken of as an expression.
  if (/\baip-?160\b/i.test(words) || (/\bfilter\b/i.test(words) && /\b(expression|syntax)\b/i.test(words)))
    return fresh({ kind: 'aip160', field: field('start_time'), status });
  // Plain names it lists: one of a range's start and one of its end.
  const plain = props.filter((n) => !STATUS_WORDS.has(n.toLowerCase()));
  const from = pick(plain, FROM_WORDS);
  const to = pick(
    plain.filter((n) => n !== from),
    TO_WORDS,
  );
  if (from !== undefined && to !== undefined) return fresh({ kind: 'params', from, to, status });
  return undefined;
}

/** Whether the session filters may be written in another style: none of them is set by the config. */
export function restyleable(ctx: StyleContext): boolean {
  const n = ctx.filterNames;
  return n !== undefined && ![n.from, n.to, n.status].some((p) => ctx.fixedParams?.has(p) === true);
}

/**
 * The style to write the filters in next, when the refusal of `url` is about them (it names
 * one as unknown or wrong, or speaks of `$filter` / `filter[`) and its words say which
 * style the server speaks (filter-styles.ts); undefined otherwise. Styles tried in this
 * read are noted in `tried` under `#styles`.
 */
export function nextStyle(
  url: URL,
  err: { upstreamWords?: string | undefined },
  said: { unknown: readonly string[]; named: readonly string[] },
  learned: { filterStyle?: FilterStyle | undefined },
  ctx: StyleContext,
  tried: Map<string, Set<string>>,
): FilterStyle | undefined {
  if (!restyleable(ctx)) return undefined;
  const names = ctx.filterNames!;
  const words = err.upstreamWords ?? '';
  const current = styleParams(learned.filterStyle, names).filter((p) => url.searchParams.has(p));
  if (current.length === 0 || learned.filterStyle?.kind === 'odata' || learned.filterStyle?.kind === 'aip160')
    return undefined;
  // About the filters: one of them refused as unknown; or, refusing nothing as unknown, naming
  // one (or naming nothing and speaking of `$filter` / `filter[`). A refusal of another
  // parameter that lists the filters it takes is not about them.
  const hits = (ps: readonly string[]) => ps.some((p) => current.includes(p));
  // A list of what it takes (`allowed: …`, src/upstream/transport/http.ts) without a filter sent.
  const listed = /\ballowed: ([^;]+)/i.exec(words)?.[1]?.split(/,\s*/);
  const about =
    (listed !== undefined && current.some((p) => !listed.includes(p))) ||
    hits(said.unknown) ||
    (said.unknown.length === 0 && hits(said.named)) ||
    (said.named.length === 0 && /\$filter|filter\[/i.test(words));
  if (!about) return undefined;
  const seen = tried.get('#styles') ?? new Set<string>();
  tried.set('#styles', seen);
  if (learned.filterStyle !== undefined) seen.add(JSON.stringify(learned.filterStyle));
  const style = styleFromWords(words, names, learned.filterStyle, [...url.searchParams.keys()], seen);
  if (style !== undefined) seen.add(JSON.stringify(style));
  return style;
}

/**
 * `ctx` with the time parameters of `style` (when it names them) counted as time
 * parameters too, the end of its range as an end: their formats adapt as tally's own do.
 */
export function withStyleTimes<
  T extends { timeParams: ReadonlySet<string>; endParams?: ReadonlySet<string> | undefined },
>(ctx: T, style: FilterStyle | undefined): T {
  if (style?.kind !== 'params') return ctx;
  return {
    ...ctx,
    timeParams: new Set([...ctx.timeParams, style.from, style.to]),
    endParams: new Set([...(ctx.endParams ?? []), style.to]),
  };
}
