/**
 * The upstream client: every read of the Organization Data Read API, each returning a
 * {@link Part} that says how it went. One per process (one budget for the process's IP).
 * The fetch methods never throw for upstream problems; they reject only when aborted.
 */
import { statusClass } from '../snapshot/vocabulary.js';
import { type Clock, steadyNow } from '../core/clock.js';
import type { Config } from '../config/schema.js';
import type { Logger } from '../core/log.js';
import type {
  Channel,
  Member,
  Org,
  OrgSnapshot,
  Part,
  Session,
  SessionDetail,
  SessionsPart,
  SubResource,
  Subscription,
  TimeWindow,
} from '../snapshot/model.js';
import { VERSION } from '../core/version.js';
import { type BudgetOptions, RequestBudget } from './transport/budget.js';
import { DriftReporter } from './drift-reporter.js';
import { blindSpots } from './shape/blindness.js';
import { CHANNEL_MEANING_FIELD, ChannelMeaning } from './shape/channel-meaning.js';
import { UpstreamError } from './errors.js';
import { describePath, type HttpTimeouts, HttpTransport, type Validators } from './transport/http.js';
import { guardObserver, noopObserver, type UpstreamObserver } from './observer.js';
import { withParams } from './lists/page-end.js';
import { type ListRead, readList } from './lists/read-list.js';
import { dedupeById, failedPart, normalizeItems, valuePart } from './parts.js';
import { type ClientDeps, clientOptions } from './client-config.js';
import { type ReadAllOptions, readOrg } from './read-org.js';
import { driftOf, notJsonDrift, ReadOutcomes } from './read-outcomes.js';
import { type RequestContext, Requester } from './transport/requester.js';
import type { RetryPolicy } from './transport/retry.js';
import {
  DEFAULT_FILTERS,
  defaultWindow,
  outsideWindow,
  type SessionFilters,
  sessionQuery,
} from './query/filters.js';
import {
  describeIssue,
  type Endpoint,
  type Normalized,
  normalizeChannel,
  normalizeMember,
  normalizeOrg,
  normalizeSession,
  normalizeSessionDetail,
  normalizeSubscription,
  readObject,
  SchemaDriftError,
  type ShapeOptions,
} from './shape/index.js';
import { type AdaptContext, QueryMemory, windowSlackMs } from './query/adapt.js';
import { MoneyHabits } from './shape/numbers.js';
import { flattenResource } from './shape/json.js';
import { subResourceLinks } from './shape/sub-resource-links.js';
import { SubResourceReader } from './sub-resource-reader.js';
import { type Fetcher, type FetchOptions, type OrgAuth, priorityOf, type SessionsOptions } from './types.js';

export type { Priority } from './transport/budget.js';
export { shapeFromConfig } from './client-config.js';

export type { FetchOptions, OrgAuth, SessionsOptions } from './types.js';

/** Everything an {@link UpstreamClient} is built from. */
export interface UpstreamClientOptions {
  baseUrl: string;
  budgetPerMinute: number;
  /** Requests that may go out back to back before the even pace applies (default: no pacing). */
  burst?: number | undefined;
  concurrency: number;
  timeouts: HttpTimeouts;
  maxBodyBytes: number;
  maxPages: number;
  retries: RetryPolicy;
  shape: ShapeOptions;
  filters: SessionFilters;
  /** Session lists cover [now - pastMs, now + futureMs] unless a read says otherwise. */
  window: { pastMs: number; futureMs: number };
  userAgent?: string | undefined;
  clock: Clock;
  logger: Logger;
  observer?: UpstreamObserver | undefined;
  /** Source of retry jitter (default Math.random). */
  rng?: (() => number) | undefined;
  /** Budget tuning beyond the per-minute figure (accounting guard, reserve, pauses). */
  budgetTuning?: Partial<Omit<BudgetOptions, 'perMinute' | 'clock' | 'maxInFlight'>> | undefined;
  /** Same-origin redirects followed per request (default 3). */
  maxRedirects?: number | undefined;
  /** What queries each org's endpoints take, learned and persisted (adapt.ts); default: learned in memory. */
  memory?: QueryMemory | undefined;
  /** The page size is set in the config, so adaptation never changes it. */
  fixedPerPage?: boolean | undefined;
}

/** Reads organizations from the API, safely and within one budget. */
/** An org's empty windowed lists are checked against one without the window {@link WINDOW_PROBES} times per this, at most. */
const WINDOW_PROBE_EVERY_MS = 60 * 60_000;
const WINDOW_PROBES = 3;

