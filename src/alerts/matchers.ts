/**
 * Label matchers in Alertmanager's syntax: `name = "value"`, `!=`, `=~` and `!~` (regular
 * expressions anchored at both ends). A label that is absent matches as the empty string,
 * as in Alertmanager, so `team != "ops"` holds for an alert without a `team` label.
 */
import { TallyError } from '../core/errors.js';

/** The four matcher operators. */
export type MatchOp = '=' | '!=' | '=~' | '!~';

/** One parsed matcher. */
export interface Matcher {
  name: string;
  op: MatchOp;
  value: string;
}

/** A matcher string that cannot be parsed; the message says what is wrong. */
export class MatcherError extends TallyError {
  constructor(message: string) {
    super(message, { reason: 'matcher' });
  }
}

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const MATCHER = /^\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*(.*?)\s*$/s;

/** Parses `org = "acme"` (or `org=acme`); throws {@link MatcherError} when malformed. */
export function parseMatcher(text: string): Matcher {
  const m = MATCHER.exec(text);
  if (!m) {
    throw new MatcherError(`"${text}" is not a matcher such as org = "acme" (operators =, !=, =~, !~)`);
  }
  const name = m[1]!;
  const op = m[2] as MatchOp;
  const value = unquote(m[3]!);
  if (op === '=~' || op === '!~') compileRegex(value);
  return { name, op, value };
}

/** Checks a label name (`[a-zA-Z_][a-zA-Z0-9_]*`). */
export function isLabelName(name: string): boolean {
  return LABEL_NAME.test(name);
}

function unquote(raw: string): string {
  if (raw.startsWith('"')) {
    if (raw.length < 2 || !raw.endsWith('"') || raw.endsWith('\\"')) {
      throw new MatcherError(`unterminated quoted value ${raw}`);
    }
    try {
      return JSON.parse(raw) as string;
    } catch {
      throw new MatcherError(`invalid escape in quoted value ${raw}`);
    }
  }
  if (/[",{}\s]/.test(raw) || /^[=~!]/.test(raw)) throw new MatcherError(`quote the value ${raw}`);
  return raw;
}

function compileRegex(source: string): RegExp {
  try {
    return new RegExp(`^(?:${source})$`, 'u');
  } catch (err) {
    throw new MatcherError(`invalid regular expression ${JSON.stringify(source)}: ${(err as Error).message}`);
  }
}

/** A matcher ready to test labels; regular expressions are compiled once. */
export interface CompiledMatcher extends Matcher {
  test(labels: Readonly<Record<string, string>>): boolean;
}

/** Compiles a parsed matcher. */
export function compileMatcher(m: Matcher): CompiledMatcher {
  const re = m.op === '=~' || m.op === '!~' ? compileRegex(m.value) : undefined;
  const test = (labels: Readonly<Record<string, string>>): boolean => {
    const v = labels[m.name] ?? '';
    switch (m.op) {
      case '=':
        return v === m.value;
      case '!=':
        return v !== m.value;
      case '=~':
        return re!.test(v);
      case '!~':
        return !re!.test(v);
    }
  };
  return { ...m, test };
}

/** Parses and compiles a list of matcher strings. */
export function compileMatchers(texts: readonly string[]): CompiledMatcher[] {
  return texts.map((t) => compileMatcher(parseMatcher(t)));
}

/** Whether every matcher holds for the labels (an empty list matches everything). */
export function matchesAll(
  ms: readonly CompiledMatcher[],
  labels: Readonly<Record<string, string>>,
): boolean {
  for (const m of ms) if (!m.test(labels)) return false;
  return true;
}

/** Formats a matcher the way Alertmanager prints it: `org="acme"`. */
export function formatMatcher(m: Matcher): string {
  return `${m.name}${m.op}${JSON.stringify(m.value)}`;
}
