/**
 * The problems of a config, in words a user reads, each with its YAML path and line:column,
 * e.g. `orgs[0].token: required (line 12, column 5)`. A value under a secret key (see
 * {@link SECRET_KEYS}) is never printed in a problem.
 */
import { isMap, isScalar, isSeq, type Node } from 'yaml';
import type { z } from 'zod';
import { SECRET_KEYS } from './schema.js';
import { type At, nodeOffset, type PathSeg } from './yaml.js';

/** Formats a path the way users read it: `orgs[0].token`. */
export function formatPath(p: readonly PathSeg[]): string {
  let out = '';
  for (const seg of p) out += typeof seg === 'number' ? `[${seg}]` : out === '' ? seg : `.${seg}`;
  return out || '(root)';
}

/** Reports a problem at `p` (at its key when `key`), `shift` characters into its value. */
export type Report = (p: readonly PathSeg[], msg: string, key?: boolean, shift?: number) => void;

/** The problems of one config text, in the order of their place in the file. */
export interface ProblemList {
  report: Report;
  /** A problem whose cause is known: the schema's issue at the same path is not reported again. */
  caused: (p: PathSeg[], msg: string) => void;
  /** The schema's issues, but those at a path that already has its cause reported. */
  schemaIssues: (issues: readonly z.core.$ZodIssue[]) => void;
  /** Every problem once, sorted by its place in the file. */
  texts: () => string[];
}

/** Collects the problems of the document `root`, placed by `at`. */
export function problemList(root: Node | null, at: At): ProblemList {
  const problems: { offset: number; text: string }[] = [];
  const failedPaths = new Set<string>();
  const report: Report = (p, msg, key = false, shift = 0) => {
    // An empty document has nothing to point at but its start.
    const base = nodeOffset(root, p, key) ?? 0;
    const offset = base + shift;
    problems.push({ offset: offset ?? 0, text: `${formatPath(p)}: ${msg}${at(offset)}` });
  };
  return {
    report,
    caused: (p, msg) => {
      failedPaths.add(formatPath(p));
      report(p, msg);
    },
    schemaIssues: (issues) => {
      for (const issue of issues) {
        const p = issue.path.filter((s): s is PathSeg => typeof s !== 'symbol');
        if (failedPaths.has(formatPath(p))) continue; // already reported, with its cause
        describeIssue(issue, p, report, expressionShift(root, p, issue));
      }
    },
    texts: () => {
      problems.sort((a, b) => a.offset - b.offset);
      return [...new Set(problems.map((p) => p.text))];
    },
  };
}

/**
 * For an error inside an expression (a rule's `when`), how far into the YAML value the
 * error is, so the position points at the character: only for one-line plain or quoted
 * values, where a column of the expression is a column of the file.
 */
function expressionShift(root: Node | null, p: readonly PathSeg[], issue: z.core.$ZodIssue): number {
  const where = (issue as { params?: { expression?: { line: number; column: number } } }).params?.expression;
  if (where?.line !== 1) return 0;
  let node: unknown = root;
  for (const seg of p) {
    if (isMap(node))
      node = node.items.find((it) => isScalar(it.key) && String(it.key.value) === String(seg))?.value;
    else if (isSeq(node) && typeof seg === 'number') node = node.items[seg];
    else return 0;
  }
  if (!isScalar(node)) return 0;
  const quoted = node.type === 'QUOTE_SINGLE' || node.type === 'QUOTE_DOUBLE';
  if (!quoted && node.type !== 'PLAIN') return 0;
  return (quoted ? 1 : 0) + where.column - 1;
}

/** Reports a schema issue in words a user reads: `orgs[0].token: required (line 3, column 5)`. */
function describeIssue(issue: z.core.$ZodIssue, p: PathSeg[], report: Report, shift = 0): void {
  if (issue.code === 'unrecognized_keys') {
    for (const k of issue.keys) report([...p, k], 'unknown key', true);
    return;
  }
  const input = 'input' in issue ? issue.input : undefined;
  if (issue.code === 'invalid_type' && input === undefined) {
    report(p, 'required');
    return;
  }
  // A refinement's input is the object it checked, not the value at the path: not worth printing.
  const found =
    issue.code === 'custom' && typeof input === 'object' && input !== null ? '' : foundText(input, p);
  let msg = issue.message;
  if (issue.code === 'invalid_value')
    msg = `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
  else if (issue.code === 'invalid_type') msg = `expected ${issue.expected}`;
  else if (issue.code === 'invalid_format' && msg.startsWith('Invalid')) msg = `expected ${issue.format}`;
  else if (issue.code === 'too_small' && msg.startsWith('Too small'))
    msg = `must be at least ${String(issue.minimum)}${issue.origin === 'string' ? ' characters' : issue.origin === 'array' ? ' items' : ''}`;
  else if (issue.code === 'invalid_key')
    msg = p.at(-2) === 'headers' ? 'not a valid HTTP header name' : 'invalid key';
  else if (issue.code === 'too_big' && msg.startsWith('Too big'))
    msg = `must be at most ${String(issue.maximum)}`;
  report(p, `${msg}${found}`, false, shift);
}

const SECRET_KEY_SET: ReadonlySet<string> = new Set(SECRET_KEYS);

/**
 * What a problem says it found. Under a secret key only the kind of value is told, and a
 * map or list has the values of its secret keys hidden: a problem must never print a
 * token or password, whatever its type.
 */
function foundText(input: unknown, p: readonly PathSeg[]): string {
  if (input === undefined) return '';
  const last = p.at(-1);
  // Header values often carry credentials (API keys, bearer tokens): treated as secrets.
  const underHeaders = p.at(-2) === 'headers' || last === 'headers';
  if (((typeof last === 'string' && SECRET_KEY_SET.has(last)) || underHeaders) && input !== null)
    return `, found ${kindOf(input)} (value hidden)`;
  // A URL's user and password are credentials too: hidden before the text is cut short
  // (a long password would push its `@` past the cut), up to the last `@` before the
  // host (a password may hold `@` or spaces).
  const shown = JSON.stringify(redactSecrets(input))
    ?.replace(/\/\/[^/"]*@/g, '//<redacted>@')
    .slice(0, 80);
  return `, found ${shown}`;
}

function kindOf(v: unknown): string {
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a map';
  if (typeof v === 'bigint') return 'a number';
  return `a ${typeof v}`;
}

function redactSecrets(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(redactSecrets);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v).map(([k, x]) => [
      k,
      (SECRET_KEY_SET.has(k) || k === 'headers') && x != null ? '(hidden)' : redactSecrets(x),
    ]),
  );
}
