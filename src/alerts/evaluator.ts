/**
 * Applies rules: condition rules to every entity of every org view, event rules to change
 * events. Turns results into lifecycle transitions on the tracker, with labels and
 * annotations rendered from the same values the expression saw. An expression that fails
 * at run time (a missing field, a type surprise) counts as false for that entity and is
 * logged at most once per rule every few minutes; it never stops the pass.
 */
import { Duration } from '@marcbachmann/cel-js/evaluator';
import { formatDuration } from '../core/units.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import { describeEvent } from '../snapshot/describe.js';
import type { ChangeEvent } from '../snapshot/events.js';
import type { OrgView } from '../poll/status.js';
import type { CelEnvironments } from './cel.js';
import { type FieldType, type Plain, SCOPE_VARIABLES, toCel, toTemplate } from './cel-types.js';
import { type Entity, eventPlain, isKeptPlain, type OrgScope, orgScope } from './context.js';
import { isStill, type Known, QuietLists, quietOn, Reach, reachOf, readBy } from './quiet.js';
import { isLabelName } from './matchers.js';
import type { CompiledRule, ConditionRule, EventRule } from './rules.js';
import type { CompiledTemplate, Templates } from './templates.js';
import { type AlertTracker, fingerprint, type TrackedAlert } from './tracker.js';
import type { WalletHistory } from './wallet.js';

const LOG_EVERY_MS = 10 * 60_000;

/** What the evaluator needs from the engine. */
export interface EvaluatorDeps {
  cel: CelEnvironments;
  templates: Templates;
  wallet: WalletHistory;
  logger: Logger;
  clock: Clock;
  externalURL?: string | undefined;
  /** Extra labels of each org (from its config). */
  orgLabels: (org: string) => Readonly<Record<string, string>>;
}

/** Converts a CEL result into a plain value for templates and JSON. */
export function fromCel(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof Date) return v.toISOString();
  if (v instanceof Duration) return formatDuration(Number(v.valueOf()));
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [String(k), fromCel(x)]));
  if (Array.isArray(v)) return v.map(fromCel);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fromCel(x)]));
  }
  return v;
}

/** Evaluates rules and drives the tracker. */
export class RuleEvaluator {
  private readonly lastLog = new Map<string, { at: number; suppressed: number }>();

  /**
   * CEL values of the plain values the org scope keeps between passes (a channel list's
   * channels, made once per list read): converted once, not on every pass.
   */
  private readonly celOf = new WeakMap<object, { t: FieldType; classes: unknown; value: unknown }>();

  /**
   * What is known of each entity under each rule, by the id labels it was made of: the
   * scope keeps an entity's id labels as long as the list it comes from (context.ts), so
   * an entity seen on every pass is neither hashed again nor, while quiet, evaluated again.
   */
  private readonly known = new WeakMap<Readonly<Record<string, string>>, Map<ConditionRule, Known>>();
  /** Session lists quiet as a whole under a rule (quiet.ts). */
  private readonly quietLists = new QuietLists();

  /**
   * The context an expression is evaluated in, seen through a proxy that notes the
   * variables it reads: what a quiet condition depended on.
   */
  private target: Record<string, unknown> = {};
  private readonly read = new Set<string>();
  private readonly watched: Record<string, unknown> = new Proxy(
    {},
    {
      get: (_t, key) => {
        if (typeof key !== 'string') return undefined;
        this.read.add(key);
        return this.target[key];
      },
    },
  );
  /** Set by `test` when an expression failed or gave no true or false. */
  private failed = false;

  constructor(private readonly deps: EvaluatorDeps) {}

  private knownOf(rule: ConditionRule, org: string, idLabels: Readonly<Record<string, string>>): Known {
    let byRule = this.known.get(idLabels);
    if (byRule === undefined) {
      byRule = new Map();
      this.known.set(idLabels, byRule);
    }
    let k = byRule.get(rule);
    if (k === undefined || k.org !== org) {
      k = { org, fp: fingerprint(rule.name, { org, ...idLabels }), quiet: undefined };
      byRule.set(rule, k);
    }
    return k;
  }

