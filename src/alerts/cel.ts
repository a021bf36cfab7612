/**
 * Rule expressions in CEL (`@marcbachmann/cel-js`): one type-checked environment per
 * scope, compiled once when the config loads, evaluated many times. A syntax error, an
 * unknown variable or field, or a type mismatch is a config error that says where in the
 * expression it is.
 *
 * Helpers beyond standard CEL: `since(t)` and `until(t)` (durations from and to now),
 * `days(n)` (CEL durations stop at hours), `is_live(s)`, `is_ended(s)`, `is_scheduled(s)`, `status_class(s)`, `channel_class(s)`, `visibility_class(s)`
 * (tally's families of upstream status strings), `expected_on_air(session, margin)` (live, or
 * planned to be on air within `margin` of now).
 */
import { Environment } from '@marcbachmann/cel-js';
import { Duration } from '@marcbachmann/cel-js/evaluator';
import { TallyError } from '../core/errors.js';
import { isEndedStatus, isLiveStatus, isScheduledStatus } from '../snapshot/status.js';
import { channelClass, statusClass, visibilityClass } from '../snapshot/vocabulary.js';
import {
  CEL_TYPES,
  celTypeName,
  type FieldType,
  makeTypeClasses,
  SCOPE_VARIABLES,
  type Scope,
  type TypeClasses,
} from './cel-types.js';

const TS = 'google.protobuf.Timestamp';
const DUR = 'google.protobuf.Duration';
const DAY_MS = 86_400_000;

/** An expression that does not compile; `column` and `line` are 1-based, within the expression. */
export class ExpressionError extends TallyError {
  /** The problem without position, e.g. `Unknown variable: subscriptio`. */
  readonly summary: string;
  readonly line: number;
  readonly column: number;

  constructor(summary: string, source: string, offset: number) {
    const { line, column } = positionIn(source, offset);
    const where = source.includes('\n') ? `expression line ${line}, column ${column}` : `column ${column}`;
    super(`${summary} (at ${where} of the expression)`, { reason: 'expression' });
    this.summary = summary;
    this.line = line;
    this.column = column;
  }
}

/** Line and column (1-based) of an offset within a text. */
export function positionIn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lines = before.split('\n');
  return { line: lines.length, column: (lines[lines.length - 1]?.length ?? 0) + 1 };
}

/** A compiled expression. */
export interface CompiledExpression {
  source: string;
  scope: Scope;
  /** The scope variables the expression reads (to skip it while one is unknown). */
  variables: ReadonlySet<string>;
  /** CEL's type of the result, e.g. `bool`. */
  type: string;
  /** Evaluates against a context built by {@link CelEnvironments.context}; throws on errors. */
  evaluate(context: Record<string, unknown>): unknown;
}

type Node = { op: string; args: unknown };

/**
 * The environments of all scopes, sharing one set of types and one notion of "now" that
 * the evaluator sets before each pass (`since` and `until` read it).
 */
export class CelEnvironments {
  /** Classes of the object types; contexts must be built with these. */
  readonly classes: TypeClasses;
  private readonly envs: Record<Scope, Environment>;
  private nowMs = 0;
  /** How many times a helper read "now" (`since`, `until`, `expected_on_air`). */
  private nowReadCount = 0;

  constructor() {
    this.classes = makeTypeClasses();
    const base = new Environment({ homogeneousAggregateLiterals: false });
    for (const [name, fields] of Object.entries(CEL_TYPES)) {
      const celFields: Record<string, string> = {};
      for (const [k, t] of Object.entries(fields)) celFields[k] = celTypeName(t as FieldType);
      base.registerType(name, { ctor: this.classes[name as keyof TypeClasses], fields: celFields });
    }
    const ms = (n: number | bigint) => Duration.fromMilliseconds(Number(n) * DAY_MS);
    base
      .registerFunction(
        `since(${TS}): ${DUR}`,
        (t: Date) => Duration.fromMilliseconds(this.readNow() - t.getTime()),
        {
          description: 'Time from t until now.',
        },
      )
      .registerFunction(
        `until(${TS}): ${DUR}`,
        (t: Date) => Duration.fromMilliseconds(t.getTime() - this.readNow()),
        {
          description: 'Time from now until t (negative once t has passed).',
        },
      )
      .registerFunction(`days(int): ${DUR}`, ms, { description: 'A duration of n days.' })
      .registerFunction(`days(double): ${DUR}`, ms, { description: 'A duration of n days.' })
      .registerFunction(
        `expected_on_air(Session, ${DUR}): bool`,
        (s: { live?: boolean; scheduled_at?: Date; scheduled_end_at?: Date }, margin: Duration) =>
          expectedOnAir(s, Number(margin.valueOf()), this.readNow()),
        { description: 'Whether a session is live, or planned to be on air within margin of now.' },
      )
      .registerFunction('is_live(string): bool', (s: string) => isLiveStatus(s))
      .registerFunction('is_ended(string): bool', (s: string) => isEndedStatus(s))
      .registerFunction('is_scheduled(string): bool', (s: string) => isScheduledStatus(s))
      .registerFunction('status_class(string): string', (s: string) => statusClass(s), {
        description: 'Class of a session status word: scheduled, live, ended, canceled, failed or unknown.',
      })
      .registerFunction('channel_class(string): string', (s: string) => channelClass(s), {
        description: 'Class of a channel status word: live, offline or unknown.',
      })
      .registerFunction('visibility_class(string): string', (s: string) => visibilityClass(s), {
        description: 'Class of a visibility word: public, private, unlisted or unknown.',
      });
    const envs = {} as Record<Scope, Environment>;
    for (const [scope, vars] of Object.entries(SCOPE_VARIABLES)) {
      const env = base.clone();
      env.registerVariable('now', TS);
      for (const [name, t] of Object.entries(vars)) env.registerVariable(name, celTypeName(t));
      envs[scope as Scope] = env;
    }
    this.envs = envs;
  }