export class UpstreamClient implements Fetcher {
  /** The process-wide request budget (for metrics and the planner). */
  readonly budget: RequestBudget;
  private readonly transport: HttpTransport;
  private readonly requester: Requester;
  private readonly drift: DriftReporter;
  private readonly channelWords = new ChannelMeaning();
  private readonly outcomes: ReadOutcomes;
  private readonly log: Logger;
  private readonly clock: Clock;
  /** What queries learned and the waits after refusals run on: elapsed time, not wall-clock steps. */
  private readonly steady: () => number;
  private readonly basePath: string;

  constructor(private readonly opts: UpstreamClientOptions) {
    this.clock = opts.clock;
    this.steady = steadyNow(opts.clock);
    this.log = opts.logger.child({ component: 'upstream' });
    const observer = guardObserver(opts.observer ?? noopObserver, (method, err) =>
      this.log.error({ method, err }, 'upstream observer failed'),
    );
    this.budget = new RequestBudget({
      ...opts.budgetTuning,
      perMinute: opts.budgetPerMinute,
      clock: opts.clock,
      maxInFlight: opts.concurrency,
      ...(opts.burst === undefined ? {} : { burst: opts.burst }),
    });
    this.transport = new HttpTransport({
      baseUrl: opts.baseUrl,
      concurrency: opts.concurrency,
      timeouts: opts.timeouts,
      maxBodyBytes: opts.maxBodyBytes,
      userAgent: opts.userAgent ?? `tally/${VERSION}`,
    });
    this.memory = opts.memory ?? new QueryMemory();
    this.requester = new Requester({
      transport: this.transport,
      budget: this.budget,
      policy: opts.retries,
      clock: opts.clock,
      rng: opts.rng ?? Math.random,
      observer,
      logger: this.log,
      ...(opts.maxRedirects === undefined ? {} : { maxRedirects: opts.maxRedirects }),
    });
    this.drift = new DriftReporter(this.log, observer);
    this.outcomes = new ReadOutcomes(this.log, this.drift);
    this.basePath = new URL(opts.baseUrl).pathname.replace(/\/+$/, '');
    this.subResources = new SubResourceReader({
      requester: this.requester,
      clock: opts.clock,
      shape: opts.shape,
      origin: this.transport.origin,
      report: (org, issues) => this.drift.report(org, issues),
    });
  }

  /** Builds the client from the `upstream` config section. */
  static fromConfig(config: Config, deps: ClientDeps): UpstreamClient {
    return new UpstreamClient(clientOptions(config, deps));
  }

  /** What the client learned about the queries each org's endpoints take. */
  readonly memory: QueryMemory;

  /** Reads the org's profile, settings and plan. */
  fetchOrg(org: OrgAuth, o: FetchOptions = {}): Promise<Part<Org>> {
    return this.objectPart(org, 'org', [], o, (raw) => normalizeOrg(raw, org.slug, this.opts.shape));
  }

  /** Reads the org's members. */
  fetchTeam(org: OrgAuth, o: FetchOptions = {}): Promise<Part<Member[]>> {
    return this.listPart(org, 'team', ['team'], {}, o, (raw) => normalizeMember(raw, this.opts.shape));
  }

  /** Reads plan, limits, usage and AI funding. */
  fetchSubscription(org: OrgAuth, o: FetchOptions = {}): Promise<Part<Subscription>> {
    return this.objectPart(org, 'subscription', ['subscription'], o, (raw) =>
      normalizeSubscription(raw, { ...this.opts.shape, money: this.moneyHabits.of(org.slug) }),
    );
  }

  /** Reads every channel (unfiltered: the org's channel filter is the caller's business). */
  async fetchChannels(org: OrgAuth, o: FetchOptions = {}): Promise<Part<Channel[]>> {
    const part = await this.listPart(org, 'channels', ['channels'], {}, o, (raw) =>
      normalizeChannel(raw, this.opts.shape),
    );
    if (part.state !== 'failed') this.channelWords.channels(org.slug, part.value);
    return part;
  }

