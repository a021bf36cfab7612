/**
 * Reads a YAML config file into a validated {@link Config}. Every problem is collected
 * and reported at once, each with its YAML path and line:column, e.g.
 * `orgs[0].token: required (line 12, column 5)`.
 *
 * Order: YAML syntax → `${VAR}` interpolation (in scalars only, so the environment can
 * never change the document's structure) → `*_file` secrets → schema.
 *
 * A value under a secret key (see {@link SECRET_KEYS}) is never printed in a problem.
 */
import { constants as fsConstants, type Stats } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import path from 'node:path';
import {
  type Document,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseDocument,
  Schema,
  type ScalarTag,
  visit,
} from 'yaml';
import type { z } from 'zod';
import { ConfigError } from '../core/errors.js';
import { type Config, configSchema, SECRET_KEYS } from './schema.js';

type PathSeg = string | number;

/** Where to read the config from: `--config`, else `TALLY_CONFIG`, else `./tally.yaml`. */
export function resolveConfigPath(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): string {
  return path.resolve(cwd, flag ?? env['TALLY_CONFIG'] ?? 'tally.yaml');
}

/** Formats a path the way users read it: `orgs[0].token`. */
export function formatPath(p: readonly PathSeg[]): string {
  let out = '';
  for (const seg of p) out += typeof seg === 'number' ? `[${seg}]` : out === '' ? seg : `.${seg}`;
  return out || '(root)';
}

/** A loaded configuration with the secrets that must never be printed or logged. */
export interface LoadedConfig {
  config: Config;
  /** Every secret value found (tokens, passwords), for log redaction. */
  secrets: string[];
  /** Absolute path of the file read. */
  path: string;
  /** Valid but likely unintended settings, each with its path and line (`check` prints them, `run` logs them). */
  warnings?: string[];
}

/** Reads and validates the config file at `file`; throws {@link ConfigError} listing every problem. */
export async function loadConfigFile(
  file: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<LoadedConfig> {
  // Like a secret file: a regular file of bounded size, opened without blocking, so that
  // `check` ends at once on a FIFO or a device.
  const read = await readBoundedFile(file, MAX_CONFIG_FILE_BYTES);
  if ('problem' in read) throw new ConfigError(file, [`cannot read config: ${read.problem}`]);
  return parseConfig(read.value, { source: file, env, baseDir: path.dirname(file) });
}

/** Options of {@link parseConfig}. */
export interface ParseOptions {
  /** Name used in error messages (the file path). */
  source: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Directory that relative `*_file` paths are resolved against. */
  baseDir: string;
}

/** Parses and validates config text; throws {@link ConfigError} listing every problem. */
export async function parseConfig(text: string, opts: ParseOptions): Promise<LoadedConfig> {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number | undefined) => {
    if (offset === undefined) return '';
    const { line, col } = lc.linePos(offset);
    return ` (line ${line}, column ${col})`;
  };
  const yamlProblems = [...doc.errors, ...doc.warnings].map(
    (e) => `invalid YAML: ${firstLine(e.message)}${at(e.pos[0])}`,
  );
  if (doc.errors.length > 0) throw new ConfigError(opts.source, yamlProblems);
  const aliasProblems = badAliases(doc).map((a) => `invalid YAML: ${a.message}${at(a.offset)}`);
  if (aliasProblems.length > 0) throw new ConfigError(opts.source, aliasProblems);

  // Problems are sorted by their place in the file, then printed once each.
  const problems: { offset: number; text: string }[] = [];
  const failedPaths = new Set<string>();
  const report = (p: readonly PathSeg[], msg: string, key = false, shift = 0) => {
    // An empty document has nothing to point at but its start.
    const base = nodeOffset(doc.contents, p, key) ?? 0;
    const offset = base + shift;
    problems.push({ offset: offset ?? 0, text: `${formatPath(p)}: ${msg}${at(offset)}` });
  };

  const retyped = interpolate(doc.contents, opts.env, (p, msg) => {
    failedPaths.add(formatPath(p));
    report(p, msg);
  });
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) ?? {};
  } catch (err) {
    // Aliases of aliases that expand past the limit (a "billion laughs" document).
    throw new ConfigError(opts.source, [
      `invalid YAML: ${firstLine((err as Error).message).toLowerCase()}: aliases would expand to more than ${MAX_ALIAS_COUNT} nodes${at(firstNestedAlias(doc))}`,
    ]);
  }
  defaultStateDir(raw, opts.env['TALLY_STATE_DIR']);
  const secrets: string[] = [];
  await resolveSecretFiles(raw, [], opts.baseDir, secrets, (p, msg) => {
    failedPaths.add(formatPath(p));
    report(p, msg);
  });

  let parsed = configSchema.safeParse(raw, { reportInput: true });
  // A key that takes text keeps an interpolated `${VAR}` as text, even when it reads as a number.
  while (!parsed.success && backToText(raw, parsed.error.issues, retyped))
    parsed = configSchema.safeParse(raw, { reportInput: true });
  crossChecks(raw, report);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const p = issue.path.filter((s): s is PathSeg => typeof s !== 'symbol');
      if (failedPaths.has(formatPath(p))) continue; // already reported, with its cause
      describeIssue(issue, p, report, expressionShift(doc.contents, p, issue));
    }
  }
  if (problems.length > 0 || !parsed.success) {
    problems.sort((a, b) => a.offset - b.offset);
    throw new ConfigError(opts.source, [...new Set(problems.map((p) => p.text))]);
  }
  const config = parsed.data;
  collectSecrets(config, secrets);
  const warnings = configWarnings(config).map(
    (w) => `${formatPath(w.path)}: ${w.message}${at(nodeOffset(doc.contents, w.path, false))}`,
  );
  return {
    config,
    secrets: [...new Set(secrets)],
    path: opts.source,
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}

