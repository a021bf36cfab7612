/**
 * The house rules of docs/architecture.md ("House rules"), checked by reading source text:
 * `core/` imports nothing above it, only `src/main.ts` touches `process`, every
 * `docs/X.md, "Heading"` a comment cites exists, and no file or function is too big.
 * Each check is a pure function of the files it is given, so a test can run it on the
 * tree and on a bad example alike.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import ts from 'typescript';

/** One source file, by its path from the repository root (`src/core/log.ts`). */
export interface Source {
  path: string;
  text: string;
}

/** One broken rule, where. */
export interface Finding {
  path: string;
  line: number;
  message: string;
}

/** Longest file in `src/`, in lines. */
export const MAX_FILE_LINES = 600;
/** Longest function, method or arrow in `src/`, in lines. */
export const MAX_FUNCTION_LINES = 120;

/** Every `.ts` file under `dir` (a path from `root`), sorted. */
export function readSources(root: string, dir: string): Source[] {
  const out: Source[] = [];
  const walk = (rel: string): void => {
    for (const e of readdirSync(join(root, rel), { withFileTypes: true })) {
      const child = posix.join(rel, e.name);
      if (e.isDirectory()) walk(child);
      else if (e.name.endsWith('.ts'))
        out.push({ path: child, text: readFileSync(join(root, child), 'utf8') });
    }
  };
  walk(dir);
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function parse(src: Source): ts.SourceFile {
  return ts.createSourceFile(src.path, src.text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
}

function lineOf(file: ts.SourceFile, pos: number): number {
  return file.getLineAndCharacterOfPosition(pos).line + 1;
}

function walk(node: ts.Node, visit: (n: ts.Node) => void): void {
  visit(node);
  ts.forEachChild(node, (child) => walk(child, visit));
}

/** The module specifiers a file names: imports, re-exports, `import()` and `import('x')` types. */
function specifiers(file: ts.SourceFile): { spec: string; pos: number }[] {
  const out: { spec: string; pos: number }[] = [];
  walk(file, (n) => {
    let lit: ts.Node | undefined;
    if (ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) lit = n.moduleSpecifier;
    else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword)
      lit = n.arguments[0];
    else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument)) lit = n.argument.literal;
    if (lit && ts.isStringLiteral(lit)) out.push({ spec: lit.text, pos: lit.getStart(file) });
  });
  return out;
}

/** Rule 1: a file under `src/core/` imports only `src/core/`, Node and packages. */
export function coreImportFindings(sources: readonly Source[]): Finding[] {
  const out: Finding[] = [];
  for (const src of sources) {
    if (!src.path.startsWith('src/core/')) continue;
    const file = parse(src);
    for (const { spec, pos } of specifiers(file)) {
      if (!spec.startsWith('.')) continue;
      const target = posix.join(posix.dirname(src.path), spec);
      if (!target.startsWith('src/core/'))
        out.push({ path: src.path, line: lineOf(file, pos), message: `core imports ${target}, above it` });
    }
  }
  return out;
}

/** Whether identifier `id` names a value `process` rather than a property or key of that name. */
function isProcessReference(id: ts.Identifier): boolean {
  const p = id.parent;
  if (ts.isPropertyAccessExpression(p) && p.name === id) return false;
  if (ts.isQualifiedName(p) && p.right === id) return false;
  if (
    (ts.isPropertyAssignment(p) ||
      ts.isPropertySignature(p) ||
      ts.isPropertyDeclaration(p) ||
      ts.isMethodDeclaration(p) ||
      ts.isMethodSignature(p)) &&
    p.name === id
  )
    return false;
  return true;
}

/** Rule 2: no file but `src/main.ts` names `process` in code (comments and strings are not code). */
export function processFindings(sources: readonly Source[]): Finding[] {
  const out: Finding[] = [];
  for (const src of sources) {
    if (src.path === 'src/main.ts') continue;
    const file = parse(src);
    walk(file, (n) => {
      if (ts.isIdentifier(n) && n.text === 'process' && isProcessReference(n))
        out.push({ path: src.path, line: lineOf(file, n.getStart(file)), message: 'touches process' });
    });
  }
  return out;
}

/** The headings of a markdown text, outside fenced code, without `#`s and backticks. */
export function headings(markdown: string): Set<string> {
  const out = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (m) out.add(m[1]!.replaceAll('`', ''));
  }
  return out;
}