  /** `toCel`, remembered for the plain values the scope keeps between passes. */
  private cel(t: FieldType, v: unknown): unknown {
    const classes = this.deps.cel.classes;
    if (typeof v !== 'object' || v === null || !isKeptPlain(v)) return toCel(t, v, classes);
    const hit = this.celOf.get(v);
    if (hit !== undefined && hit.t === t && hit.classes === classes) return hit.value;
    const value = toCel(t, v, classes);
    this.celOf.set(v, { t, classes, value });
    return value;
  }

  /**
   * One pass of the condition rules over org views at `now`. With `watched`, condition
   * alerts of orgs outside it are resolved.
   */
  conditions(
    views: readonly OrgView[],
    rules: readonly ConditionRule[],
    tracker: AlertTracker,
    now: number,
    watched?: ReadonlySet<string>,
  ): void {
    this.deps.cel.setNow(now);
    const existing = new Map<string, TrackedAlert[]>();
    for (const a of tracker.all()) {
      if (a.kind !== 'condition' || a.state === 'resolved') continue;
      const k = `${a.rule}\0${a.org}`;
      const list = existing.get(k);
      if (list) list.push(a);
      else existing.set(k, [a]);
    }
    for (const view of views) {
      const scope = orgScope(view, this.deps.wallet);
      const orgCel: Record<string, unknown> = { now: new Date(now) };
      for (const [name, t] of Object.entries(SCOPE_VARIABLES.org)) {
        const c = this.cel(t, scope.vars[name]);
        if (c !== undefined) orgCel[name] = c;
      }
      for (const rule of rules) {
        const entities = scope.entities[rule.forEach];
        if (entities === undefined) continue; // the part was never read: nothing is known
        const seen = new Set<string>();
        this.entities(rule, scope, orgCel, entities, tracker, now, seen);
        for (const a of existing.get(`${rule.name}\0${scope.slug}`) ?? []) {
          if (!seen.has(a.fingerprint) && isGone(a, rule, scope)) tracker.cleared(a.fingerprint, now, rule);
        }
      }
    }
    // Orgs no longer watched take their condition alerts with them.
    if (watched === undefined) return;
    for (const list of existing.values()) {
      for (const a of list) if (!watched.has(a.org)) tracker.resolve(a, now);
    }
  }

  /**
   * A rule over an org's entities. A channel's session list is taken whole, and passed
   * over while it is quiet under the rule (quiet.ts).
   */
  private entities(
    rule: ConditionRule,
    scope: OrgScope,
    orgCel: Record<string, unknown>,
    entities: readonly Entity[],
    tracker: AlertTracker,
    now: number,
    seen: Set<string>,
  ): void {
    for (let i = 0; i < entities.length; ) {
      const list = entities[i]!.list;
      if (list === undefined) {
        this.entity(rule, scope, orgCel, entities[i++]!, tracker, now, seen);
        continue;
      }
      const channel = entities[i]!.vars['channel'];
      const end = i + list.length;
      if (this.quietLists.has(list, rule, scope.slug, channel)) {
        i = end;
        continue;
      }
      let reach: Reach = Reach.OWN;
      for (; i < end; i++) {
        const r = this.entity(rule, scope, orgCel, entities[i]!, tracker, now, seen);
        if (r === Reach.OTHER || reach === Reach.OTHER) reach = Reach.OTHER;
        else if (r === Reach.CHANNEL) reach = r;
      }
      if (reach !== Reach.OTHER) this.quietLists.note(list, rule, scope.slug, channel, reach);
      else this.quietLists.forget(list, rule);
    }
  }

