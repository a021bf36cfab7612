/**
 * Reading the sub-resources a session detail does not hold (docs/upstream-shapes.md,
 * "Session detail"): behind a link in the detail, expanded on request (`include=`,
 * `$expand=`, `expand[]=`, `expand=`, `embed=`), or on their own path under the session
 * (`/v1/{org}/sessions/{id}/questions`). Links are followed on the API's origin only
 * (docs/architecture.md, invariant 4); every request goes through the one budget. Which
 * way works is probed once per org and sub-resource and remembered; a way that stops
 * working is forgotten and probed again; when none works the sub-resource stays unread
 * (unknown, never 0) and the probe is not repeated for an hour.
 */
import { type Clock, steadyNow } from '../core/clock.js';
import type { SessionDetail, SubResource } from '../snapshot/model.js';
import type { DriftIssue } from './shape/drift.js';
import { flattenResource, isRecord } from './shape/json.js';
import { normalizeSessionDetail } from './shape/normalize-detail.js';
import { readObject } from './shape/envelope.js';
import type { ShapeOptions } from './shape/options.js';
import type { RequestContext, Requester } from './transport/requester.js';
import { UpstreamError, type UpstreamReason } from './errors.js';

/** How one sub-resource of an org's sessions is read when the detail does not hold it. */
export type SubStyle =
  | { kind: 'path' }
  | { kind: 'expand'; style: ExpandStyle }
  /** Nothing worked at `at`: not probed again before {@link REPROBE_MS} have passed. */
  | { kind: 'none'; at: number };

/** One way of asking for sub-resources in the detail's own answer. */
export interface ExpandStyle {
  param: string;
  /** `include=a,b` (one parameter, comma-joined) or `expand[]=a&expand[]=b` (repeated). */
  joined: boolean;
}

/** Expansion styles, in the order tried: JSON:API, OData, Stripe, the plain ones. */
export const EXPAND_STYLES: readonly ExpandStyle[] = [
  { param: 'include', joined: true },
  { param: '$expand', joined: true },
  { param: 'expand[]', joined: false },
  { param: 'expand', joined: true },
  { param: 'embed', joined: true },
];

/** How long a sub-resource nothing could read is left unread before it is probed again. */
export const REPROBE_MS = 60 * 60_000;

/** What a {@link SubResourceReader} needs of the client. */
export interface SubResourceDeps {
  requester: Requester;
  clock: Clock;
  shape: ShapeOptions;
  /** The API's origin: the only one a link is followed to. */
  origin: string;
  report(org: string, issues: DriftIssue[]): void;
}

/** The sub-resources of one detail and where it was read. */
export interface DetailRead {
  org: string;
  sessionId: string;
  url: URL;
  detail: SessionDetail;
  links: ReadonlyMap<SubResource, string>;
  ctx: RequestContext;
}

/** Reads what a session detail does not hold, and learns per org which way works. */
export class SubResourceReader {
  private readonly learned = new Map<string, Map<SubResource, SubStyle>>();
  private readonly probing = new Map<string, Promise<undefined>>();

  /** Probe waits move with elapsed time, not with steps of the wall clock. */
  private readonly steady: () => number;

  constructor(private readonly deps: SubResourceDeps) {
    this.steady = steadyNow(deps.clock);
  }

  /** The way learned for `org`'s `name`, if any (for tests and `--explain`). */
  styleOf(org: string, name: SubResource): SubStyle | undefined {
    return this.learned.get(org)?.get(name);
  }

  /** `r.detail` with every sub-resource it lacks that can be read elsewhere read there. */
  async fill(r: DetailRead): Promise<SessionDetail> {
    // A probe of the org under way first: what it learns serves this read too.
    for (let running = this.probing.get(r.org); running !== undefined; running = this.probing.get(r.org))
      await running;
    if (!(r.detail.unread ?? []).some((name) => this.due(r, name))) return this.fillOnce(r);
    // One probe per org at a time; reads that need none go side by side.
    const done = this.fillOnce(r);
    const settled = done.then(
      () => undefined,
      () => undefined,
    );
    this.probing.set(r.org, settled);
    try {
      return await done;
    } finally {
      if (this.probing.get(r.org) === settled) this.probing.delete(r.org);
    }
  }

