/**
 * tally's metrics, on a registry the caller owns. Snapshot-derived families are computed
 * at scrape time from the status source; counters and histograms of things that happen
 * (changes, polls, upstream requests, state writes, reloads) are fed by the app through
 * the methods here and the upstream observer.
 */
import type { Readable } from 'node:stream';
import { createGunzip, gunzipSync } from 'node:zlib';
import { Counter, collectDefaultMetrics, Gauge, Histogram, type Registry } from 'prom-client';
import { DETAIL_GAUGES } from '../snapshot/detail-groups.js';
import { EVENT_KINDS, type ChangeEvent } from '../snapshot/events.js';
import type { OrgSnapshot } from '../snapshot/model.js';
import type { OrgView, StatusSource } from '../poll/status.js';
import { EMBEDDED_HOST } from '../core/host.js';
import { VERSION } from '../core/version.js';
import { RETRYABLE_UPSTREAM_REASONS, UPSTREAM_REASONS } from '../upstream/errors.js';
import { ENDPOINTS } from '../upstream/shape/endpoints.js';
import { STORE_ERROR_REASONS } from '../store/errors.js';
import { STATE_WRITE_PATHS } from '../store/health.js';
import { resolveCaps, type SeriesCaps } from './cardinality.js';
import { seconds } from './collected.js';
import { registerDomainMetrics } from './domain-collector.js';
import { renderGzip } from './exposition.js';
import { type ExpositionFormat, negotiate } from './negotiate.js';
import { freshness, type ResourceFreshness } from './freshness.js';
import { registerSelfMetrics } from './self-metrics.js';
import {
  RESOURCES,
  type Resource,
  type SnapshotSummary,
  SummaryMemo,
  summarize,
} from './snapshot-summary.js';
import { UpstreamMetrics, type UpstreamObserver } from './upstream-metrics.js';

/** Options of {@link TallyMetrics}. */
export interface TallyMetricsOptions {
  /** The registry to register on (never prom-client's global one). */
  registry: Registry;
  source: StatusSource;
  /** Caps on per-channel and per-session series (defaults in DEFAULT_SERIES_CAPS). */
  caps?: Partial<SeriesCaps> | undefined;
  /** Also register prom-client's process and Node.js metrics (default true). */
  defaultMetrics?: boolean;
  /** Version labels of `tally_build_info` (default: this build; the Node.js version comes from src/main.ts). */
  build?: { version: string; node: string };
  /**
   * How long a rendered page may be served again while no org has a new snapshot (ms,
   * default {@link PAGE_MAX_AGE_MS}; 0 renders every scrape). Counters and process metrics
   * on a page served again are at most this old.
   */
  pageMaxAgeMs?: number;
  /** The clock pages are aged by (ms; default `Date.now`). */
  now?: () => number;
}

/** Default of {@link TallyMetricsOptions.pageMaxAgeMs}: scrapers of an HA pair, or a scrape and a curl, share a render. */
export const PAGE_MAX_AGE_MS = 1000;

/**
 * A rendered page, kept gzipped (exposition.ts, `GzipLines`): Prometheus always asks
 * for gzip, and a page of 5000 channels is 2.4 MB as text against some 190 KB gzipped.
 * The text is inflated as it is sent to a scraper that does not accept gzip.
 */
export interface MetricsPage {
  format: ExpositionFormat;
  contentType: string;
  /** The page gzipped, as it is sent to a scraper that accepts gzip. */
  gzip: Buffer;
  /** How many bytes the page is as UTF-8 text. */
  size: number;
  /** The page as UTF-8 text, inflated in libuv's thread pool as it is read. */
  stream(): Readable;
  /** The page as text, inflated at once (tests, tools). */
  text(): string;
}

/** A page and what it was rendered from. */
interface CachedPage {
  page: MetricsPage;
  at: number;
  snapshots: readonly OrgSnapshot[];
}

/** Families the cardinality guard may cut, for zero-initialized drop counters. */
const CAPPED_FAMILIES = [
  'tally_channel_status',
  'tally_channel_sessions',
  'tally_live_session_info',
  ...DETAIL_GAUGES.map((g) => g.name),
];

/** Poll duration buckets (seconds): one page takes ms, a long paged list many seconds. */
const POLL_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** All of tally's metrics. */
export class TallyMetrics {
  /** Feeds the upstream request metrics; hand it to the upstream client. */
  readonly upstream: UpstreamObserver;
  private readonly registry: Registry;
  private readonly source: StatusSource;
  private readonly summaries = new WeakMap<OrgSnapshot, SnapshotSummary>();
  private readonly memo = new SummaryMemo();
  private readonly changes: Counter<'org' | 'kind'>;
  private readonly polls: Histogram<'org' | 'resource'>;
  private readonly stateWrites: Counter<'path' | 'reason'>;
  private readonly clockSteps: Counter<'direction'>;
  private readonly reloadOk: Gauge;
  private readonly reloadAt: Gauge;
  private readonly dropped: Counter<'family'>;
  private reloaded = false;
  /** The (org, resource) series of tally_poll_duration_seconds that exist already. */
  private readonly pollSeries = new Set<string>();
  /** The kinds of `tally_changes_total` each org has a series of (removed with the org). */
  private readonly changeSeries = new Map<string, Set<string>>();
  private readonly pageMaxAgeMs: number;
  private readonly now: () => number;
  private readonly pages = new Map<ExpositionFormat, CachedPage>();
  private readonly rendering = new Map<ExpositionFormat, Promise<MetricsPage>>();
  /** Counts config reloads: a page whose render began before the last one is not cached. */
  private generation = 0;