  private entity(
    rule: ConditionRule,
    scope: OrgScope,
    orgCel: Record<string, unknown>,
    e: Entity,
    tracker: AlertTracker,
    now: number,
    seen: Set<string>,
  ): Reach {
    const known = this.knownOf(rule, scope.slug, e.idLabels);
    const fp = known.fp;
    if (known.quiet !== undefined && isStill(known.quiet, readBy(rule), e, scope)) {
      // False when last evaluated, on the very values it read, without "now": false
      // again, and with no alert to clear there is nothing to do.
      if (!isActive(tracker.get(fp))) return reachOf(known.quiet, readBy(rule));
    }
    known.quiet = undefined;
    seen.add(fp);
    const ctx: Record<string, unknown> = { ...orgCel };
    const vars = SCOPE_VARIABLES[rule.forEach];
    // Only the entity variables the rule reads are converted (a channel's `sessions` is
    // made only for a rule that reads it).
    for (const name of readBy(rule)) {
      if (!Object.hasOwn(e.vars, name)) continue;
      const c = this.cel(vars[name]!, e.vars[name]);
      if (c !== undefined) ctx[name] = c;
    }
    for (const v of rule.when.variables) if (!(v in ctx)) return Reach.OTHER; // unknown: keep the alert as it is
    const nowReads = this.deps.cel.nowReads;
    this.read.clear();
    this.target = ctx;
    this.failed = false;
    const holds = this.test(rule, this.watched, () => `${scope.slug}/${e.key}`);
    this.target = {};
    if (!holds && !this.failed && this.deps.cel.nowReads === nowReads) {
      known.quiet = quietOn(this.read, readBy(rule), e, scope);
    }
    const template = (): Plain => {
      const t: Plain = { now: new Date(now).toISOString(), ...this.externalURL() };
      const all = { ...scope.vars, ...e.vars };
      for (const [name, type] of Object.entries(vars)) {
        const v = toTemplate(type as FieldType, all[name]);
        if (v !== undefined) t[name] = v;
      }
      t['value'] = rule.value ? this.value(rule, ctx) : true;
      t['rule'] = { name: rule.name, severity: rule.severity, for_each: rule.forEach };
      return t;
    };
    const current = tracker.get(fp);
    if (!holds) {
      // How it ended, said from what is seen as it clears (`resolved_*` annotations).
      if (current?.state === 'firing') this.renderResolution(rule, current, () => template(), now);
      tracker.cleared(fp, now, rule);
      if (known.quiet === undefined || isActive(tracker.get(fp))) return Reach.OTHER;
      return reachOf(known.quiet, readBy(rule));
    }
    if (current?.state === 'firing') dropResolution(current);
    const entityLabel = Object.values(e.nameLabels)[0] ?? scope.slug;
    tracker.holds(
      fp,
      now,
      rule,
      () => {
        const base = {
          ...this.deps.orgLabels(scope.slug),
          ...e.nameLabels,
          alertname: rule.name,
          severity: rule.severity,
          org: scope.slug,
          ...e.idLabels,
        };
        const labels = this.renderLabels(rule, base, template());
        return {
          fingerprint: fp,
          labels,
          annotations: {},
          state: 'pending',
          activeAt: now,
          rule: rule.name,
          kind: 'condition',
          org: scope.slug,
          entity: rule.forEach === 'org' ? 'org' : `${rule.forEach}:${e.key}`,
          ...this.generator(rule, fp, () => ({ ...template(), labels })),
        };
      },
      (a) =>
        this.renderAnnotations(rule, { ...template(), labels: a.labels, alert: alertVars(a, now) }, () =>
          rule.forEach === 'org'
            ? `${rule.name}: ${scope.slug}`
            : `${rule.name}: ${entityLabel} (${scope.slug})`,
        ),
    );
    return Reach.OTHER;
  }