  /** Reads a channel's sessions in a time window (default: the configured window around now). */
  async fetchSessions(
    org: OrgAuth,
    channelId: string,
    o: SessionsOptions = {},
  ): Promise<SessionsPart<Session[]>> {
    const window = o.window ?? defaultWindow(this.clock.now(), this.opts.window);
    // Whether this read goes out without the window because the server misread it: known
    // before it is sent, so a drop learned meanwhile (by another read) does not mark it.
    const f = this.opts.filters;
    const sent = this.memory.get(org.slug, 'sessions');
    const unwindowed =
      sent?.windowMisread === true &&
      sent.drop?.includes(f.from_param) === true &&
      sent.drop.includes(f.to_param);
    const part = await this.sessionList(org, channelId, sessionQuery(f, window, o.statuses), o);
    if (part.state === 'failed') return { ...part, window };
    // A channel's live word its sessions give to sessions planned later (channel-meaning.ts).
    const meaning = this.channelWords.sessions(org.slug, channelId, part.value, this.clock.now());
    if (meaning === 'seen') this.drift.sight(org.slug, 'channels', 'channels', [CHANNEL_MEANING_FIELD]);
    else if (meaning !== undefined) this.drift.report(org.slug, [meaning]);
    // Whatever the server did with the filters (ignored them, or tally left them out after
    // a 400), what lies outside the window or the statuses asked for is not part of this
    // read: it never surfaces as an addition now or a removal later.
    const inWindow = part.value.filter((s: Session) => !outsideWindow(s, window));
    let value = inWindow;
    if (o.statuses !== undefined && o.statuses.length > 0) {
      // By class: asking for `live` keeps a session the server calls `on_air`.
      const wanted = new Set(o.statuses.map((s) => statusClass(s)));
      value = value.filter((s: Session) => wanted.has(statusClass(s.status)));
    }
    const ignored: string[] = [];
    // A server that took the window in a coarser format (a date) may read it wider by a step:
    // only what lies beyond that says it ignores the window.
    const slack = windowSlackMs(this.memory.get(org.slug, 'sessions'));
    const wider = slack === 0 ? window : { from: window.from - slack, to: window.to + slack };
    if (part.value.some((s: Session) => outsideWindow(s, wider))) ignored.push('window');
    if (value.length < inWindow.length && this.opts.filters.send_status) ignored.push('status');
    if (ignored.length > 0) this.memory.noteIgnored(org.slug, 'sessions', ignored);
    if (
      part.state === 'complete' &&
      part.value.length === 0 &&
      (await this.misreadsWindow(org, channelId, window, o))
    )
      return this.fetchSessions(org, channelId, o);
    // Read without a window the server misread: marked, so that the diff does not take
    // what the server got wrong before for sessions added (SessionsPart.unwindowed). A
    // window dropped after a refusal was read right while sent: nothing to mark.
    if (unwindowed) return { ...part, value, window, unwindowed: true };
    return { ...part, value, window };
  }

  /**
   * Whether the server misreads the window filter: it answered a channel's windowed list
   * with nothing, and the same list without `from`/`to` (one page) holds sessions inside
   * the window. Then the window is no longer sent to this org (tally keeps what lies in it
   * itself) and the drift is reported, rather than the org sitting quiet with no sessions;
   * lists read from then on are `unwindowed`, and the diff reports no session added between
   * a list read with the window and one without. A check that finds nothing in the window proves nothing (the channel may
   * hold old sessions only): at most {@link WINDOW_PROBES} such checks an hour per org, and
   * none once the window is no longer sent.
   */
  private async misreadsWindow(
    org: OrgAuth,
    channelId: string,
    window: TimeWindow,
    o: SessionsOptions,
  ): Promise<boolean> {
    const f = this.opts.filters;
    const learned = this.memory.get(org.slug, 'sessions') ?? {};
    if (learned.drop?.includes(f.from_param) || learned.drop?.includes(f.to_param)) return false;
    const now = this.clock.now();
    const probes = (this.windowProbes.get(org.slug) ?? []).filter(
      (t) => t <= now && now - t < WINDOW_PROBE_EVERY_MS,
    );
    if (probes.length >= WINDOW_PROBES) return false;
    this.windowProbes.set(org.slug, [...probes, now]);
    const query = sessionQuery(f, window, o.statuses);
    delete query[f.from_param];
    delete query[f.to_param];
    const probe = await this.sessionList(org, channelId, query, o, true);
    // Inside: a session whose own start (or planned start) lies in the window. A live one
    // that began before it, or one with no time, says nothing of how the window is read.
    const inside = (s: Session) => {
      const t = s.startedAt ?? s.scheduledAt;
      return t !== undefined && t >= window.from && t <= window.to;
    };
    if (probe.state === 'failed' || !probe.value.some(inside)) return false;
    const now2 = this.memory.get(org.slug, 'sessions') ?? {};
    this.memory.set(org.slug, 'sessions', {
      ...now2,
      drop: [...new Set([...(now2.drop ?? []), f.from_param, f.to_param])],
      windowMisread: true,
    });
    this.drift.report(org.slug, [
      {
        endpoint: 'sessions',
        field: 'window',
        problem: `a list asked for the window (${f.from_param}, ${f.to_param}) came back empty while the same list without them holds sessions inside it: the server misreads the window, which is no longer sent (tally keeps what lies in it itself)`,
        fatal: false,
      },
    ]);
    return true;
  }

