/**
 * The alert lifecycle, as pure state transitions on an injected time:
 *
 *   condition holds ─► pending ──(held for `for`)──► firing ──(cleared, after keep_firing_for)──► resolved
 *                        └──(cleared)──► forgotten
 *   matching event ─► firing ──(resolve_after, or a resolve_on event)──► resolved
 *
 * Labels are fixed when an alert is created and annotations when it starts firing; the
 * fingerprint depends only on the rule and the entity, so a renamed channel keeps its alert.
 */
import { createHash } from 'node:crypto';
import { MAX_ALERTS_PER_RULE } from './cap.js';
import type { Alert } from './types.js';

/** An alert with what the engine needs to carry it across passes and restarts. */
export interface TrackedAlert extends Alert {
  rule: string;
  kind: 'condition' | 'event';
  org: string;
  /** The entity within the org: `org`, `channel:<id>`, `session:<id>`, `member:<id>`, `upstream:<org>`. */
  entity: string;
  /** Last time the condition was seen to hold (condition rules). */
  lastTrueAt?: number;
  /** When a firing alert's condition first failed; it resolves keep_firing_for later. */
  keepFiringSince?: number;
  /** When an event alert resolves by itself. */
  resolveAt?: number;
  /** The event's entity (`channel:<id>` …), for `resolve_on`. */
  eventEntity?: string;
  /** When a later event on the same entity last updated this firing event alert. */
  updatedAt?: number;
}

/** Fingerprint: a stable hash of the rule name and the labels that identify the entity. */
export function fingerprint(rule: string, idLabels: Readonly<Record<string, string>>): string {
  const h = createHash('sha256').update(rule);
  for (const k of Object.keys(idLabels).sort()) h.update(`\0${k}\0${idLabels[k]}`);
  return h.digest('hex').slice(0, 16);
}

/** How long a condition must hold and may linger. */
export interface Timing {
  forMs: number;
  keepFiringFor: number;
}

/**
 * What a transition did, for logs and the caller's bookkeeping; `capped`: a new alert not
 * kept because its rule holds {@link MAX_ALERTS_PER_RULE} already.
 */
export type Transition = 'created' | 'fired' | 'resolved' | 'dropped' | 'capped' | 'none';

/**
 * All alerts by fingerprint, with the lifecycle transitions. Each rule keeps at most
 * `maxPerRule` alerts (docs/alerts.md, "Bounds"): a new one beyond that is not kept, only
 * counted, so a storm cannot make the alert state grow without bound.
 */
export class AlertTracker {
  private readonly byFp = new Map<string, TrackedAlert>();
  private readonly perRule = new Map<string, number>();

  /** `onCapped` hears of each new alert not kept, by rule. */
  constructor(
    private readonly maxPerRule = MAX_ALERTS_PER_RULE,
    private readonly onCapped: (rule: string) => void = () => {},
  ) {}

  private put(a: TrackedAlert): void {
    const had = this.byFp.get(a.fingerprint);
    if (had) this.count(had.rule, -1);
    this.byFp.set(a.fingerprint, a);
    this.count(a.rule, 1);
  }

  private remove(fp: string): void {
    const had = this.byFp.get(fp);
    if (!had) return;
    this.byFp.delete(fp);
    this.count(had.rule, -1);
  }

  private count(rule: string, by: number): void {
    const n = (this.perRule.get(rule) ?? 0) + by;
    if (n > 0) this.perRule.set(rule, n);
    else this.perRule.delete(rule);
  }

  /** Whether a new alert of `rule` would go beyond its bound (and is then counted). */
  private full(rule: string): boolean {
    if ((this.perRule.get(rule) ?? 0) < this.maxPerRule) return false;
    this.onCapped(rule);
    return true;
  }

  /** Every tracked alert (pending, firing and recently resolved). */
  all(): IterableIterator<TrackedAlert> {
    return this.byFp.values();
  }

  get(fp: string): TrackedAlert | undefined {
    return this.byFp.get(fp);
  }

  get size(): number {
    return this.byFp.size;
  }

  /**
   * The condition held for an entity. `create` builds a new pending alert (labels rendered);
   * `annotate` renders annotations when it starts firing.
   */
  holds(
    fp: string,
    now: number,
    timing: Timing,
    create: () => TrackedAlert,
    annotate: (a: TrackedAlert) => Record<string, string>,
  ): Transition {
    let a = this.byFp.get(fp);
    let result: Transition = 'none';
    if (a === undefined || a.state === 'resolved') {
      const made = create();
      if (a === undefined && this.full(made.rule)) return 'capped';
      a = made;
      a.state = 'pending';
      a.activeAt = now;
      delete a.startsAt;
      delete a.endsAt;
      this.put(a);
      result = 'created';
    }
    a.lastTrueAt = now;
    delete a.keepFiringSince;
    if (a.state === 'pending' && now - a.activeAt >= timing.forMs) {
      a.state = 'firing';
      a.startsAt = now;
      a.annotations = annotate(a);
      result = 'fired';
    }
    return result;
  }