  /** Applies event rules to events (in time order); `resolve_on` events resolve earlier alerts. */
  events(
    events: readonly ChangeEvent[],
    rules: readonly EventRule[],
    tracker: AlertTracker,
    now: number,
  ): number {
    this.deps.cel.setNow(now);
    let fired = 0;
    const resolving = rules.some((r) => r.resolveOn !== undefined);
    for (const e of [...events].sort((a, b) => a.at - b.at)) {
      const entity = `${e.entity.kind}:${e.entity.id}`;
      for (const a of resolving ? tracker.all() : []) {
        if (a.kind !== 'event' || a.state !== 'firing' || a.org !== e.org || a.eventEntity !== entity)
          continue;
        const rule = rules.find((r) => r.name === a.rule);
        if (rule?.resolveOn?.(e.kind)) tracker.resolve(a, Math.max(e.at, a.startsAt ?? e.at));
      }
      const plain = eventPlain(e);
      const ctx = { now: new Date(now), event: toCel('Event', plain, this.deps.cel.classes) };
      for (const rule of rules) {
        if (!rule.on(e.kind)) continue;
        if (rule.when && !this.test(rule, ctx, e.id)) continue;
        // One alert per rule and entity (Alertmanager semantics): the event's id and
        // details go to annotations, so grouping, silences and inhibition by entity work,
        // and a second event on the same entity updates the firing alert.
        const fp = fingerprint(rule.name, { org: e.org, entity });
        const existing = tracker.get(fp);
        if (existing && existing.state === 'pending') continue;
        const entityLabels: Record<string, string> = {};
        for (const [k, v] of Object.entries(e.labels))
          if (ENTITY_LABELS.has(k) && isLabelName(k) && v !== '') entityLabels[k] = v;
        const base = {
          ...this.deps.orgLabels(e.org),
          ...entityLabels,
          alertname: rule.name,
          severity: rule.severity,
          org: e.org,
        };
        const t: Plain = {
          now: new Date(now).toISOString(),
          ...this.externalURL(),
          event: toTemplate('Event', plain),
          value: rule.value ? this.value(rule, ctx) : fromCel(e.to ?? null),
          rule: { name: rule.name, severity: rule.severity, on: e.kind },
        };
        const firing = existing?.state === 'firing' ? existing : undefined;
        const labels = firing ? firing.labels : this.renderLabels(rule, base, t);
        const alert: TrackedAlert = {
          fingerprint: fp,
          labels,
          annotations: {},
          state: 'firing',
          activeAt: e.at,
          startsAt: e.at,
          rule: rule.name,
          kind: 'event',
          org: e.org,
          entity,
          eventEntity: entity,
          // Counted from when tally saw the event, so a late event is still sent.
          resolveAt: Math.max(e.at, now) + rule.resolveAfter,
          ...this.generator(rule, fp, () => ({ ...t, labels })),
        };
        const count = Number(firing?.annotations['event_count'] ?? '0') + 1;
        alert.annotations = {
          ...eventAnnotations(e, count),
          ...this.renderAnnotations(
            rule,
            { ...t, labels, alert: alertVars(alert, now) },
            () => `${describeEvent(e)} (${e.org})`,
          ),
        };
        if (firing) {
          // The same entity again while its alert fires: the latest details, a later end.
          firing.annotations = alert.annotations;
          firing.resolveAt = Math.max(firing.resolveAt ?? 0, alert.resolveAt ?? 0);
          firing.updatedAt = now;
          continue;
        }
        if (tracker.fireEvent(alert)) fired++;
      }
    }
    return fired;
  }

  /** Whether the rule's condition holds; `what` names the entity or event in a warning. */
  private test(rule: CompiledRule, ctx: Record<string, unknown>, what: string | (() => string)): boolean {
    if (!rule.when) return true;
    const named = () => (typeof what === 'string' ? what : what());
    try {
      const r = rule.when.evaluate(ctx);
      if (typeof r === 'boolean') return r;
      this.warn(rule.name, named(), `the condition gave ${typeof r}, not true or false`);
    } catch (err) {
      this.warn(rule.name, named(), firstLine((err as Error).message));
    }
    this.failed = true;
    return false;
  }

  private value(rule: CompiledRule, ctx: Record<string, unknown>): unknown {
    try {
      return fromCel(rule.value!.evaluate(ctx));
    } catch (err) {
      this.warn(rule.name, 'value', firstLine((err as Error).message));
      return undefined;
    }
  }

  private renderLabels(rule: CompiledRule, base: Record<string, string>, t: Plain): Record<string, string> {
    const out = { ...base };
    for (const [k, tpl] of Object.entries(rule.labels))
      out[k] = this.render(rule, tpl, { ...t, labels: base });
    return out;
  }

  /**
   * Renders a condition rule's `resolved_*` annotations for a firing alert whose condition
   * no longer holds, from what is seen now: how it ended (`resolved_summary` is what
   * receivers show for a resolved alert, docs/notifications.md).
   */
  private renderResolution(rule: ConditionRule, a: TrackedAlert, t: () => Plain, now: number): void {
    let ctx: Plain | undefined;
    for (const [k, tpl] of Object.entries(rule.annotations)) {
      if (!isResolution(k)) continue;
      ctx ??= { ...t(), labels: a.labels, alert: alertVars(a, now) };
      a.annotations = { ...a.annotations, [k]: this.render(rule, tpl, ctx) };
    }
  }