  /**
   * One channel's session list as the server answers `query`. A `probe` (the window check)
   * reads one page and keeps no copy for conditional requests: it is not the list.
   */
  private sessionList(
    org: OrgAuth,
    channelId: string,
    query: Record<string, string>,
    o: SessionsOptions,
    probe = false,
  ): Promise<Part<Session[]>> {
    return this.listPart(
      org,
      'sessions',
      ['channels', channelId, 'sessions'],
      query,
      o,
      (raw) => normalizeSession(raw, channelId, this.opts.shape),
      probe ? undefined : `${org.slug}\0${channelId}`,
      probe ? { maxPages: 1 } : {},
    );
  }

  /**
   * Reads one session with its questions, announcements, reactions, speakers and ai; those
   * the detail does not hold are read behind its links, on request or on their own paths
   * (sub-resource-reader.ts), or stay unread: unknown, never 0.
   */
  async fetchSessionDetail(
    org: OrgAuth,
    sessionId: string,
    o: FetchOptions = {},
  ): Promise<Part<SessionDetail>> {
    let links: ReadonlyMap<SubResource, string> = new Map();
    const part = await this.objectPart(org, 'session', ['sessions', sessionId], o, (raw) => {
      links = subResourceLinks(raw, flattenResource(raw));
      return normalizeSessionDetail(raw, sessionId, this.opts.shape);
    });
    if (part.state !== 'complete' || part.value.unread === undefined) return part;
    const url = this.url(org.slug, ['sessions', sessionId]);
    const ctx = this.ctx(org, 'session', o);
    const detail = await this.subResources.fill({
      org: org.slug,
      sessionId,
      url,
      detail: part.value,
      links,
      ctx,
    });
    return { ...part, value: detail };
  }

  /** Reads everything of one org once: profile, team, subscription, channels, sessions, live details. */
  readAll(org: OrgAuth, o: ReadAllOptions = {}): Promise<OrgSnapshot> {
    return readOrg(this, org, { concurrency: this.opts.concurrency, clock: this.clock, ...o });
  }

  /** Closes the connections; reads in flight fail. */
  async close(): Promise<void> {
    await this.transport.close();
  }

  /**
   * A failed part when an id cannot be a path segment: `.` and `..` (and their
   * percent-encoded forms, which URL parsing decodes) step out of the resource, and an
   * empty one merges two segments; read as they are, a channel `..` would ask for
   * `/v1/<org>/sessions`, another resource, and take its answer for the channel's.
   */
  private unaddressable<T>(
    org: OrgAuth,
    endpoint: Endpoint,
    segments: readonly string[],
  ): Part<T> | undefined {
    const bad = segments.find((s) => s === '' || s === '.' || s === '..');
    if (bad === undefined) return undefined;
    const path = ['v1', org.slug, ...segments].join('/');
    const err = new UpstreamError(
      `GET ${this.basePath}/${path}: the id ${JSON.stringify(bad)} cannot be put in a URL path; not read`,
      { reason: 'schema' },
    );
    return this.outcomes.settle(org, endpoint, failedPart<T>(this.clock.now(), err, org.token));
  }

  private url(slug: string, segments: readonly string[]): URL {
    const path = ['v1', slug, ...segments].map(encodeURIComponent).join('/');
    return new URL(`${this.basePath}/${path}`, this.transport.origin);
  }

