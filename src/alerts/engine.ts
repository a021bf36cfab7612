/**
 * The alert engine: rules → lifecycle → silences, maintenance and inhibition → grouping →
 * notifications, with its state persisted so a restart neither re-sends nor forgets.
 *
 * The core is synchronous and driven by the injected clock: feed it `onEvents(events)` and
 * `evaluate(views)`, and call `tick()` for the notifications due now. `start()` adds a thin
 * timer shell that ticks when something is due and hands notifications to
 * `onNotifications`; when that rejects, the groups are rolled back and retried, so nothing
 * is lost between the engine and the outbox.
 *
 * Call `start()` (or `load()`) before feeding it, so the saved state is in place first.
 */
import { type Clock, StepWatch, type TimerHandle } from '../core/clock.js';
import { TallyError } from '../core/errors.js';
import type { Logger } from '../core/log.js';
import type { ChangeEvent } from '../snapshot/events.js';
import type { OrgView } from '../poll/status.js';
import { capAlerts, MAX_ALERTS_PER_RULE } from './cap.js';
import { CelEnvironments } from './cel.js';
import { AlertGrouper, type Flushed } from './grouper.js';
import { RuleEvaluator } from './evaluator.js';
import { type MaintenanceView, MaintenanceWindows } from './maintenance.js';
import { Muting } from './muting.js';
import { compileRoute } from './route.js';
import {
  type CompiledRule,
  type ConditionRule,
  compileRules,
  type EventRule,
  type RuleSpec,
} from './rules.js';
import type { InhibitConfig, MaintenanceConfig, RouteConfig, SilenceConfig } from './schema.js';
import {
  EXPIRED_SILENCE_RETENTION_MS,
  type FieldProblem,
  Silences,
  type SilenceView,
  view,
} from './silences.js';
import { ALERT_STATE_VERSION, type AlertStateFile, type AlertStore, checkState } from './state.js';
import { Templates } from './templates.js';
import { AlertTracker, publicAlert } from './tracker.js';
import type { Alert, Notification } from './types.js';
import { WalletHistory } from './wallet.js';
import { byCodeUnits } from '../core/order.js';

/** Resolved alerts stay listed this long after their last notification. */
const RESOLVED_RETENTION_MS = 15 * 60_000;
/** The shell wakes at least this often (silences and windows start and end on their own). */
const MAX_SLEEP_MS = 30_000;
/** State is saved at most this often, except right after notifications were handed over. */
const SAVE_EVERY_MS = 10_000;
/** A restart shorter than this keeps a pending alert's `for` counting (Prometheus' default grace). */
const FOR_GRACE_MS = 10 * 60_000;
/** Delay before retrying notifications that could not be handed over. */
const RETRY_MS = 5_000;

/** Options of {@link AlertEngine}. */
export interface AlertEngineOptions {
  rules: readonly RuleSpec[];
  /**
   * The highest sequence number the event log has handed out, saved with the state as
   * `logSeq`: a log that lost its files numbers on after it (docs/reliability.md).
   */
  highestSeq?: (() => number) | undefined;
  /** The routing tree; without one, alerts are tracked and listed but never sent. */
  route?: RouteConfig | undefined;
  silences?: readonly SilenceConfig[];
  maintenance?: readonly MaintenanceConfig[];
  inhibit?: InhibitConfig;
  clock: Clock;
  logger: Logger;
  store: AlertStore;
  externalURL?: string | undefined;
  /**
   * The watched orgs (slugs from the config). When given, alerts of any other org (one
   * removed from the config) are resolved; `evaluate` may then be called with some orgs only.
   */
  orgs?: readonly string[];
  /** Extra labels per org (from the org's config), added to every alert of that org. */
  orgLabels?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Receives due notifications in the timer shell (`start()`); typically writes the outbox. */
  onNotifications?: (notifications: Notification[]) => Promise<void>;
  /** Length of the wallet history behind the burn rate (default 6h). */
  walletWindowMs?: number;
  /** Ids for API silences (default random UUIDs). */
  newId?: () => string;
  /**
   * Receivers that keep every alert they were told firing until told it resolved, muted
   * or not (Alertmanager): they hear the resolve of a held alert (grouper.ts).
   */
  keepsTold?: (receiver: string) => boolean;
  /** Alerts one rule keeps at most (src/alerts/cap.ts). */
  maxAlertsPerRule?: number;
  /** Hears of each new alert not kept because its rule reached its bound. */
  onCapped?: (rule: string) => void;
}