  /** The condition did not hold (or the entity is gone). */
  cleared(fp: string, now: number, timing: Timing): Transition {
    const a = this.byFp.get(fp);
    if (a === undefined || a.state === 'resolved') return 'none';
    if (a.state === 'pending') {
      this.remove(fp);
      return 'dropped';
    }
    if (timing.keepFiringFor > 0) {
      a.keepFiringSince ??= now;
      if (now - a.keepFiringSince < timing.keepFiringFor) return 'none';
    }
    this.resolve(a, now);
    return 'resolved';
  }

  /** Adds an event alert, firing at once; an alert for the same event is not added twice. */
  fireEvent(alert: TrackedAlert): boolean {
    // A resolved alert of the same rule and entity fires again as a new instance.
    const held = this.byFp.get(alert.fingerprint);
    if (held && held.state !== 'resolved') return false;
    if (!held && this.full(alert.rule)) return false;
    this.put(alert);
    return true;
  }

  /** Resolves an alert now (no-op when already resolved). */
  resolve(a: TrackedAlert, now: number): void {
    if (a.state === 'resolved') return;
    if (a.state === 'pending') {
      this.remove(a.fingerprint);
      return;
    }
    a.state = 'resolved';
    a.endsAt = Math.max(now, a.startsAt ?? now);
    delete a.resolveAt;
    delete a.keepFiringSince;
  }

  /** Resolves event alerts whose time is up; returns how many. */
  resolveDue(now: number): number {
    let n = 0;
    for (const a of this.byFp.values()) {
      if (a.state === 'firing' && a.resolveAt !== undefined && a.resolveAt <= now) {
        const at = a.resolveAt;
        this.resolve(a, at);
        n++;
      }
    }
    return n;
  }

  /** The earliest time an event alert resolves by itself. */
  nextResolveAt(): number | undefined {
    let next: number | undefined;
    for (const a of this.byFp.values()) {
      if (a.state === 'firing' && a.resolveAt !== undefined && (next === undefined || a.resolveAt < next)) {
        next = a.resolveAt;
      }
    }
    return next;
  }

  /** Forgets resolved alerts that ended before `before` and that `keep` does not hold on to. */
  prune(before: number, keep: (fp: string) => boolean): string[] {
    const gone: string[] = [];
    for (const [fp, a] of this.byFp) {
      if (a.state === 'resolved' && (a.endsAt ?? 0) < before && !keep(fp)) {
        this.remove(fp);
        gone.push(fp);
      }
    }
    return gone;
  }

  /**
   * Moves every alert's times by `ms`, the wall clock's step (docs/reliability.md, "Clock
   * steps"): `for`, `keep_firing_for` and `resolve_after` keep the time that really passed,
   * and the times shown stay on the clock people read.
   */
  shift(ms: number): void {
    for (const a of this.byFp.values()) {
      a.activeAt += ms;
      if (a.startsAt !== undefined) a.startsAt += ms;
      if (a.endsAt !== undefined) a.endsAt += ms;
      if (a.lastTrueAt !== undefined) a.lastTrueAt += ms;
      if (a.keepFiringSince !== undefined) a.keepFiringSince += ms;
      if (a.resolveAt !== undefined) a.resolveAt += ms;
      if (a.updatedAt !== undefined) a.updatedAt += ms;
    }
  }

  /** Puts back alerts from the state file. */
  restore(alerts: readonly TrackedAlert[]): void {
    for (const a of alerts) this.put({ ...a });
  }
}

/** The public part of a tracked alert (what notifications carry). */
export function publicAlert(a: TrackedAlert): Alert {
  const out: Alert = {
    fingerprint: a.fingerprint,
    labels: { ...a.labels },
    annotations: { ...a.annotations },
    state: a.state,
    activeAt: a.activeAt,
  };
  if (a.startsAt !== undefined) out.startsAt = a.startsAt;
  if (a.endsAt !== undefined) out.endsAt = a.endsAt;
  if (a.generatorURL !== undefined) out.generatorURL = a.generatorURL;
  if (a.state === 'firing' && a.resolveAt !== undefined) out.expiresAt = a.resolveAt;
  return out;
}