/** `docs/x.md, "Heading"` (straight or curly quotes); a comment's line breaks are read as spaces. */
const CITATION = /docs\/([\w./-]+\.md),\s*["“]([^"”\n]+)["”]/g;

/**
 * Rule 3: every `docs/X.md, "Heading"` cited in a source names a heading of that file
 * (a heading's parenthesis may be left out: "Footprint" cites "Footprint (`footprint`)").
 * `docs` maps a path (`docs/polling.md`) to its text; a file not in it does not exist.
 */
export function citationFindings(sources: readonly Source[], docs: ReadonlyMap<string, string>): Finding[] {
  const out: Finding[] = [];
  const known = new Map<string, Set<string>>();
  for (const src of sources) {
    // Same length, so an index into it is an index into the source.
    const flat = src.text.replace(/\n[ \t]*(\*(?!\/)|\/\/)?[ \t]*/g, (m) => ' '.repeat(m.length));
    for (const m of flat.matchAll(CITATION)) {
      const doc = `docs/${m[1]!}`;
      const heading = m[2]!.replace(/\s+/g, ' ').replaceAll('`', '').trim();
      const text = docs.get(doc);
      if (text === undefined) {
        out.push({
          path: src.path,
          line: lineAt(src.text, m.index),
          message: `cites ${doc}, which does not exist`,
        });
        continue;
      }
      const hs = known.get(doc) ?? headings(text);
      known.set(doc, hs);
      if (!hs.has(heading) && ![...hs].some((h) => h.startsWith(`${heading} (`)))
        out.push({
          path: src.path,
          line: lineAt(src.text, m.index),
          message: `cites ${doc}, "${heading}": no such heading`,
        });
    }
  }
  return out;
}

function lineAt(text: string, index: number): number {
  let n = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

/** A function's name for the allow-list: its own, or the variable, property or class member it is. */
function functionName(n: ts.FunctionLikeDeclaration, file: ts.SourceFile): string {
  const own = n.name && (ts.isIdentifier(n.name) || ts.isStringLiteral(n.name)) ? n.name.text : undefined;
  if (ts.isConstructorDeclaration(n)) return `${className(n)}.constructor`;
  if (own && (ts.isMethodDeclaration(n) || ts.isGetAccessor(n) || ts.isSetAccessor(n)))
    return `${className(n)}.${own}`;
  if (own) return own;
  const p = n.parent;
  if ((ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p)) && ts.isIdentifier(p.name))
    return p.name.text;
  return `<anonymous at line ${lineOf(file, n.getStart(file))}>`;
}

function className(n: ts.Node): string {
  const c = n.parent;
  return ts.isClassLike(c) && c.name ? c.name.text : '<class>';
}

/** Today's offenders, each with its size now: it may shrink below the limit, never grow. */
export interface SizeAllowances {
  /** Path → its lines today. */
  files: Readonly<Record<string, number>>;
  /** `path#name` → its lines today. */
  functions: Readonly<Record<string, number>>;
}

/**
 * Rule 4: no file over {@link MAX_FILE_LINES} lines, no function over
 * {@link MAX_FUNCTION_LINES}, but for the allowances; an allowance that is exceeded, or no
 * longer needed, is a finding too, so the list only shrinks.
 */
export function sizeFindings(sources: readonly Source[], allow: SizeAllowances): Finding[] {
  const out: Finding[] = [];
  const used = new Set<string>();
  const judge = (
    key: string,
    path: string,
    line: number,
    what: string,
    lines: number,
    max: number,
    allowed?: number,
  ) => {
    if (lines <= max) return;
    if (allowed === undefined) {
      out.push({ path, line, message: `${what} has ${lines} lines (most ${max})` });
      return;
    }
    used.add(key);
    if (lines > allowed)
      out.push({ path, line, message: `${what} grew to ${lines} lines (allowed ${allowed}, most ${max})` });
  };
  for (const src of sources) {
    const file = parse(src);
    const lines = src.text.endsWith('\n') ? src.text.split('\n').length - 1 : src.text.split('\n').length;
    judge(src.path, src.path, 1, src.path, lines, MAX_FILE_LINES, allow.files[src.path]);
    walk(file, (n) => {
      if (!ts.isFunctionLike(n) || !('body' in n) || !n.body) return;
      const fn = n as ts.FunctionLikeDeclaration;
      const start = lineOf(file, fn.getStart(file));
      const size = lineOf(file, fn.getEnd()) - start + 1;
      const key = `${src.path}#${functionName(fn, file)}`;
      judge(
        key,
        src.path,
        start,
        `function ${functionName(fn, file)}`,
        size,
        MAX_FUNCTION_LINES,
        allow.functions[key],
      );
    });
  }
  const stale = [...Object.keys(allow.files), ...Object.keys(allow.functions)].filter((k) => !used.has(k));
  for (const key of stale)
    out.push({
      path: key.split('#')[0]!,
      line: 1,
      message: `${key} is within the limits now: remove its allowance`,
    });
  return out;
}