/** An alert as listed by the API: with its rule, receivers and what mutes it. */
export interface AlertView extends Alert {
  rule: string;
  receivers: string[];
  /** Silence ids and `maintenance:<name>` of the windows that mute it. */
  silenced_by: string[];
  /** `upstream:<state>` when the org's upstream being down mutes it. */
  inhibited_by: string[];
}

/** Filters of {@link AlertEngine.alerts}. */
export interface AlertFilter {
  state?: Alert['state'];
  org?: string;
  receiver?: string;
  fingerprint?: string;
}

/** The alert engine (see the module comment). */
export class AlertEngine {
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly rules: CompiledRule[];
  private readonly ruleByName: Map<string, CompiledRule>;
  private readonly conditionRules: ConditionRule[];
  private readonly eventRules: EventRule[];
  private readonly tracker: AlertTracker;
  /** Rules whose bound on alerts was logged as reached (once per rule and run). */
  private readonly cappedRules = new Set<string>();
  private readonly grouper: AlertGrouper;
  private readonly silenceSet: Silences;
  private readonly windows: MaintenanceWindows;
  private readonly wallet: WalletHistory;
  private readonly evaluator: RuleEvaluator;
  private readonly muting: Muting;
  private loaded = false;
  /** Sequence number of the last logged event applied (see replayCursor). */
  private cursor: number | undefined;
  /** The highest log sequence number known handed out, as last saved or restored. */
  private logSeq = 0;
  private dirty = false;
  private lastSave = 0;
  private running = false;
  private timer: TimerHandle | undefined;
  private loop: Promise<void> | undefined;
  private wakeAgain = false;
  private saving: Promise<void> = Promise.resolve();
  private readonly steps: StepWatch;

  constructor(private readonly opts: AlertEngineOptions) {
    this.log = opts.logger.child({ component: 'alerts' });
    this.clock = opts.clock;
    this.steps = new StepWatch(opts.clock);
    this.tracker = new AlertTracker(opts.maxAlertsPerRule, (rule) => this.capped(rule));
    const cel = new CelEnvironments();
    const templates = new Templates();
    this.rules = compileRules(opts.rules, cel, templates);
    this.ruleByName = new Map(this.rules.map((r) => [r.name, r]));
    this.conditionRules = this.rules.filter((r): r is ConditionRule => r.kind === 'condition');
    this.eventRules = this.rules.filter((r): r is EventRule => r.kind === 'event');
    this.grouper = new AlertGrouper(opts.route ? compileRoute(opts.route) : undefined);
    if (!opts.route && this.rules.length > 0)
      this.log.warn('no route configured: alerts are tracked, not sent');
    this.silenceSet = new Silences(opts.silences ?? [], opts.newId);
    this.windows = new MaintenanceWindows(opts.maintenance ?? []);
    this.muting = new Muting(this.silenceSet, this.windows, opts.inhibit?.upstream ?? true, (name) =>
      this.ruleByName.get(name),
    );
    this.wallet = new WalletHistory(opts.walletWindowMs ?? 6 * 3_600_000);
    const orgLabels = opts.orgLabels ?? {};
    this.evaluator = new RuleEvaluator({
      cel,
      templates,
      wallet: this.wallet,
      logger: this.log,
      clock: this.clock,
      externalURL: opts.externalURL,
      orgLabels: (org) => orgLabels[org] ?? {},
    });
  }

  /** Restores the saved state (once); `start()` calls it. Unusable state is logged and ignored. */
  async load(): Promise<void> {
    if (this.loaded) return;
    this.loaded = true;
    let data: unknown;
    try {
      data = await this.opts.store.load();
    } catch (err) {
      this.log.error({ err }, 'cannot read alert state; starting without it');
      return;
    }
    if (data === undefined) return;
    const checked = checkState(data);
    if ('problem' in checked) {
      this.log.error({ problem: checked.problem }, 'alert state unusable; starting without it');
      return;
    }
    const s = checked.state;
    this.tracker.restore(s.alerts);
    const dropped = this.grouper.restore(s.groups);
    const skipped = this.silenceSet.restore(s.silences);
    this.wallet.restore(s.wallets);
    this.muting.restore(s.upstream ?? {});
    if (s.cursor !== undefined) this.cursor = s.cursor;
    this.logSeq = Math.max(s.logSeq ?? 0, s.cursor ?? 0);
    const now = this.clock.now();
    this.resumeTimes(now - s.savedAt);
    // Alerts of rules or orgs that were removed from the config end now.
    const watched = this.opts.orgs && new Set(this.opts.orgs);
    for (const a of [...this.tracker.all()]) {
      const gone = this.ruleByName.get(a.rule)?.kind !== a.kind || (watched && !watched.has(a.org));
      if (gone && a.state !== 'resolved') {
        this.tracker.resolve(a, now);
        this.dirty = true;
      }
    }
    this.log.info(
      {
        alerts: s.alerts.length,
        groups: s.groups.length - dropped,
        silences: s.silences.length - skipped.length,
      },
      'alert state restored',
    );
  }