  private adaptContext(): AdaptContext {
    const sh = this.opts.shape;
    const f = this.opts.filters;
    return {
      perPageParam: sh.perPageParam ?? 'per_page',
      pagingParams: new Set([sh.cursorParam ?? 'cursor', sh.pageParam ?? 'page']),
      timeParams: new Set([f.from_param, f.to_param]),
      endParams: new Set([f.to_param]),
      fixedPerPage: this.opts.fixedPerPage ?? false,
      fixedParams: configuredFilterParams(f),
      filterNames: { from: f.from_param, to: f.to_param, status: f.status_param },
    };
  }

  private ctx(org: OrgAuth, endpoint: Endpoint, o: FetchOptions): RequestContext {
    return {
      org: org.slug,
      token: org.token,
      endpoint,
      priority: priorityOf(o),
      urgency: o.urgency,
      signal: o.signal,
    };
  }

  private async objectPart<T>(
    org: OrgAuth,
    endpoint: Endpoint,
    segments: readonly string[],
    o: FetchOptions,
    normalize: (raw: Record<string, unknown>) => Normalized<T>,
  ): Promise<Part<T>> {
    const refused = this.unaddressable<T>(org, endpoint, segments);
    if (refused) return refused;
    const url = this.url(org.slug, segments);
    const what = `GET ${describePath(url)}`;
    try {
      const res = await this.requester.getJson(url, this.ctx(org, endpoint, o));
      this.opts.shape.trace?.page(endpoint, { url, listPath: '', style: 'object', items: 1, first: true });
      const n = normalize(readObject(endpoint, res.body, this.opts.shape));
      this.drift.report(org.slug, n.drift);
      const fatal = n.drift.find((i) => i.fatal);
      if (fatal) {
        const err = new UpstreamError(`${what}: ${describeIssue(fatal)}`, { reason: 'schema' });
        return this.outcomes.settle(org, endpoint, failedPart<T>(this.clock.now(), err, org.token));
      }
      return this.outcomes.settle(org, endpoint, valuePart(this.clock.now(), n.value));
    } catch (err) {
      if (o.signal?.aborted) throw o.signal.reason;
      return this.outcomes.settle(
        org,
        endpoint,
        failedPart<T>(this.clock.now(), this.outcomes.classify(org, endpoint, err, what), org.token),
      );
    }
  }

