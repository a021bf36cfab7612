/**
 * Rules from config to something that runs: expressions compiled, templates parsed,
 * defaults applied. `checkRule` is what config validation calls; `compileRules` what the
 * engine calls. Both use the same code, so what validates also runs.
 */
import { ConfigError } from '../core/errors.js';
import type { EventKind } from '../snapshot/events.js';
import { CelEnvironments, type CompiledExpression, ExpressionError } from './cel.js';
import type { Scope } from './cel-types.js';
import { type CompiledTemplate, TemplateError, Templates } from './templates.js';

/** Labels tally sets itself; rules cannot override them. */
export const RESERVED_LABELS: ReadonlySet<string> = new Set([
  'alertname',
  'org',
  'severity',
  'event_id',
  'channel_id',
  'session_id',
  'member_id',
]);

/** Default time after which an event rule's alert resolves. */
export const DEFAULT_RESOLVE_AFTER_MS = 5 * 60_000;

/** A rule as the config schema produces it. */
export interface RuleSpec {
  name: string;
  on?: string | string[] | undefined;
  for_each?: 'org' | 'channel' | 'session' | 'member' | undefined;
  when?: string | undefined;
  value?: string | undefined;
  for?: number | undefined;
  keep_firing_for?: number | undefined;
  resolve_after?: number | undefined;
  resolve_on?: string | string[] | undefined;
  severity: string;
  labels?: Record<string, string> | undefined;
  annotations?: Record<string, string> | undefined;
  generator_url?: string | undefined;
  send_resolved?: boolean | undefined;
  repeat_interval?: number | undefined;
  inhibitable?: boolean | undefined;
}

interface CompiledRuleBase {
  name: string;
  severity: string;
  labels: Record<string, CompiledTemplate>;
  annotations: Record<string, CompiledTemplate>;
  /** The alert's link, when the rule sets one (else tally's own alert view). */
  generatorURL: CompiledTemplate | undefined;
  sendResolved: boolean;
  repeatInterval: number | undefined;
  /** Muted while the org's upstream is down. */
  inhibitable: boolean;
  /** Whether the rule is about the upstream itself (its alerts report muted data alerts). */
  upstream: boolean;
  value: CompiledExpression | undefined;
}

/** A rule that fires once per matching change event. */
export interface EventRule extends CompiledRuleBase {
  kind: 'event';
  on: (kind: EventKind) => boolean;
  when: CompiledExpression | undefined;
  resolveAfter: number;
  resolveOn: ((kind: EventKind) => boolean) | undefined;
}

/** A rule evaluated per entity on every pass over the org views. */
export interface ConditionRule extends CompiledRuleBase {
  kind: 'condition';
  forEach: 'org' | 'channel' | 'session' | 'member';
  when: CompiledExpression;
  forMs: number;
  keepFiringFor: number;
}

/** A compiled rule. */
export type CompiledRule = EventRule | ConditionRule;

/** A problem with a rule, at a path relative to the rule. */
export interface RuleProblem {
  path: (string | number)[];
  message: string;
  /** For expression errors: where in the expression (1-based), to refine the YAML position. */
  expression?: { line: number; column: number };
}