  /**
   * The event log's sequence number of the last event applied: saved with the alert state,
   * so a start applies again exactly the logged events this state has not seen.
   */
  replayCursor(): number | undefined {
    return this.cursor;
  }

  /**
   * The highest event log sequence number this state knows was handed out (its cursor at
   * least): the log numbers on after it, so nothing logged from now on sits at or before
   * the cursor, even when the log lost its files.
   */
  highestLoggedSeq(): number {
    return Math.max(this.logSeq, this.cursor ?? 0);
  }

  /** Starts the cursor at `seq` (a first start, or a state saved before cursors existed). */
  setCursor(seq: number): void {
    this.cursor = seq;
    this.dirty = true;
  }

  /**
   * Applies logged events again after a start: those after the cursor, each once (events
   * at or before it were applied before the state was saved). Returns how many applied.
   */
  replay(events: readonly ChangeEvent[]): number {
    const cursor = this.cursor;
    const fresh = events.filter(
      (e) => cursor === undefined || (seqOf(e) ?? Number.POSITIVE_INFINITY) > cursor,
    );
    this.onEvents(fresh);
    return fresh.length;
  }

  /**
   * Applies event rules to new change events; upstream events also drive inhibition. The
   * cursor moves to the highest log sequence number seen.
   */
  onEvents(events: readonly ChangeEvent[]): void {
    if (events.length === 0) return;
    for (const e of events) {
      const seq = seqOf(e);
      if (seq !== undefined && (this.cursor === undefined || seq > this.cursor)) this.cursor = seq;
    }
    for (const e of [...events].sort((a, b) => a.at - b.at)) {
      this.muting.event(e);
      if (e.kind === 'wallet.balance_changed' && typeof e.to === 'number')
        this.wallet.record(e.org, e.at, e.to);
    }
    this.evaluator.events(events, this.eventRules, this.tracker, this.now());
    this.changed();
  }

  /** Evaluates condition rules against org views (any subset of the watched orgs). */
  evaluate(views: readonly OrgView[]): void {
    for (const v of views) {
      this.muting.health(v.slug, v.health.state);
      const sub = v.snapshot.subscription;
      if (
        sub?.state === 'complete' &&
        sub.value.funding.mode === 'wallet' &&
        sub.value.funding.balance !== undefined
      ) {
        this.wallet.record(v.slug, sub.at, sub.value.funding.balance);
      }
    }
    const watched = this.opts.orgs && new Set(this.opts.orgs);
    this.evaluator.conditions(views, this.conditionRules, this.tracker, this.now(), watched);
    this.changed();
  }

  /** The notifications due now (their groups count them as sent). */
  tick(): Notification[] {
    return this.flushDue().map((f) => f.notification);
  }

  /**
   * The wall time, with the alerts' and groups' times moved by any step of the wall clock
   * since the last look, so that durations measure the time that passed (docs/reliability.md,
   * "Clock steps").
   */
  private now(): number {
    const step = this.steps.take();
    if (step !== 0) this.shift(step);
    return this.clock.now();
  }

  private shift(ms: number): void {
    this.tracker.shift(ms);
    this.grouper.shiftTimers(ms);
    this.lastSave += ms;
    this.dirty = true;
  }

  /** A new alert of `rule` was not kept: counted, and logged once per rule. */
  private capped(rule: string): void {
    this.opts.onCapped?.(rule);
    if (this.cappedRules.has(rule)) return;
    this.cappedRules.add(rule);
    this.log.warn(
      { rule, max: this.opts.maxAlertsPerRule ?? MAX_ALERTS_PER_RULE },
      'rule holds as many alerts as it may keep; further ones are counted, not kept',
    );
  }