  private async fillOnce(r: DetailRead): Promise<SessionDetail> {
    let detail = r.detail;
    const missing = () => detail.unread ?? [];
    const refused: DriftIssue[] = [];
    for (const name of missing()) {
      const link = r.links.get(name);
      if (link === undefined) continue;
      const url = this.sameOrigin(link, r.url);
      if (url === undefined) {
        refused.push(
          issue(name, `its link leads to another origin; not followed (the token stays with the API)`),
        );
        continue;
      }
      detail = this.take(detail, name, await this.readOwn(r, name, url), 'behind its link in the detail');
    }
    detail = await this.byLearned(r, detail);
    const probed = new Set((detail.unread ?? []).filter((n) => this.due(r, n)));
    detail = await this.probe(r, detail);
    const now = this.steady();
    const memory = this.memoryOf(r.org);
    const unread: DriftIssue[] = [];
    for (const name of missing()) {
      if (refused.some((i) => i.field === `detail.${name}`)) continue;
      if (r.links.has(name)) {
        unread.push(issue(name, 'its link in the detail could not be read; unknown (not counted as 0)'));
        continue;
      }
      // Nothing worked: not probed again for an hour, unless a request failed for a
      // reason that says nothing of the way (then the next read probes again).
      if (probed.has(name) && !transient.has(r)) memory.set(name, { kind: 'none', at: now });
      unread.push(
        issue(
          name,
          'not in the detail, behind a link, on request or on its own path; unknown (not counted as 0)',
        ),
      );
    }
    this.deps.report(r.org, [...refused, ...unread]);
    return detail;
  }

  /** Reads the sub-resources whose way is known; a way that fails is forgotten. */
  private async byLearned(r: DetailRead, start: SessionDetail): Promise<SessionDetail> {
    let detail = start;
    const memory = this.memoryOf(r.org);
    const expand = new Map<string, SubResource[]>();
    for (const name of detail.unread ?? []) {
      const style = memory.get(name);
      if (style?.kind === 'path') {
        const got = await this.readOwn(r, name, pathUrl(r.url, name));
        if (got === undefined && !transient.has(r)) memory.delete(name);
        detail = this.take(detail, name, got, 'on its own path');
      } else if (style?.kind === 'expand') {
        const key = `${style.style.param} ${style.style.joined}`;
        expand.set(key, [...(expand.get(key) ?? []), name]);
      }
    }
    for (const names of expand.values()) {
      const style = (memory.get(names[0]!) as { kind: 'expand'; style: ExpandStyle }).style;
      const got = await this.readExpanded(r, names, style);
      for (const name of names) {
        if (got !== undefined && got.unread?.includes(name) !== true)
          detail = this.take(detail, name, got, `expanded by ${style.param}`);
        else if (got !== undefined || !transient.has(r)) memory.delete(name);
      }
    }
    return detail;
  }

  /** Probes the sub-resources with no way known: their own paths, then the expansion styles. */
  private async probe(r: DetailRead, start: SessionDetail): Promise<SessionDetail> {
    let detail = start;
    const memory = this.memoryOf(r.org);
    const due = (name: SubResource) => this.due(r, name);
    for (const name of (detail.unread ?? []).filter(due)) {
      const got = await this.readOwn(r, name, pathUrl(r.url, name));
      if (got === undefined) continue;
      memory.set(name, { kind: 'path' });
      detail = this.take(detail, name, got, 'on its own path');
    }
    for (const style of EXPAND_STYLES) {
      const names = (detail.unread ?? []).filter(due);
      if (names.length === 0) break;
      const got = await this.readExpanded(r, names, style);
      if (got === undefined) continue;
      for (const name of names) {
        if (got.unread?.includes(name)) continue;
        memory.set(name, { kind: 'expand', style });
        detail = this.take(detail, name, got, `expanded by ${style.param}`);
      }
    }
    return detail;
  }

  /** One sub-resource from its own address; undefined when it cannot be read there. */
  private async readOwn(r: DetailRead, name: SubResource, url: URL): Promise<SessionDetail | undefined> {
    const body = await this.get(r, url);
    if (body === undefined) return undefined;
    const n = normalizeSessionDetail(asDetail(name, body), r.sessionId, this.deps.shape);
    if (n.value.unread?.includes(name)) return undefined;
    this.deps.report(
      r.org,
      n.drift.filter((i) => concerns(i, [name])),
    );
    return n.value;
  }

  /** The detail asked for again with `names` expanded; undefined when that request fails. */
  private async readExpanded(
    r: DetailRead,
    names: readonly SubResource[],
    style: ExpandStyle,
  ): Promise<SessionDetail | undefined> {
    const url = new URL(r.url);
    if (style.joined) url.searchParams.set(style.param, names.join(','));
    else for (const name of names) url.searchParams.append(style.param, name);
    const body = await this.get(r, url);
    let record: Record<string, unknown>;
    try {
      // The detail's own envelope rules, JSON:API's `included` resolved.
      record = readObject('session', body, this.deps.shape);
    } catch {
      return undefined;
    }
    const n = normalizeSessionDetail(record, r.sessionId, this.deps.shape);
    const got = names.filter((name) => !n.value.unread?.includes(name));
    this.deps.report(
      r.org,
      n.drift.filter((i) => concerns(i, got)),
    );
    return n.value;
  }

