/**
 * Metrics of the upstream client, fed by the client as it works through an observer.
 * The shape matches the client's own observer interface structurally; only the drift
 * reason (a label) is taken from the shape layer.
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import { driftReason, readFailingSeries } from '../upstream/shape/drift.js';
import type { Endpoint } from '../upstream/shape/endpoints.js';

/** Status class of an upstream request; `error` when no response came back. */
export type StatusClass = '2xx' | '3xx' | '4xx' | '5xx' | 'error';

/** One finished upstream request. */
export interface UpstreamRequestInfo {
  org: string;
  endpoint: string;
  status?: number | undefined;
  statusClass: StatusClass;
  /** Why it failed (`timeout`, `http_5xx` …), when it did. */
  reason?: string | undefined;
  durationMs: number;
}

/** What the upstream client reports as it works. */
export interface UpstreamObserver {
  onRequest(info: UpstreamRequestInfo): void;
  onRetry(info: { org: string; endpoint: string; reason: string }): void;
  onRateLimited(info: { retryAfterMs: number }): void;
  onPause(info: { untilMs: number }): void;
  onDrift(info: { org: string; endpoint: string; field: string; problem: string; fatal: boolean }): void;
  onAuthFailure(info: { org: string; status: number }): void;
}

/** Request latency buckets (seconds): a fast API answers in tens of ms, a slow page in seconds. */
const LATENCY_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The label values known before the first request, so every series starts at 0. */
export interface UpstreamLabelValues {
  endpoints: readonly string[];
  /** Every reason a request can fail for. */
  reasons: readonly string[];
  /** The reasons a request is tried again for. */
  retryReasons: readonly string[];
  /** The orgs configured now (read at scrape time: a reload may change them). */
  orgs: () => Iterable<string>;
}

const STATUS_CLASSES: readonly StatusClass[] = ['2xx', '3xx', '4xx', '5xx', 'error'];

/** The labels of one tally_schema_drift_total series. */
interface DriftLabels {
  org: string;
  endpoint: string;
  field: string;
  reason: string;
}

/** The upstream request metrics, as an {@link UpstreamObserver}. */
export class UpstreamMetrics implements UpstreamObserver {
  private readonly requests: Counter<'endpoint' | 'status_class'>;
  private readonly errors: Counter<'endpoint' | 'reason'>;
  private readonly latency: Histogram<'endpoint'>;
  private readonly retries: Counter<'endpoint' | 'reason'>;
  private readonly rateLimited: Counter;
  private readonly pauses: Counter;
  private readonly drift: Counter<'org' | 'endpoint' | 'field' | 'reason'>;
  private readonly authFailures: Counter<'org'>;
  /** Orgs with a tally_upstream_auth_failures_total series. */
  private readonly authOrgs = new Set<string>();
  /** The tally_schema_drift_total series of each org, by their labels' text, to remove an org's series with it. */
  private readonly driftSeries = new Map<string, Map<string, DriftLabels>>();