  constructor(opts: TallyMetricsOptions) {
    const { registry, source } = opts;
    this.registry = registry;
    this.source = source;
    const caps = resolveCaps(opts.caps);
    this.pageMaxAgeMs = opts.pageMaxAgeMs ?? PAGE_MAX_AGE_MS;
    if (!(this.pageMaxAgeMs >= 0)) throw new RangeError('pageMaxAgeMs must be a number ≥ 0');
    this.now = opts.now ?? Date.now;
    const registers = [registry];

    registerDomainMetrics({
      registry,
      source,
      caps,
      orgs: () => this.orgs().map((view) => ({ view, summary: this.summary(view.snapshot) })),
      dropped: (family, n) => this.dropped.inc({ family }, n),
    });
    registerSelfMetrics({
      registry,
      source,
      build: opts.build ?? { version: VERSION, node: EMBEDDED_HOST.nodeVersion },
      orgs: () =>
        this.orgs().map((view) => {
          const summary = this.summary(view.snapshot);
          let fresh: Record<Resource, ResourceFreshness> | undefined;
          return { view, summary, fresh: () => (fresh ??= freshness(view, summary)) };
        }),
    });

    this.changes = new Counter({
      name: 'tally_changes_total',
      help: 'Change events detected, by org and kind (upstream.* kinds included).',
      labelNames: ['org', 'kind'],
      registers,
      collect: () => this.syncChangeSeries(),
    });
    this.polls = new Histogram({
      name: 'tally_poll_duration_seconds',
      help: 'Time one poll of a resource took, paging and retries included.',
      labelNames: ['org', 'resource'],
      buckets: POLL_BUCKETS,
      registers,
      collect: () => this.syncPollSeries(),
    });
    this.stateWrites = new Counter({
      name: 'tally_state_write_failures_total',
      help: 'Writes to the state directory that failed, by write path and reason.',
      labelNames: ['path', 'reason'],
      registers,
    });
    for (const path of STATE_WRITE_PATHS)
      for (const reason of STORE_ERROR_REASONS) this.stateWrites.inc({ path, reason }, 0);
    this.clockSteps = new Counter({
      name: 'tally_clock_steps_total',
      help: 'Steps of a minute or more of the wall clock against elapsed time, by direction.',
      labelNames: ['direction'],
      registers,
    });
    for (const direction of ['forward', 'back']) this.clockSteps.inc({ direction }, 0);
    this.reloadOk = new Gauge({
      name: 'tally_config_last_reload_successful',
      help: 'Whether the last configuration (re)load succeeded (1) or not (0).',
      registers,
    });
    this.reloadAt = new Gauge({
      name: 'tally_config_last_reload_success_timestamp_seconds',
      help: 'When the configuration was last loaded successfully (Unix seconds).',
      registers,
      collect: () => {
        // The config was loaded before the process could start: that is the first successful
        // load. Read at scrape time, so the source may be wired up after these metrics.
        if (!this.reloaded) this.reloadAt.set(seconds(source.startedAt));
      },
    });
    this.reloadOk.set(1);

    this.upstream = new UpstreamMetrics(registry, {
      endpoints: ENDPOINTS,
      reasons: UPSTREAM_REASONS,
      retryReasons: RETRYABLE_UPSTREAM_REASONS,
      orgs: () => [...source.orgs()].map((view) => view.slug),
    });
    if (opts.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });

    // Registered last: the capped families count their drops while they are collected, and
    // the registry renders in registration order, so this scrape's drops are in this scrape.
    this.dropped = new Counter({
      name: 'tally_series_dropped_total',
      help: 'Series a per-channel or per-session family left out because it reached its cap, summed over scrapes.',
      labelNames: ['family'],
      registers,
    });
    for (const family of CAPPED_FAMILIES) this.dropped.inc({ family }, 0);
  }

  /** The slugs of the orgs configured now. */
  private orgSlugs(): Set<string> {
    return new Set([...this.source.orgs()].map((view) => view.slug));
  }

  /**
   * Every known org and kind starts at 0, so increase() sees the first change too. An org
   * that left the config leaves with its series.
   */
  private syncChangeSeries(): void {
    const orgs = this.orgSlugs();
    for (const [org, kinds] of this.changeSeries) {
      if (orgs.has(org)) continue;
      this.changeSeries.delete(org);
      for (const kind of kinds) this.changes.remove({ org, kind });
    }
    for (const org of orgs) for (const kind of EVENT_KINDS) this.countChange(org, kind, 0);
  }

  /**
   * Every org's resources start empty, so the panel has series before the first poll ends;
   * zero() would wipe observed buckets, hence the set of those already there. An org that
   * left the config leaves with its series.
   */
  private syncPollSeries(): void {
    const orgs = this.orgSlugs();
    for (const key of this.pollSeries) {
      const [org, resource] = key.split('\u0000') as [string, string];
      if (orgs.has(org)) continue;
      this.pollSeries.delete(key);
      this.polls.remove({ org, resource });
    }
    for (const org of orgs)
      for (const resource of RESOURCES) {
        const key = `${org}\u0000${resource}`;
        if (this.pollSeries.has(key)) continue;
        this.pollSeries.add(key);
        this.polls.zero({ org, resource });
      }
  }

  /** Counts change events by org and kind. */
  recordEvents(events: readonly ChangeEvent[]): void {
    for (const e of events) this.countChange(e.org, e.kind, 1);
  }

  /** Observes how long one poll of a resource took. */
  recordPoll(org: string, resource: Resource, durationMs: number): void {
    this.pollSeries.add(`${org}\u0000${resource}`);
    this.polls.observe({ org, resource }, durationMs / 1000);
  }

  /** Counts a failed write to the state directory, by write path (snapshots, outbox …) and reason. */
  recordStateWriteFailure(path: string, reason: string): void {
    this.stateWrites.inc({ path, reason });
  }

  /** Counts a step of the wall clock (src/app/clock-steps.ts). */
  recordClockStep(direction: 'forward' | 'back'): void {
    this.clockSteps.inc({ direction });
  }

  /** Records the outcome of a configuration reload at `at` (ms). */
  recordConfigReload(ok: boolean, at: number): void {
    // A reload is news a scraper must see at once, not after the cached page expires, nor
    // in a page whose render began before it: later scrapes render afresh, and such a
    // render, when it ends, serves the scrapes that awaited it but is not cached.
    this.pages.clear();
    this.rendering.clear();
    this.generation += 1;
    this.reloadOk.set(ok ? 1 : 0);
    if (!ok) return;
    this.reloaded = true;
    this.reloadAt.set(seconds(at));
  }

  private countChange(org: string, kind: string, n: number): void {
    let kinds = this.changeSeries.get(org);
    if (kinds === undefined) {
      kinds = new Set();
      this.changeSeries.set(org, kinds);
    }
    kinds.add(kind);
    this.changes.inc({ org, kind }, n);
  }

  /**
   * The page for a scrape, in the format the `Accept` header asks for. A page rendered
   * less than `pageMaxAgeMs` ago from the same snapshots is served again; scrapes that
   * arrive while one renders share its render.
   */
  async render(accept: string | undefined): Promise<MetricsPage> {
    const format = negotiate(accept);
    const views = this.orgs();
    const snapshots = views.map((v) => v.snapshot);
    this.memo.retain(new Set(views.map((v) => v.slug)));
    const cached = this.pages.get(format);
    if (cached && this.now() - cached.at < this.pageMaxAgeMs && sameItems(cached.snapshots, snapshots)) {
      return cached.page;
    }
    let pending = this.rendering.get(format);
    if (!pending) {
      // The cached page is stale: nothing needs it any more.
      this.pages.delete(format);
      const started: Promise<MetricsPage> = this.renderPage(format, snapshots).finally(() => {
        if (this.rendering.get(format) === started) this.rendering.delete(format);
      });
      pending = started;
      this.rendering.set(format, pending);
    }
    return pending;
  }

  private async renderPage(
    format: ExpositionFormat,
    snapshots: readonly OrgSnapshot[],
  ): Promise<MetricsPage> {
    const at = this.now();
    const generation = this.generation;
    const { contentType, gzip, size } = await renderGzip(this.registry, format);
    const page: MetricsPage = {
      format,
      contentType,
      gzip,
      size,
      stream: () => {
        // 64-KiB chunks: 16-KiB ones (zlib's default) cost a trip to libuv's pool each, and
        // a 2.4-MB page took 9 ms to stream instead of 2 (Node 20, in process).
        const inflate = createGunzip({ chunkSize: 64 * 1024 });
        inflate.end(gzip);
        return inflate;
      },
      text: () => gunzipSync(gzip).toString('utf8'),
    };
    if (this.pageMaxAgeMs > 0 && generation === this.generation) {
      this.pages.set(format, { page, at, snapshots });
    }
    return page;
  }

  /** The summary of a snapshot, computed once per snapshot object. */
  summary(snapshot: OrgSnapshot): SnapshotSummary {
    let s = this.summaries.get(snapshot);
    if (!s) {
      s = summarize(snapshot, this.memo);
      this.summaries.set(snapshot, s);
    }
    return s;
  }

  private orgs(): OrgView[] {
    return [...this.source.orgs()].sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
  }
}

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