  private async listPart<T extends { id: string }>(
    org: OrgAuth,
    endpoint: Endpoint,
    segments: readonly string[],
    query: Record<string, string>,
    o: FetchOptions,
    normalize: (raw: unknown) => Normalized<T | undefined>,
    /** Key of a copy kept with its validators, for conditional requests (one-page lists). */
    conditionalKey?: string,
    limits: { maxPages?: number } = {},
  ): Promise<Part<T[]>> {
    const refused = this.unaddressable<T[]>(org, endpoint, segments);
    if (refused) return refused;
    const url = withParams(this.url(org.slug, segments), query);
    const what = `GET ${describePath(url)}`;
    const held = conditionalKey === undefined ? undefined : this.conditional.get(conditionalKey);
    try {
      const read = await readList(this.requester, {
        ...this.ctx(org, endpoint, o),
        validators: held?.validators,
        heldCount: held?.items.length,
        endpoint,
        url,
        shape: this.opts.shape,
        maxPages: limits.maxPages ?? this.opts.maxPages,
        adapt: { memory: this.memory, ctx: this.adaptContext(), now: this.steady },
        onAdapt: (what) => {
          // Once per org and endpoint at warn; the ladder again later is debug.
          const key = `${org.slug} ${endpoint}`;
          const level = this.adaptWarned.has(key) ? 'debug' : 'warn';
          this.adaptWarned.add(key);
          this.log[level](
            { org: org.slug, endpoint, what },
            'the server refused a query; asking again with a safer one',
          );
        },
      });
      // 304: the copy held is current; nothing to parse or normalize.
      if (read.notModified && held !== undefined) {
        return this.outcomes.settle(org, endpoint, valuePart(this.clock.now(), held.items as T[]));
      }
      const normalized = normalizeItems(endpoint, read.items, normalize);
      // One record per id, whatever the cause of a repeat (a server's own, a page read twice).
      const deduped = dedupeById(endpoint, normalized.items);
      const list = { ...normalized, items: deduped.items };
      if (conditionalKey !== undefined) this.hold(conditionalKey, read, list, deduped.conflicting);
      const envelope = read.error?.cause instanceof SchemaDriftError ? [driftOf(read.error.cause)] : [];
      const notJson = read.error === undefined ? undefined : notJsonDrift(endpoint, read.error);
      if (notJson) envelope.push(notJson);
      // Every query tried was refused: the list cannot be read at all, which is drift, not an
      // empty org. (A read not sent while the refusal waits saw no response: no drift of it.)
      if (read.pages === 0 && !read.notSent && (read.error?.status === 400 || read.error?.status === 422)) {
        const words = (read.error.upstreamWords ?? '').slice(0, 120);
        envelope.push({
          endpoint,
          field: 'query',
          problem: `the server refused every query tally tried (${read.error.status}${words ? `: ${words}` : ''})`,
          fatal: true,
        });
      }
      // A field a decision depends on, unreadable on most records, degrades this list (blindness.ts).
      const spots =
        read.pages > 0 ? blindSpots(endpoint, list.items, this.clock.now()) : { blind: [], seen: [] };
      const blind = spots.blind.map((i) => ({ ...i, list: segments.join('/') }));
      this.drift.report(org.slug, [...list.drift, ...deduped.drift, ...read.drift, ...envelope, ...blind]);
      this.drift.sight(org.slug, endpoint, segments.join('/'), spots.seen);
      if (read.note !== undefined) this.drift.note(org.slug, endpoint, read.note);
      const at = this.clock.now();
      if (read.error && read.pages === 0)
        return this.outcomes.settle(org, endpoint, failedPart<T[]>(at, read.error, org.token));
      if (read.error)
        return this.outcomes.settle(org, endpoint, valuePart(at, list.items, read.error, org.token));
      if (list.unusable.length > 0) {
        const first = list.unusable[0]!;
        const err = new UpstreamError(
          `${what}: ${list.unusable.length} record(s) could not be read (${describeIssue(first)})`,
          { reason: 'schema' },
        );
        return this.outcomes.settle(org, endpoint, valuePart(at, list.items, err, org.token));
      }
      if (deduped.conflicting > 0) {
        // Which of two different records under one id is right cannot be told: no
        // removal or addition may come of this list (docs/architecture.md, invariant 1).
        const err = new UpstreamError(
          `${what}: ${deduped.conflicting} record(s) have the same id as a different record of the list`,
          { reason: 'schema' },
        );
        return this.outcomes.settle(org, endpoint, valuePart(at, list.items, err, org.token));
      }
      return this.outcomes.settle(org, endpoint, valuePart(at, list.items));
    } catch (err) {
      if (o.signal?.aborted) throw o.signal.reason;
      return this.outcomes.settle(
        org,
        endpoint,
        failedPart<T[]>(this.clock.now(), this.outcomes.classify(org, endpoint, err, what), org.token),
      );
    }
  }

  /** Copies of one-page lists with their validators, for conditional requests (bounded). */
  private readonly conditional = new Map<string, { validators: Validators; items: unknown[] }>();

  private hold(
    key: string,
    read: ListRead,
    list: { items: unknown[]; unusable: unknown[] },
    conflicting: number,
  ): void {
    this.conditional.delete(key);
    if (read.validators === undefined || read.error !== undefined || list.unusable.length > 0) return;
    if (conflicting > 0) return;
    this.conditional.set(key, { validators: read.validators, items: list.items });
    if (this.conditional.size > MAX_CONDITIONAL)
      this.conditional.delete(this.conditional.keys().next().value as string);
  }

  /** `org endpoint` whose adaptation was logged at warn already. */
  private readonly adaptWarned = new Set<string>();
  /** When each org's window filter was checked against a list without it, this last hour (see misreadsWindow). */
  private readonly windowProbes = new Map<string, number[]>();
  private readonly subResources: SubResourceReader;
  /** How each org's server writes money in numbers, as seen so far (shape/numbers.ts). */
  private readonly moneyHabits = new MoneyHabits();
}

/**
 * The filter parameters the config sets itself (a name or a time format other than the
 * defaults): a config override always wins over what adapting would learn.
 */
function configuredFilterParams(f: SessionFilters): Set<string> {
  const out = new Set<string>();
  const d = DEFAULT_FILTERS;
  if (f.status_param !== d.status_param) out.add(f.status_param);
  if (f.from_param !== d.from_param || f.time_format !== d.time_format) out.add(f.from_param);
  if (f.to_param !== d.to_param || f.time_format !== d.time_format) out.add(f.to_param);
  return out;
}

/** Lists whose copy is kept for conditional requests: one per channel of the largest orgs. */
const MAX_CONDITIONAL = 20_000;
