/**
 * The Alertmanager sink: pushes a notification's alerts to `/api/v2/alerts` of every
 * configured Alertmanager at once. It succeeds when at least one accepts: alerts are not
 * gossiped between cluster members, but every firing alert is pushed again each
 * `resend_interval` (see {@link AlertmanagerResender}), which fills in a member that
 * missed one push. Resolved alerts carry their `endsAt`; firing alerts carry
 * `endsAt = now + 4 × resend_interval` (an event alert: its own end when sooner), so they
 * resolve by themselves if tally goes away. Labels identify the alert (rule and entity),
 * never one event; the event's details are annotations.
 */
import type { Dispatcher } from 'undici';
import type { Alert, Notification } from '../../alerts/types.js';
import type { Clock } from '../../core/clock.js';
import { VERSION } from '../../core/version.js';
import { LazyAgent, postOnce, safeOrigin, urlSecrets } from '../http.js';
import { DeliveryError, type Notifier, type SendContext } from '../notifier.js';
import { isResolved } from '../summary.js';
import type { HttpSinkDeps } from '../webhook/webhook.js';
import type { AlertmanagerConfig } from './schema.js';

/** An alert as Alertmanager's API v2 takes it (`postableAlert`). */
export interface PostableAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  generatorURL?: string;
}

/** Label names Alertmanager accepts; anything else becomes `_`. */
function labelName(name: string): string {
  const cleaned = name.replace(/[^a-zA-Z0-9_]/g, '_');
  return /^[a-zA-Z_]/.test(cleaned) ? cleaned : `_${cleaned}`;
}

/** Labels with valid names and no empty values (Alertmanager treats empty as absent). */
function cleanLabels(labels: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels)) if (v !== '') out[labelName(k)] = v;
  return out;
}

/** Maps tally's alerts to Alertmanager's, at `now`; `validityMs` is how long a firing alert holds unless re-sent. */
export function toPostableAlerts(
  alerts: readonly Alert[],
  now: number,
  validityMs: number,
  test = false,
): PostableAlert[] {
  return alerts.map((a) => {
    const startsAt = a.startsAt ?? a.activeAt;
    // A firing event alert ends when tally would resolve it (unless a later push extends
    // it), so Alertmanager resolves it on time even if tally is gone by then.
    const holds = a.expiresAt === undefined ? now + validityMs : Math.min(a.expiresAt, now + validityMs);
    const endsAt = isResolved(a) ? Math.max(a.endsAt ?? now, startsAt) : Math.max(holds, startsAt);
    const labels = cleanLabels(a.labels);
    if (test) labels['tally_test'] = 'true';
    const out: PostableAlert = {
      labels,
      annotations: a.annotations,
      startsAt: new Date(startsAt).toISOString(),
      endsAt: new Date(endsAt).toISOString(),
    };
    if (a.generatorURL) out.generatorURL = a.generatorURL;
    return out;
  });
}

/** Pushes alerts to one or more Alertmanagers. */
export class AlertmanagerNotifier implements Notifier {
  readonly type = 'alertmanager' as const;
  readonly name: string;
  /** How often the resender should push firing alerts again (ms). */
  readonly resendIntervalMs: number;
  readonly #cfg: AlertmanagerConfig;
  readonly #clock: Clock;
  /** A dispatcher given by the caller; else the sink's own, made at its first POST. */
  readonly #dispatcher: Dispatcher | undefined;
  readonly #own = new LazyAgent();
  readonly #headers: Record<string, string>;
  readonly #secrets: string[];

  constructor(name: string, cfg: AlertmanagerConfig, deps: HttpSinkDeps) {
    this.name = name;
    this.#cfg = cfg;
    this.resendIntervalMs = cfg.resend_interval;
    this.#clock = deps.clock;
    this.#dispatcher = deps.dispatcher;
    this.#headers = { 'content-type': 'application/json', 'user-agent': `tally/${VERSION}`, ...cfg.headers };
    const secrets = [...Object.values(cfg.headers ?? {})];
    if (cfg.bearer_token !== undefined) {
      this.#headers['authorization'] = `Bearer ${cfg.bearer_token}`;
      secrets.push(cfg.bearer_token);
    }
    if (cfg.basic_auth) {
      const { username, password = '' } = cfg.basic_auth;
      const encoded = Buffer.from(`${username}:${password}`).toString('base64');
      this.#headers['authorization'] = `Basic ${encoded}`;
      // A server that echoes the header back shows the credentials encoded, not as written.
      secrets.push(password, encoded);
    }
    this.#secrets = [...secrets, ...cfg.urls.flatMap(urlSecrets)].filter((s) => s.length >= 4);
  }

  /** Pushes the alerts of `n` once. */
  async send(n: Notification, ctx: SendContext): Promise<void> {
    await this.push(n.alerts, ctx.signal, n.test === true);
  }

  /**
   * Pushes `alerts` to every Alertmanager at once; resolves when at least one accepted,
   * else throws the failure that best describes all of them (retryable when any was).
   */
  async push(alerts: readonly Alert[], signal: AbortSignal, test = false): Promise<void> {
    if (alerts.length === 0) return;
    const now = this.#clock.now();
    const body = JSON.stringify(toPostableAlerts(alerts, now, 4 * this.resendIntervalMs, test));
    const dispatcher = this.#dispatcher ?? (await this.#own.get());
    const results = await Promise.allSettled(
      this.#cfg.urls.map((base) =>
        postOnce({
          url: `${base.replace(/\/+$/, '')}/api/v2/alerts`,
          body,
          headers: { ...this.#headers },
          signal,
          dispatcher,
          where: `alertmanager ${this.name}: POST ${safeOrigin(base)}`,
          secrets: this.#secrets,
          now,
        }),
      ),
    );
    if (results.some((r) => r.status === 'fulfilled')) return;
    const errors = results.map((r) =>
      r.status === 'rejected' && r.reason instanceof DeliveryError
        ? r.reason
        : new DeliveryError(`alertmanager ${this.name}: failed`, { reason: 'unknown' }),
    );
    if (errors.length === 1) throw errors[0];
    const retryable = errors.filter((e) => e.retryable);
    const lead = retryable[0] ?? errors[0]!;
    const waits = retryable.map((e) => e.retryAfterMs).filter((ms): ms is number => ms !== undefined);
    throw new DeliveryError(`every Alertmanager failed: ${errors.map((e) => e.message).join('; ')}`, {
      reason: lead.reason,
      retryable: retryable.length > 0,
      retryAfterMs: waits.length > 0 ? Math.min(...waits) : undefined,
    });
  }

  /** Closes the connections of the sink's own dispatcher. */
  async close(): Promise<void> {
    await this.#own.close();
  }
}