  /** The functions tally adds to standard CEL, by name (docs/alerts.md, "Helpers"). */
  helperNames(): string[] {
    const standard = new Set(new Environment().getDefinitions().functions.map((f) => f.name));
    const all = this.envs.org.getDefinitions().functions.map((f) => f.name);
    return [...new Set(all.filter((name) => !standard.has(name)))];
  }

  /** Sets the time that `now`, `since` and `until` refer to for the next evaluations. */
  setNow(ms: number): void {
    this.nowMs = ms;
  }

  private readNow(): number {
    this.nowReadCount++;
    return this.nowMs;
  }

  /**
   * How many times a helper has read "now" so far: an evaluation that left it unchanged
   * gives the same result at any other time (the evaluator's memo of quiet conditions).
   */
  get nowReads(): number {
    return this.nowReadCount;
  }

  /** Compiles and type-checks an expression; throws {@link ExpressionError}. */
  compile(scope: Scope, source: string, expect?: 'bool'): CompiledExpression {
    let parsed: ReturnType<Environment['parse']>;
    try {
      parsed = this.envs[scope].parse(source);
    } catch (err) {
      throw toExpressionError(err, source);
    }
    let checked: ReturnType<typeof parsed.check>;
    try {
      checked = parsed.check();
    } catch (err) {
      throw toExpressionError(err, source);
    }
    if (!checked.valid) throw toExpressionError(checked.error, source);
    const type = checked.type ?? 'dyn';
    if (expect === 'bool' && type !== 'bool' && type !== 'dyn') {
      throw new ExpressionError(`must be a true/false condition, but its type is ${type}`, source, 0);
    }
    this.checkLiterals(scope, parsed.ast as unknown as Node, source);
    const known = new Set(['now', ...Object.keys(SCOPE_VARIABLES[scope])]);
    const variables = new Set<string>();
    collectIdentifiers(parsed.ast as unknown as Node, known, variables);
    return { source, scope, variables, type, evaluate: (ctx) => parsed(ctx) };
  }

  /**
   * Evaluates `duration("…")` and `timestamp("…")` of a literal string once, so that a
   * literal that can never work (`duration("7d")`) is an error when the config loads, not
   * at every evaluation.
   */
  private checkLiterals(scope: Scope, node: unknown, source: string): void {
    if (Array.isArray(node)) {
      for (const n of node) this.checkLiterals(scope, n, source);
      return;
    }
    if (node === null || typeof node !== 'object' || !('op' in node)) return;
    const n = node as Node & { start?: number };
    if (n.op === 'call' && Array.isArray(n.args)) {
      const [name, args] = n.args as [unknown, unknown];
      const arg = Array.isArray(args) && args.length === 1 ? (args[0] as Node) : undefined;
      if (
        (name === 'duration' || name === 'timestamp') &&
        arg?.op === 'value' &&
        typeof arg.args === 'string'
      ) {
        try {
          this.envs[scope].evaluate(`${name}(${JSON.stringify(arg.args)})`);
        } catch (err) {
          const why = firstLine((err as Error).message ?? 'invalid');
          const hint =
            name === 'duration'
              ? ' (CEL durations use h, m, s, ms, us and ns, e.g. "168h"; for days use days(7))'
              : ' (an RFC 3339 time such as "2030-01-01T00:00:00Z")';
          throw new ExpressionError(`${why}${hint}`, source, n.start ?? 0);
        }
      }
    }
    if (n.op === 'value') return;
    this.checkLiterals(scope, n.args, source);
  }
}

/**
 * Whether a session is live, or its planned time range widened by `margin` on both sides
 * holds `now`. A session with a planned start and no planned end counts as planned for
 * `margin` either side of its start.
 */
export function expectedOnAir(
  s: { live?: boolean; scheduled_at?: Date; scheduled_end_at?: Date },
  margin: number,
  now: number,
): boolean {
  if (s.live === true) return true;
  const start = s.scheduled_at?.getTime();
  if (start === undefined) return false;
  const end = Math.max(start, s.scheduled_end_at?.getTime() ?? start);
  return now >= start - margin && now <= end + margin;
}

function toExpressionError(err: unknown, source: string): ExpressionError {
  const e = err as { summary?: string; message?: string; range?: { start: number } } | undefined;
  const summary = e?.summary ?? firstLine(e?.message ?? 'invalid expression');
  return new ExpressionError(summary, source, e?.range?.start ?? 0);
}

function firstLine(s: string): string {
  return s.split('\n')[0] ?? s;
}

/** Collects the identifiers of `known` that the expression refers to. */
function collectIdentifiers(node: unknown, known: ReadonlySet<string>, into: Set<string>): void {
  if (Array.isArray(node)) {
    for (const n of node) collectIdentifiers(n, known, into);
    return;
  }
  if (node === null || typeof node !== 'object' || !('op' in node)) return;
  const n = node as Node;
  if (n.op === 'id' && typeof n.args === 'string') {
    if (known.has(n.args)) into.add(n.args);
    return;
  }
  if (n.op === 'value') return;
  collectIdentifiers(n.args, known, into);
}