  /**
   * Times read back from the last run, checked against the clock (docs/reliability.md,
   * "Clock steps"). State saved "in the future" was saved before the clock was set back:
   * every time moves back with it. A pending alert keeps counting its `for` across a short
   * restart; after a longer gap (or a clock stepped forward while tally was down, which
   * looks the same) the time not watched does not count, so none fires early — as
   * Prometheus' `for` grace period does.
   */
  private resumeTimes(sinceSave: number): void {
    if (sinceSave < 0) {
      this.shift(sinceSave);
      this.log.warn(
        { ms: -sinceSave },
        'alert state saved after now (the clock was set back): its times moved back',
      );
      return;
    }
    if (sinceSave <= FOR_GRACE_MS) return;
    for (const a of this.tracker.all()) if (a.state === 'pending') a.activeAt += sinceSave;
  }

  private flushDue(): Flushed[] {
    const now = this.now();
    // Pruned before flushing, so an alert sent in this round is still there if the
    // hand-over fails and the round is rolled back.
    for (const fp of this.tracker.prune(now - RESOLVED_RETENTION_MS, (f) => this.grouper.holds(f))) {
      this.grouper.forget(fp);
      this.dirty = true;
    }
    if (this.tracker.resolveDue(now) > 0) this.dirty = true;
    this.grouper.sync(this.tracker.all(), now);
    this.muting.annotate(this.tracker.all());
    const flushed = this.grouper.flush(now, {
      alert: (fp) => this.tracker.get(fp),
      muted: (a) => this.muting.of(a, now).muted,
      sendResolved: (a) => this.ruleByName.get(a.rule)?.sendResolved ?? true,
      keepsTold: (receiver) => this.opts.keepsTold?.(receiver) ?? false,
      repeatInterval: (a) => this.ruleByName.get(a.rule)?.repeatInterval,
      externalURL: this.opts.externalURL,
    });
    if (this.silenceSet.prune(now - EXPIRED_SILENCE_RETENTION_MS)) this.dirty = true;
    if (flushed.length > 0) this.dirty = true;
    return flushed.map((f) => ({ ...f, notification: capAlerts(f.notification) }));
  }

  /** Tracked alerts (pending, firing, recently resolved), firing first, newest first. */
  alerts(filter: AlertFilter = {}): AlertView[] {
    const now = this.clock.now();
    const order = { firing: 0, pending: 1, resolved: 2 } as const;
    const out: AlertView[] = [];
    for (const a of this.tracker.all()) {
      if (filter.state !== undefined && a.state !== filter.state) continue;
      if (filter.org !== undefined && a.org !== filter.org) continue;
      if (filter.fingerprint !== undefined && a.fingerprint !== filter.fingerprint) continue;
      const receivers = this.grouper.receiversOf(a);
      if (filter.receiver !== undefined && !receivers.includes(filter.receiver)) continue;
      const m = this.muting.of(a, now);
      out.push({
        ...publicAlert(a),
        rule: a.rule,
        receivers,
        silenced_by: m.silenced,
        inhibited_by: m.inhibited,
      });
    }
    return out.sort(
      (x, y) =>
        order[x.state] - order[y.state] ||
        (y.startsAt ?? y.activeAt) - (x.startsAt ?? x.activeAt) ||
        byCodeUnits(x.fingerprint, y.fingerprint),
    );
  }

  /**
   * The firing alerts a receiver has been told about and should hear of again (what an
   * Alertmanager receiver is re-sent): already sent in a group notification, so a resend
   * never runs ahead of `group_wait`. Muted ones too: an alert muted in tally after
   * Alertmanager had it is still firing, and one no longer re-sent would be resolved there
   * (and its receivers told so) once its `endsAt` passed. What tally mutes, it does not
   * send anew; what Alertmanager already has, its own silences decide.
   */
  resendable(receiver: string): AlertView[] {
    const sent = this.grouper.sentFiring(receiver);
    return this.alerts({ state: 'firing', receiver }).filter((a) => sent.has(a.fingerprint));
  }

  /** Every silence (config and API) with its status. */
  silences(): SilenceView[] {
    return this.silenceSet.list(this.clock.now());
  }

  /** One silence, when it exists. */
  silence(id: string): SilenceView | undefined {
    return this.silenceSet.get(id, this.clock.now());
  }

  /** The maintenance windows and whether each is open. */
  maintenance(): MaintenanceView[] {
    return this.windows.list(this.clock.now());
  }

  /** Adds a silence from the API and saves it; returns it or the problems by field. */
  async addSilence(input: unknown): Promise<{ silence: SilenceView } | { problems: FieldProblem[] }> {
    const now = this.clock.now();
    const r = this.silenceSet.add(input, now);
    if ('problems' in r) return r;
    this.log.info(
      { id: r.silence.id, matchers: r.silence.matchers, by: r.silence.created_by },
      'silence added',
    );
    await this.save();
    return { silence: view(r.silence, now) };
  }