  /**
   * A GET through the budget; undefined for any failure. A failure that says nothing of
   * the way (a timeout, a 5xx, a 429, a network error) marks `r` as `transient`, so that
   * nothing is learned or forgotten from it.
   */
  private async get(r: DetailRead, url: URL): Promise<unknown> {
    try {
      return (await this.deps.requester.getJson(url, r.ctx)).body;
    } catch (err) {
      if (r.ctx.signal?.aborted) throw r.ctx.signal.reason;
      if (!(err instanceof UpstreamError) || !DEFINITE.has(err.reason)) transient.add(r);
      return undefined;
    }
  }

  /** `link` resolved against the detail's URL when it stays on the API's origin. */
  private sameOrigin(link: string, base: URL): URL | undefined {
    try {
      const url = new URL(link, base);
      return url.origin === this.deps.origin ? url : undefined;
    } catch {
      return undefined;
    }
  }

  /** `detail` with `name` from `from`, and `--explain` told where it was read. */
  private take(
    detail: SessionDetail,
    name: SubResource,
    from: SessionDetail | undefined,
    way: string,
  ): SessionDetail {
    const out = merge(detail, name, from);
    // Refines the source the normalizer just reported (`questions`); the AI's fields are
    // its own keys, so it is named.
    if (out !== detail)
      this.deps.shape.trace?.field('session', `detail.${name}`, name === 'ai' ? 'ai' : '', way);
    return out;
  }

  /** Whether `name` is to be probed: no link to it, and no way known (or none for an hour). */
  private due(r: DetailRead, name: SubResource): boolean {
    if (r.links.has(name)) return false;
    const style = this.memoryOf(r.org).get(name);
    return style === undefined || (style.kind === 'none' && this.steady() - style.at >= REPROBE_MS);
  }

  private memoryOf(org: string): Map<SubResource, SubStyle> {
    const known = this.learned.get(org);
    if (known !== undefined) return known;
    const memory = new Map<SubResource, SubStyle>();
    this.learned.set(org, memory);
    return memory;
  }
}

/** Failures that say a way does not work here (not found, refused), rather than not now. */
const DEFINITE: ReadonlySet<UpstreamReason> = new Set(['not_found', 'http_4xx', 'cross_origin', 'redirect']);

/** Reads during which a request failed for a reason that says nothing of the way. */
const transient = new WeakSet<DetailRead>();

/** `…/sessions/{id}` → `…/sessions/{id}/{name}`, without the detail's query. */
function pathUrl(detail: URL, name: SubResource): URL {
  const url = new URL(detail);
  url.search = '';
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${name}`;
  return url;
}

/**
 * A sub-resource's own body as a detail holding it: `{ questions: [...] }` and HAL's
 * `_embedded` stay as they are; a bare list, an envelope (`{ data, meta }`, `{ items,
 * total }`, OData's `{ value }`) or the AI's `{ status, enabled }` go under its name.
 */
function asDetail(name: SubResource, body: unknown): Record<string, unknown> {
  if (isRecord(body)) {
    const flat = flattenResource(body);
    if (Object.hasOwn(flat, name)) return flat;
  }
  return { [name]: body };
}

/** `detail` with sub-resource `name` taken from `from` (when read there). */
function merge(detail: SessionDetail, name: SubResource, from: SessionDetail | undefined): SessionDetail {
  if (from === undefined || from.unread?.includes(name)) return detail;
  const unread = (detail.unread ?? []).filter((n) => n !== name);
  const out: SessionDetail = { ...detail, [name]: from[name] };
  if (unread.length > 0) out.unread = unread;
  else delete out.unread;
  return out;
}

/** Field prefixes of each sub-resource's items (field-aliases.ts). */
const ITEM_PREFIX: Readonly<Record<SubResource, string>> = {
  questions: 'question.',
  announcements: 'announcement.',
  reactions: 'reaction.',
  speakers: 'speaker.',
  ai: 'detail.ai',
};

/** Whether drift `i` of a sub-resource read concerns one of `names` (not the session around them). */
function concerns(i: DriftIssue, names: readonly SubResource[]): boolean {
  return names.some((name) => i.field.startsWith(`detail.${name}`) || i.field.startsWith(ITEM_PREFIX[name]));
}

function issue(name: SubResource, problem: string): DriftIssue {
  return { endpoint: 'session', field: `detail.${name}`, problem, fatal: false };
}