  private renderAnnotations(rule: CompiledRule, t: Plain, summary: () => string): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [k, tpl] of Object.entries(rule.annotations)) {
      if (rule.kind === 'condition' && isResolution(k)) continue;
      out[k] = this.render(rule, tpl, t);
    }
    if (out['summary'] === undefined) out['summary'] = summary();
    return out;
  }

  private render(rule: CompiledRule, tpl: CompiledTemplate, ctx: Plain): string {
    const r = this.deps.templates.render(tpl, ctx);
    if (r.error) this.warn(rule.name, 'template', r.error);
    return r.text;
  }

  /** `external_url` for templates (tally's status page), without a trailing slash, when configured. */
  private externalURL(): { external_url?: string } {
    const base = this.deps.externalURL;
    return base === undefined ? {} : { external_url: base.replace(/\/$/, '') };
  }

  /** The alert's link: the rule's own template when it has one, else tally's alert view. */
  private generator(rule: CompiledRule, fp: string, ctx: () => Plain): { generatorURL?: string } {
    if (rule.generatorURL) {
      const url = this.render(rule, rule.generatorURL, ctx()).trim();
      return url === '' ? {} : { generatorURL: url };
    }
    const base = this.deps.externalURL;
    return base === undefined
      ? {}
      : { generatorURL: `${base.replace(/\/$/, '')}/api/v1/alerts?fingerprint=${fp}` };
  }

  /** Logs a rule's run-time problem, at most once per rule every ten minutes. */
  private warn(rule: string, what: string, problem: string): void {
    const now = this.deps.clock.monotonic();
    const last = this.lastLog.get(rule);
    if (last && now - last.at < LOG_EVERY_MS) {
      last.suppressed++;
      return;
    }
    this.deps.logger.warn(
      { rule, entity: what, problem, suppressed: last?.suppressed ?? 0 },
      'rule evaluation failed',
    );
    this.lastLog.set(rule, { at: now, suppressed: 0 });
  }
}

/** Annotations a condition rule renders when its condition clears, not when it fires. */
function isResolution(key: string): boolean {
  return key.startsWith('resolved_');
}

/** Takes back what a firing alert was told of its end when its condition holds again. */
function dropResolution(a: TrackedAlert): void {
  if (!Object.keys(a.annotations).some(isResolution)) return;
  a.annotations = Object.fromEntries(Object.entries(a.annotations).filter(([k]) => !isResolution(k)));
}

/** Whether an alert is pending or firing. */
function isActive(a: TrackedAlert | undefined): boolean {
  return a !== undefined && a.state !== 'resolved';
}

function alertVars(a: TrackedAlert, now: number): Plain {
  return {
    fingerprint: a.fingerprint,
    active_at: new Date(a.activeAt).toISOString(),
    starts_at: new Date(a.startsAt ?? now).toISOString(),
  };
}

/** Whether the entity of an alert no longer exists (as opposed to not being known this pass). */
function isGone(a: TrackedAlert, rule: ConditionRule, scope: OrgScope): boolean {
  if (rule.forEach !== 'session') return true;
  const channelId = a.labels['channel_id'] ?? '';
  return (
    scope.sessionListed().has(channelId) ||
    (scope.channelIds !== undefined && !scope.channelIds.has(channelId))
  );
}

function firstLine(s: string): string {
  return s.split('\n')[0] ?? s;
}

/** Event labels that name the entity (and its parents); every other event label is a detail. */
const ENTITY_LABELS: ReadonlySet<string> = new Set([
  'channel_id',
  'channel',
  'session_id',
  'session',
  'member_id',
  'member',
  // The upstream entity of drift events: the org's endpoint.
  'endpoint',
]);

/**
 * The details of the event an alert is about, as annotations: id, kind, time, field,
 * from, to, every event label that is not an entity label (`event_<name>`), and how many
 * events the firing alert has seen.
 */
export function eventAnnotations(e: ChangeEvent, count: number): Record<string, string> {
  const out: Record<string, string> = {
    event_id: e.id,
    event_kind: e.kind,
    event_at: new Date(e.at).toISOString(),
  };
  if (e.field !== undefined) out['event_field'] = e.field;
  const text = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
  if (e.from !== undefined && e.from !== null) out['event_from'] = text(e.from);
  if (e.to !== undefined && e.to !== null) out['event_to'] = text(e.to);
  for (const [k, v] of Object.entries(e.labels)) if (!ENTITY_LABELS.has(k)) out[`event_${k}`] = v;
  out['event_count'] = String(count);
  return out;
}