  /** Expires an API silence now and saves. */
  async expireSilence(
    id: string,
  ): Promise<{ silence: SilenceView } | { error: 'not_found' | 'config' | 'expired' }> {
    const now = this.clock.now();
    const r = this.silenceSet.expire(id, now);
    if ('error' in r) return r;
    this.log.info({ id }, 'silence expired');
    await this.save();
    return { silence: view(r.silence, now) };
  }

  /** The state to persist. */
  state(): AlertStateFile {
    return {
      format: 'tally-alert-state',
      version: ALERT_STATE_VERSION,
      savedAt: this.clock.now(),
      alerts: [...this.tracker.all()].map((a) => structuredClone(a)),
      groups: this.grouper.toJSON(),
      silences: this.silenceSet.apiSilences(),
      wallets: this.wallet.toJSON(),
      upstream: this.muting.toJSON(),
      ...(this.cursor === undefined ? {} : { cursor: this.cursor }),
      logSeq: this.savedLogSeq(),
    };
  }

  private savedLogSeq(): number {
    this.logSeq = Math.max(this.logSeq, this.cursor ?? 0, this.opts.highestSeq?.() ?? 0);
    return this.logSeq;
  }

  /** Saves the state now (saves run one after the other, in call order). */
  async save(): Promise<void> {
    this.dirty = false;
    this.lastSave = this.clock.now();
    const state = this.state();
    const run = this.saving.then(() => this.opts.store.save(state));
    this.saving = run.catch(() => {});
    try {
      await run;
    } catch (err) {
      this.dirty = true; // try again on the next round
      throw err;
    }
  }

  /** Loads the state and starts the timer shell (needs `onNotifications`). */
  async start(): Promise<void> {
    if (!this.opts.onNotifications) {
      throw new TallyError('the alert engine needs onNotifications to run', { reason: 'config' });
    }
    await this.load();
    this.running = true;
    this.schedule(0);
  }

  /** Stops the shell, waits for a round in progress, and saves. */
  async stop(): Promise<void> {
    this.running = false;
    this.timer?.cancel();
    this.timer = undefined;
    await this.loop;
    if (this.loaded) await this.save();
  }

  private changed(): void {
    this.dirty = true;
    if (!this.running) return;
    if (this.loop !== undefined) this.wakeAgain = true;
    else this.schedule(0);
  }

  private schedule(ms: number): void {
    this.timer?.cancel();
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.loop = this.round().finally(() => {
        this.loop = undefined;
      });
    }, ms);
  }

  /** One round of the shell: flush, hand over, save, sleep until the next thing is due. */
  private async round(): Promise<void> {
    let delay = MAX_SLEEP_MS;
    try {
      const flushed = this.flushDue();
      if (flushed.length > 0) {
        try {
          await this.opts.onNotifications!(flushed.map((f) => f.notification));
        } catch (err) {
          for (const f of [...flushed].reverse()) f.undo();
          this.log.error(
            { err, notifications: flushed.length },
            'cannot hand over notifications; will retry',
          );
          delay = RETRY_MS;
        }
      }
      const now = this.now();
      if (flushed.length > 0 || (this.dirty && now - this.lastSave >= SAVE_EVERY_MS)) await this.save();
      if (delay !== RETRY_MS) delay = this.nextDelay(now);
    } catch (err) {
      this.log.error({ err }, 'alert round failed');
      delay = RETRY_MS;
    }
    if (this.running) this.schedule(this.wakeAgain && delay !== RETRY_MS ? 0 : delay);
    this.wakeAgain = false;
  }

  /** When something is next due by itself (a group to flush, an event alert to resolve). */
  nextDueAt(): number | undefined {
    const times = [this.grouper.nextFlushAt(), this.tracker.nextResolveAt()].filter((t) => t !== undefined);
    return times.length === 0 ? undefined : Math.min(...times);
  }

  private nextDelay(now: number): number {
    let next = Math.min(now + MAX_SLEEP_MS, this.nextDueAt() ?? Number.POSITIVE_INFINITY);
    if (this.dirty) next = Math.min(next, this.lastSave + SAVE_EVERY_MS);
    return Math.max(0, next - now);
  }
}

/** The event log's sequence number of an event, when it came from the log. */
function seqOf(e: ChangeEvent): number | undefined {
  const seq = (e as ChangeEvent & { seq?: unknown }).seq;
  return typeof seq === 'number' ? seq : undefined;
}