/**
 * `TALLY_STATE_DIR` is the state directory when the config does not name one: the
 * container image sets it to its volume, so a config without `state.dir` works there as
 * it does anywhere else (docs/operations.md).
 */
function defaultStateDir(raw: unknown, fromEnv: string | undefined): void {
  if (fromEnv === undefined || fromEnv === '' || raw === null || typeof raw !== 'object') return;
  const root = raw as Record<string, unknown>;
  const state = root['state'];
  if (state === undefined || state === null) root['state'] = { dir: fromEnv };
  else if (
    typeof state === 'object' &&
    !Array.isArray(state) &&
    (state as Record<string, unknown>)['dir'] === undefined
  ) {
    (state as Record<string, unknown>)['dir'] = fromEnv;
  }
}

/** Alias expansions a config may use; a config needs a handful, an attack needs millions. */
const MAX_ALIAS_COUNT = 100;

/** Where the first alias to a node that itself holds aliases is (where expansion multiplies). */
function firstNestedAlias(doc: Document): number | undefined {
  let first: number | undefined;
  let any: number | undefined;
  visit(doc, {
    Alias(_key, alias) {
      any ??= alias.range?.[0];
      const target = alias.resolve(doc);
      let nested = false;
      if (target) {
        visit(target as never, {
          Alias: () => {
            nested = true;
            return visit.BREAK;
          },
        });
      }
      if (nested && first === undefined) {
        first = alias.range?.[0];
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return first ?? any;
}

/**
 * Aliases that cannot be expanded: one whose anchor is not set before it, and one inside
 * the node its anchor names (a cycle, which would expand forever).
 */
function badAliases(doc: Document): { message: string; offset: number | undefined }[] {
  const out: { message: string; offset: number | undefined }[] = [];
  visit(doc, {
    Alias(_key, alias, ancestors) {
      const target = alias.resolve(doc);
      const offset = alias.range?.[0];
      if (target === undefined) {
        out.push({ message: `alias *${alias.source} has no anchor &${alias.source} before it`, offset });
      } else if (ancestors.includes(target as never)) {
        out.push({ message: `alias *${alias.source} refers to a node that contains it (a cycle)`, offset });
      }
    },
  });
  return out;
}

function firstLine(s: string): string {
  return s.split('\n')[0] ?? s;
}

/** Offset in the text of the node at `p` (or of its key), else of its nearest existing parent. */
function nodeOffset(root: Node | null, p: readonly PathSeg[], key: boolean): number | undefined {
  let node: unknown = root;
  let best: number | undefined = (root as Node | null)?.range?.[0];
  for (let i = 0; i < p.length; i++) {
    const seg = p[i];
    if (isMap(node)) {
      const pair = node.items.find((it) => isScalar(it.key) && String(it.key.value) === String(seg));
      if (!pair) return best;
      const last = i === p.length - 1;
      if (last && key && isScalar(pair.key)) return pair.key.range?.[0];
      node = pair.value;
      best = (pair.value as Node | null)?.range?.[0] ?? (pair.key as Node | null)?.range?.[0] ?? best;
    } else if (isSeq(node) && typeof seg === 'number') {
      node = node.items[seg];
      if (node === undefined) return best;
      best = (node as Node).range?.[0] ?? best;
    } else {
      return best;
    }
  }
  return best;
}

const VAR = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;
/** A scalar that is nothing but `${…}` references: its whole value comes from interpolation. */
const ONLY_REFS = /^(?:\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\})+$/;

/** The YAML 1.2 core schema's boolean, integer and float forms (`true`, `0x1F`, `1e3`, `.inf`). */
const CORE_TYPED_TAGS = new Schema({ schema: 'core' }).tags.filter(
  (t): t is ScalarTag & { test: RegExp } =>
    'test' in t &&
    t.test instanceof RegExp &&
    ['tag:yaml.org,2002:bool', 'tag:yaml.org,2002:int', 'tag:yaml.org,2002:float'].includes(t.tag),
);

/**
 * Reads interpolated text the way YAML reads a plain scalar, but only as a boolean or a
 * number: null, `~` and an empty result stay text, since an environment variable cannot
 * remove a key and no key of tally takes null.
 */
function coreScalar(text: string): string | number | boolean {
  for (const tag of CORE_TYPED_TAGS) {
    if (!tag.test.test(text)) continue;
    const resolved = tag.resolve(text, () => undefined, { intAsBigInt: false });
    // The core boolean tag resolves to a Scalar node, the number tags to plain values.
    const value = isScalar(resolved) ? resolved.value : resolved;
    if (typeof value === 'number' || typeof value === 'boolean') return value;
  }
  return text;
}

/** Interpolated scalars now holding a number or boolean, by formatted path, with their text. */
type Retyped = Map<string, { path: PathSeg[]; text: string }>;

/**
 * Replaces `${VAR}` and `${VAR:-default}` in every string scalar; `$${` is a literal `${`.
 * A plain (unquoted, untagged) value made only of references is then read as a YAML scalar,
 * so `${BUDGET:-200}` is the number 200; quoted values and mixed text stay strings.
 */
function interpolate(
  root: Node | null,
  env: Readonly<Record<string, string | undefined>>,
  problem: (p: PathSeg[], msg: string) => void,
): Retyped {
  const retyped: Retyped = new Map();
  if (!root) return retyped;
  visit(root, {
    Scalar(key, node, ancestry) {
      if (typeof node.value !== 'string' || !node.value.includes('$')) return;
      const p = pathOf(ancestry, node);
      const whole =
        key !== 'key' && node.type === 'PLAIN' && node.tag === undefined && ONLY_REFS.test(node.value);
      let failed = false;
      const text = node.value.replace(VAR, (match, name: string | undefined, def: string | undefined) => {
        if (match === '$${') return '${';
        const v = env[name!];
        if (v !== undefined && v !== '') return v;
        if (def !== undefined) return def;
        failed = true;
        problem(p, `environment variable ${name} is not set (write \${${name}:-default} for a default)`);
        return '';
      });
      const typed = whole && !failed ? coreScalar(text) : text;
      node.value = typed;
      if (typed !== text) retyped.set(formatPath(p), { path: p, text });
    },
  });
  return retyped;
}

/**
 * Puts the text back into interpolated values that the schema wants as strings (a token or
 * a label value that happens to be all digits). Returns whether anything changed.
 */
function backToText(raw: unknown, issues: readonly z.core.$ZodIssue[], retyped: Retyped): boolean {
  let changed = false;
  for (const issue of issues) {
    if (issue.code !== 'invalid_type' || issue.expected !== 'string') continue;
    const p = issue.path.filter((s): s is PathSeg => typeof s !== 'symbol');
    const entry = retyped.get(formatPath(p));
    if (!entry) continue;
    const parent = entry.path
      .slice(0, -1)
      .reduce<unknown>((n, seg) => (n as Record<PathSeg, unknown>)?.[seg], raw);
    const last = entry.path.at(-1);
    if (parent === null || typeof parent !== 'object' || last === undefined) continue;
    (parent as Record<PathSeg, unknown>)[last] = entry.text;
    retyped.delete(formatPath(p));
    changed = true;
  }
  return changed;
}

/** The config path of a node from the ancestry `visit` hands over. */
function pathOf(ancestry: readonly unknown[], node: unknown): PathSeg[] {
  const out: PathSeg[] = [];
  const chain = [...ancestry, node];
  for (let i = 0; i < chain.length - 1; i++) {
    const parent = chain[i];
    const child = chain[i + 1];
    if (isSeq(parent)) out.push(parent.items.indexOf(child as never));
    else if (isPair(child) && isScalar(child.key)) out.push(String(child.key.value));
  }
  return out;
}

/** Reads every `<secret>_file` into `<secret>`; both set, or an unreadable file, is an error. */
async function resolveSecretFiles(
  node: unknown,
  p: PathSeg[],
  baseDir: string,
  secrets: string[],
  problem: (p: PathSeg[], msg: string) => void,
): Promise<void> {
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++)
      await resolveSecretFiles(node[i], [...p, i], baseDir, secrets, problem);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const obj = node as Record<string, unknown>;
  for (const key of SECRET_KEYS) {
    const fileKey = `${key}_file`;
    const file = obj[fileKey];
    if (file === undefined) continue;
    if (obj[key] !== undefined) {
      problem([...p, fileKey], `set either ${key} or ${fileKey}, not both`);
      continue;
    }
    if (typeof file !== 'string' || file === '') continue; // the schema reports the type
    const read = await readSecretFile(path.resolve(baseDir, file));
    if ('problem' in read) problem([...p, fileKey], `${file}: ${read.problem}`);
    else if (read.value === '') problem([...p, fileKey], `file ${file} is empty`);
    else {
      obj[key] = read.value;
      secrets.push(read.value);
    }
  }
  for (const [k, v] of Object.entries(obj)) await resolveSecretFiles(v, [...p, k], baseDir, secrets, problem);
}

/** A secret file larger than this is refused: secrets are short, and reading must stay bounded. */
export const MAX_SECRET_FILE_BYTES = 64 * 1024;

/**
 * Reads a secret file: a regular file of at most {@link MAX_SECRET_FILE_BYTES}. It is
 * opened without blocking, so a FIFO, a device or a directory is refused at once instead
 * of hanging `tally check` or the start.
 */
async function readSecretFile(file: string): Promise<{ value: string } | { problem: string }> {
  const read = await readBoundedFile(file, MAX_SECRET_FILE_BYTES);
  return 'problem' in read
    ? {
        problem:
          read.problem.startsWith('not a') || read.problem.startsWith('larger')
            ? read.problem
            : `cannot read it: ${read.problem}`,
      }
    : { value: read.value.trim() };
}

/** A config file larger than this is refused (a config is a few kilobytes). */
const MAX_CONFIG_FILE_BYTES = 4 * 1024 * 1024;

/** Reads a regular file of at most `max` bytes without blocking; says why not otherwise. */
async function readBoundedFile(file: string, max: number): Promise<{ value: string } | { problem: string }> {
  const limit = max >= 1024 * 1024 ? `${max / (1024 * 1024)} MiB` : `${max / 1024} KiB`;
  let handle: FileHandle | undefined;
  try {
    handle = await open(file, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
    const st = await handle.stat();
    if (!st.isFile()) return { problem: `not a regular file (${fileKind(st)})` };
    if (st.size > max) return { problem: `larger than ${limit} (${st.size} bytes)` };
    const buf = Buffer.alloc(max + 1);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    if (bytesRead > max) return { problem: `larger than ${limit}` };
    return { value: buf.subarray(0, bytesRead).toString('utf8') };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'file not found' : code === 'EACCES' ? 'permission denied' : (code ?? 'error');
    return { problem: why };
  } finally {
    await handle?.close().catch(() => {});
  }
}

function fileKind(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSocket()) return 'a socket';
  return 'not a file';
}

type Report = (p: readonly PathSeg[], msg: string, key?: boolean, shift?: number) => void;

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

/** Rules that span fields, checked on the raw input so they show beside schema problems. */
function crossChecks(raw: unknown, report: Report): void {
  const root = (raw ?? {}) as Record<string, unknown>;
  const orgs = Array.isArray(root['orgs']) ? (root['orgs'] as unknown[]) : [];
  const seen = new Map<unknown, number>();
  orgs.forEach((org, i) => {
    if (org === null || typeof org !== 'object') return;
    const o = org as Record<string, unknown>;
    if (o['token'] === undefined && o['token_file'] === undefined)
      report(['orgs', i], 'token or token_file is required');
    const prev = seen.get(o['slug']);
    if (prev !== undefined) report(['orgs', i, 'slug'], `duplicate of orgs[${prev}].slug`);
    else if (o['slug'] !== undefined) seen.set(o['slug'], i);
  });
  const server = root['server'] as Record<string, unknown> | undefined;
  const basic = (server?.['auth'] as Record<string, unknown> | undefined)?.['basic'] as
    | Record<string, unknown>
    | undefined;
  if (
    basic &&
    typeof basic === 'object' &&
    basic['password'] === undefined &&
    basic['password_file'] === undefined
  ) {
    report(['server', 'auth', 'basic'], 'password or password_file is required');
  }
}

/** Every value under a secret key anywhere in the config, for log redaction. */
function collectSecrets(node: unknown, into: string[]): void {
  if (Array.isArray(node)) {
    for (const v of node) collectSecrets(v, into);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  for (const [k, v] of Object.entries(node)) {
    if ((SECRET_KEYS as readonly string[]).includes(k) && typeof v === 'string') into.push(v);
    else collectSecrets(v, into);
  }
}

/** Settings that are valid but probably not what was meant. */
function configWarnings(config: Config): { path: PathSeg[]; message: string }[] {
  const out: { path: PathSeg[]; message: string }[] = [];
  if (config.log.format !== 'pretty') {
    config.receivers.forEach((r, i) => {
      if (r.type === 'log' && r.log.format === 'text')
        out.push({
          path: ['receivers', i, 'log', 'format'],
          message:
            'text writes multi-line blocks into a log of JSON lines (log.format is not pretty), which log pipelines cannot parse; use json or auto',
        });
    });
  }
  return out;
}