  constructor(registry: Registry, known?: UpstreamLabelValues) {
    const registers = [registry];
    this.requests = new Counter({
      name: 'tally_upstream_requests_total',
      help: 'Upstream API requests by endpoint and status class (error = no response).',
      labelNames: ['endpoint', 'status_class'],
      registers,
    });
    this.errors = new Counter({
      name: 'tally_upstream_request_errors_total',
      help: 'Upstream API requests that failed, by endpoint and reason (timeout, network, http_5xx …).',
      labelNames: ['endpoint', 'reason'],
      registers,
    });
    this.latency = new Histogram({
      name: 'tally_upstream_request_duration_seconds',
      help: 'Time from sending an upstream request to the end of its response body.',
      labelNames: ['endpoint'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.retries = new Counter({
      name: 'tally_upstream_retries_total',
      help: 'Upstream requests tried again, by endpoint and the reason of the failed try.',
      labelNames: ['endpoint', 'reason'],
      registers,
    });
    this.rateLimited = new Counter({
      name: 'tally_upstream_rate_limited_total',
      help: 'Upstream answers with status 429 (Too Many Requests).',
      registers,
    });
    this.pauses = new Counter({
      name: 'tally_budget_pauses_total',
      help: 'Times a 429 paused every upstream request until its Retry-After had passed.',
      registers,
    });
    this.drift = new Counter({
      name: 'tally_schema_drift_total',
      help: 'Upstream responses whose shape differed from what tally reads, by org, endpoint, field and reason.',
      labelNames: ['org', 'endpoint', 'field', 'reason'],
      registers,
      collect: () => {
        if (!known) return;
        const orgs = new Set(known.orgs());
        for (const [org, series] of this.driftSeries)
          if (!orgs.has(org)) {
            // An org that left the config leaves with its series.
            this.driftSeries.delete(org);
            for (const labels of series.values()) this.drift.remove(labels);
          }
        // The drift that fails a read is known up front: its series start at 0.
        for (const org of orgs)
          for (const endpoint of known.endpoints)
            for (const { field, reason } of readFailingSeries(endpoint as Endpoint))
              this.countDrift({ org, endpoint, field, reason }, 0);
      },
    });
    this.authFailures = new Counter({
      name: 'tally_upstream_auth_failures_total',
      help: "Upstream answers refusing an org's token (401/403).",
      labelNames: ['org'],
      registers,
      collect: () => {
        if (!known) return;
        const orgs = new Set(known.orgs());
        for (const org of this.authOrgs)
          if (!orgs.has(org)) {
            // An org that left the config leaves with its series.
            this.authOrgs.delete(org);
            this.authFailures.remove({ org });
          }
        for (const org of orgs) {
          this.authOrgs.add(org);
          this.authFailures.inc({ org }, 0);
        }
      },
    });
    if (known) this.startAtZero(known);
  }

  /**
   * Every series whose labels are known up front starts at 0, so rate(), increase() and
   * the dashboard see them from the first scrape, not from the first failure. (Schema
   * drift starts per org at scrape time, for the drift that fails a read: the `field` of
   * other drift is only known once a response differs.)
   */
  private startAtZero(known: UpstreamLabelValues): void {
    for (const endpoint of known.endpoints) {
      for (const status_class of STATUS_CLASSES) this.requests.inc({ endpoint, status_class }, 0);
      for (const reason of known.reasons) this.errors.inc({ endpoint, reason }, 0);
      for (const reason of known.retryReasons) this.retries.inc({ endpoint, reason }, 0);
      this.latency.zero({ endpoint });
    }
  }

  /** Counts a finished request and observes its latency. */
  onRequest(info: UpstreamRequestInfo): void {
    this.requests.inc({ endpoint: info.endpoint, status_class: info.statusClass });
    this.latency.observe({ endpoint: info.endpoint }, info.durationMs / 1000);
    if (info.reason !== undefined) this.errors.inc({ endpoint: info.endpoint, reason: info.reason });
  }

  /** Counts a retry. */
  onRetry(info: { org: string; endpoint: string; reason: string }): void {
    this.retries.inc({ endpoint: info.endpoint, reason: info.reason });
  }

  /** Counts a 429. */
  onRateLimited(_info: { retryAfterMs: number }): void {
    this.rateLimited.inc();
  }

  /** Counts a pause of the whole budget; its end is read from the budget itself. */
  onPause(_info: { untilMs: number }): void {
    this.pauses.inc();
  }

  /** Counts a schema drift finding of an org. */
  onDrift(info: { org: string; endpoint: string; field: string; problem: string; fatal: boolean }): void {
    this.countDrift(
      { org: info.org, endpoint: info.endpoint, field: info.field, reason: driftReason(info) },
      1,
    );
  }

  private countDrift(labels: DriftLabels, by: number): void {
    let series = this.driftSeries.get(labels.org);
    if (!series) {
      series = new Map();
      this.driftSeries.set(labels.org, series);
    }
    const key = `${labels.endpoint}\0${labels.field}\0${labels.reason}`;
    if (!series.has(key)) series.set(key, labels);
    this.drift.inc(labels, by);
  }

  /** Counts a refused token. */
  onAuthFailure(info: { org: string; status: number }): void {
    this.authOrgs.add(info.org);
    this.authFailures.inc({ org: info.org });
  }
}