function asList(v: string | string[] | undefined): string[] {
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

/** Matches event kinds against `session.started`, `session.*` or `*`. */
export function kindMatcher(patterns: readonly string[]): (kind: EventKind) => boolean {
  const exact = new Set(patterns.filter((p) => !p.endsWith('*')));
  const prefixes = patterns.filter((p) => p.endsWith('*')).map((p) => p.slice(0, -1));
  return (kind) => exact.has(kind) || prefixes.some((p) => kind.startsWith(p));
}

/** Compiles one rule; returns the rule or every problem found. */
export function compileRule(
  spec: RuleSpec,
  cel: CelEnvironments,
  templates: Templates,
): { rule: CompiledRule; problems: [] } | { rule: undefined; problems: RuleProblem[] } {
  const problems: RuleProblem[] = [];
  const isEvent = spec.on !== undefined;
  if (isEvent === (spec.for_each !== undefined)) {
    problems.push({ path: [], message: 'set either on (an event rule) or for_each (a condition rule)' });
    return { rule: undefined, problems };
  }
  const scope: Scope = isEvent ? 'event' : spec.for_each!;
  const notFor = (key: keyof RuleSpec, what: string) => {
    if (spec[key] !== undefined) problems.push({ path: [key], message: `only for ${what} rules` });
  };
  if (isEvent) {
    notFor('for', 'condition');
    notFor('keep_firing_for', 'condition');
  } else {
    notFor('resolve_after', 'event');
    notFor('resolve_on', 'event');
    if (spec.when === undefined) problems.push({ path: ['when'], message: 'required for condition rules' });
  }
  const expr = (key: 'when' | 'value', expect?: 'bool') => {
    const source = spec[key];
    if (source === undefined) return undefined;
    try {
      return cel.compile(scope, source, expect);
    } catch (err) {
      if (!(err instanceof ExpressionError)) throw err;
      problems.push({
        path: [key],
        message: err.message,
        expression: { line: err.line, column: err.column },
      });
      return undefined;
    }
  };
  const when = expr('when', 'bool');
  const value = expr('value');
  const tpl = (group: 'labels' | 'annotations') => {
    const out: Record<string, CompiledTemplate> = {};
    for (const [k, source] of Object.entries(spec[group] ?? {})) {
      try {
        out[k] = templates.compile(source);
      } catch (err) {
        if (!(err instanceof TemplateError)) throw err;
        problems.push({ path: [group, k], message: err.message });
      }
    }
    return out;
  };
  const labels = tpl('labels');
  const annotations = tpl('annotations');
  let generatorURL: CompiledTemplate | undefined;
  if (spec.generator_url !== undefined) {
    try {
      generatorURL = templates.compile(spec.generator_url);
    } catch (err) {
      if (!(err instanceof TemplateError)) throw err;
      problems.push({ path: ['generator_url'], message: err.message });
    }
  }
  if (problems.length > 0) return { rule: undefined, problems };

  const on = asList(spec.on);
  const upstream = isEvent
    ? on.every((p) => p.startsWith('upstream.'))
    : (when?.variables.has('upstream') ?? false);
  const base: CompiledRuleBase = {
    name: spec.name,
    severity: spec.severity,
    labels,
    annotations,
    generatorURL,
    sendResolved: spec.send_resolved ?? !isEvent,
    repeatInterval: spec.repeat_interval,
    inhibitable: spec.inhibitable ?? !upstream,
    upstream,
    value,
  };
  if (isEvent) {
    const resolveOn = asList(spec.resolve_on);
    return {
      rule: {
        ...base,
        kind: 'event',
        on: kindMatcher(on),
        when,
        resolveAfter: spec.resolve_after ?? DEFAULT_RESOLVE_AFTER_MS,
        resolveOn: resolveOn.length > 0 ? kindMatcher(resolveOn) : undefined,
      },
      problems: [],
    };
  }
  return {
    rule: {
      ...base,
      kind: 'condition',
      forEach: spec.for_each!,
      when: when!,
      forMs: spec.for ?? 0,
      keepFiringFor: spec.keep_firing_for ?? 0,
    },
    problems: [],
  };
}

/** Checks one rule for config validation: every problem, paths relative to the rule. */
export function checkRule(spec: RuleSpec): RuleProblem[] {
  return compileRule(spec, new CelEnvironments(), new Templates()).problems;
}

/** Compiles every rule; throws {@link ConfigError} listing all problems (config is normally pre-validated). */
export function compileRules(
  specs: readonly RuleSpec[],
  cel: CelEnvironments,
  templates: Templates,
): CompiledRule[] {
  const out: CompiledRule[] = [];
  const problems: string[] = [];
  specs.forEach((spec, i) => {
    const r = compileRule(spec, cel, templates);
    if (r.rule) out.push(r.rule);
    for (const p of r.problems)
      problems.push(`rules[${i}]${p.path.map((s) => `.${s}`).join('')}: ${p.message}`);
  });
  if (problems.length > 0) throw new ConfigError('rules', problems);
  return out;
}
