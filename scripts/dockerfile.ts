/**
 * Reads the Dockerfile so that scripts/docker-repro.sh runs the Dockerfile's own steps
 * (there is no Docker engine in CI) and test/deploy checks what the image promises.
 * Understands what tally's Dockerfile uses: stages, line continuations, comments, and the
 * exec (JSON) and shell forms of CMD, ENTRYPOINT and HEALTHCHECK.
 *
 * As a command (`tsx scripts/dockerfile.ts FILE QUERY …`), for the shell script:
 *   stages                     stage names, one a line
 *   base STAGE                 the stage's FROM image
 *   steps STAGE                the stage's instructions, one a line, continuations joined
 *   exec STAGE healthcheck|entrypoint|cmd   the command's arguments, NUL-terminated
 *   env STAGE NAME             the value ENV gives NAME in the stage
 *   envs STAGE                 every NAME=VALUE the stage's ENV set, NUL-terminated
 *   parse-env ARGS             NAME=VALUE of one ENV instruction's arguments, NUL-terminated
 *   run-args ARGS              one RUN's command with its build-only flags (--mount …) removed
 *   volumes STAGE              the stage's VOLUME paths, one a line
 *   healthcheck-options STAGE  the HEALTHCHECK options as NAME=VALUE lines
 *   context DIR                the files of DIR's build context (git's files less .dockerignore), NUL-terminated
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** One instruction, continuation lines joined. */
export interface Instruction {
  /** Upper case: FROM, RUN, COPY … */
  keyword: string;
  /** Everything after the keyword, trimmed. */
  args: string;
  /** 1-based line where the instruction starts. */
  line: number;
}

/** One build stage: its FROM and the instructions after it. */
export interface Stage {
  /** The `AS` name, else the stage's index. */
  name: string;
  from: string;
  instructions: Instruction[];
}

/** A HEALTHCHECK: its options (`--interval=30s` → `interval: '30s'`) and command. */
export interface Healthcheck {
  options: Record<string, string>;
  command: string[];
}

/** Splits a Dockerfile into instructions (comments, blank lines and parser directives dropped). */
export function parseInstructions(text: string): Instruction[] {
  const out: Instruction[] = [];
  const lines = text.split(/\r?\n/);
  let current: { parts: string[]; line: number } | undefined;
  lines.forEach((raw, i) => {
    const trimmed = raw.trim();
    // Comment lines are dropped, also between continuation lines (as Docker does).
    if (trimmed.startsWith('#')) return;
    if (!current) {
      if (trimmed === '') return;
      current = { parts: [], line: i + 1 };
    } else if (trimmed === '') {
      return;
    }
    const continued = /\\\s*$/.test(raw);
    current.parts.push(continued ? raw.replace(/\\\s*$/, '').trim() : trimmed);
    if (continued) return;
    const joined = current.parts.join(' ');
    const match = /^(\S+)\s*(.*)$/s.exec(joined)!;
    out.push({ keyword: match[1]!.toUpperCase(), args: match[2]!.trim(), line: current.line });
    current = undefined;
  });
  if (current) throw new Error(`Dockerfile ends inside a continued instruction (line ${current.line})`);
  return out;
}

/** Parses a Dockerfile into its stages. */
export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  for (const ins of parseInstructions(text)) {
    if (ins.keyword === 'FROM') {
      const m = /^(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?$/i.exec(ins.args);
      if (!m) throw new Error(`line ${ins.line}: cannot read FROM ${ins.args}`);
      stages.push({ name: m[2] ?? String(stages.length), from: m[1]!, instructions: [] });
    } else if (stages.length > 0) {
      stages.at(-1)!.instructions.push(ins);
    }
  }
  if (stages.length === 0) throw new Error('the Dockerfile has no FROM');
  return stages;
}

/** The stage with this name (the last stage for `final`). */
export function stageOf(stages: readonly Stage[], name: string): Stage {
  const stage = name === 'final' ? stages.at(-1) : stages.find((s) => s.name === name);
  if (!stage) throw new Error(`no stage named ${name} (stages: ${stages.map((s) => s.name).join(', ')})`);
  return stage;
}

/** The arguments of a CMD/ENTRYPOINT: exec form as written, shell form through `/bin/sh -c`. */
export function commandForm(args: string): string[] {
  const text = args.trim();
  if (text.startsWith('[')) {
    const parsed: unknown = JSON.parse(text);
    if (!Array.isArray(parsed) || !parsed.every((a) => typeof a === 'string'))
      throw new Error(`not a JSON array of strings: ${text}`);
    return parsed;
  }
  return ['/bin/sh', '-c', text];
}

/** Reads `HEALTHCHECK [--opt=v …] CMD …`; undefined for `HEALTHCHECK NONE`. */
export function parseHealthcheck(args: string): Healthcheck | undefined {
  const options: Record<string, string> = {};
  let rest = args.trim();
  for (;;) {
    const m = /^--([a-z-]+)=(\S+)\s+/.exec(rest);
    if (!m) break;
    options[m[1]!] = m[2]!;
    rest = rest.slice(m[0].length);
  }
  if (/^NONE$/i.test(rest)) return undefined;
  const cmd = /^CMD\s+(.*)$/is.exec(rest);
  if (!cmd) throw new Error(`HEALTHCHECK without CMD: ${args}`);
  return { options, command: commandForm(cmd[1]!) };
}

/** The variables `ENV` sets (`K=V …` or the old `K V` form); quotes are removed. */
export function parseEnv(args: string): Record<string, string> {
  const out: Record<string, string> = {};
  const old = /^(\S+)\s+(.*)$/s.exec(args.trim());
  if (old && !old[1]!.includes('=')) {
    // The old form: one variable, the rest of the line its value.
    out[old[1]!] = old[2]!.trim();
    return out;
  }
  const pair = /([A-Za-z_][A-Za-z0-9_.-]*)=("(?:[^"\\]|\\.)*"|'[^']*'|\S*)/g;
  for (const m of args.matchAll(pair)) {
    const v = m[2]!;
    out[m[1]!] = v.startsWith('"')
      ? v.slice(1, -1).replace(/\\(.)/g, '$1')
      : v.startsWith("'")
        ? v.slice(1, -1)
        : v;
  }
  return out;
}

/** Every ENV of a stage, later ones winning. */
export function stageEnv(stage: Stage): Record<string, string> {
  return Object.assign(
    {},
    ...stage.instructions.filter((i) => i.keyword === 'ENV').map((i) => parseEnv(i.args)),
  );
}

/** The last instruction with this keyword in a stage (the one that counts for CMD, USER …). */
export function lastOf(stage: Stage, keyword: string): Instruction | undefined {
  return stage.instructions.filter((i) => i.keyword === keyword).at(-1);
}

/** The arguments of the stage's HEALTHCHECK, ENTRYPOINT or CMD. */
export function execOf(stage: Stage, what: 'healthcheck' | 'entrypoint' | 'cmd'): string[] {
  const ins = lastOf(stage, what.toUpperCase());
  if (!ins) return [];
  if (what === 'healthcheck') return parseHealthcheck(ins.args)?.command ?? [];
  return commandForm(ins.args);
}

/** The paths a VOLUME instruction declares (JSON array or space-separated). */
export function parseVolume(args: string): string[] {
  const text = args.trim();
  return text.startsWith('[') ? commandForm(text) : text.split(/\s+/).filter(Boolean);
}

/** A RUN's command without its build-only flags (`--mount=…`, `--network=…`, `--security=…`). */
export function runCommand(args: string): string {
  return args.replace(/^(?:--[a-z]+=\S+\s+)*/, '').trim();
}

/** One .dockerignore rule. */
interface IgnoreRule {
  negate: boolean;
  pattern: RegExp;
}

/** Reads .dockerignore text into rules (Docker's syntax: `*`, `?`, `**`, `!` to re-include). */
export function parseDockerignore(text: string): IgnoreRule[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const negate = l.startsWith('!');
      const clean = path.posix.normalize((negate ? l.slice(1) : l).trim()).replace(/^\/+|\/+$/g, '');
      const source = clean
        .split('/')
        .map((part) =>
          part === '**'
            ? '(?:.*)'
            : part
                .replace(/[.+^${}()|[\]\\]/g, '\\$&')
                .replace(/\*/g, '[^/]*')
                .replace(/\?/g, '[^/]'),
        )
        .join('/')
        .replace(/\(\?:\.\*\)\//g, '(?:.*/)?');
      return { negate, pattern: new RegExp(`^${source}$`) };
    });
}

/**
 * Whether a file (a path relative to the context, with `/`) is in the build context: the
 * last rule that matches the file or one of its parent directories decides.
 */
export function inContext(file: string, rules: readonly IgnoreRule[]): boolean {
  const parts = file.split('/');
  const prefixes = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
  let included = true;
  for (const rule of rules) if (prefixes.some((p) => rule.pattern.test(p))) included = rule.negate;
  return included;
}

/** The files a `docker build DIR` would send: git's tracked and unignored files, less .dockerignore. */
export function contextFiles(dir: string): string[] {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: dir,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  })
    .split('\0')
    .filter((f) => f !== '' && existsSync(path.join(dir, f)));
  const ignoreFile = path.join(dir, '.dockerignore');
  const rules = existsSync(ignoreFile) ? parseDockerignore(readFileSync(ignoreFile, 'utf8')) : [];
  return [...new Set(listed)].filter((f) => inContext(f, rules)).sort();
}

function main(argv: string[]): number {
  const [file, query, stageName, extra] = argv;
  if (!file || !query) {
    process.stderr.write(
      'usage: tsx scripts/dockerfile.ts DOCKERFILE|DIR QUERY [STAGE|ARGS] [ARG] (see the file header)\n',
    );
    return 2;
  }
  if (query === 'context') {
    process.stdout.write(
      contextFiles(stageName ?? path.dirname(file))
        .map((f) => `${f}\0`)
        .join(''),
    );
    return 0;
  }
  if (query === 'parse-env' || query === 'run-args') {
    const args = stageName ?? '';
    process.stdout.write(
      query === 'run-args'
        ? `${runCommand(args)}\n`
        : Object.entries(parseEnv(args))
            .map(([k, v]) => `${k}=${v}\0`)
            .join(''),
    );
    return 0;
  }
  const stages = parseDockerfile(readFileSync(file, 'utf8'));
  const stage = () => stageOf(stages, stageName ?? 'final');
  switch (query) {
    case 'stages':
      process.stdout.write(stages.map((s) => `${s.name}\n`).join(''));
      return 0;
    case 'base':
      process.stdout.write(`${stage().from}\n`);
      return 0;
    case 'steps':
      process.stdout.write(
        stage()
          .instructions.map((i) => `${i.keyword} ${i.args}\n`)
          .join(''),
      );
      return 0;
    case 'exec': {
      const what = extra as 'healthcheck' | 'entrypoint' | 'cmd';
      if (!['healthcheck', 'entrypoint', 'cmd'].includes(what))
        throw new Error(`exec takes healthcheck, entrypoint or cmd`);
      process.stdout.write(
        execOf(stage(), what)
          .map((a) => `${a}\0`)
          .join(''),
      );
      return 0;
    }
    case 'env': {
      const value = extra === undefined ? undefined : stageEnv(stage())[extra];
      if (value === undefined) return 1;
      process.stdout.write(`${value}\n`);
      return 0;
    }
    case 'envs':
      process.stdout.write(
        Object.entries(stageEnv(stage()))
          .map(([k, v]) => `${k}=${v}\0`)
          .join(''),
      );
      return 0;
    case 'volumes':
      process.stdout.write(
        stage()
          .instructions.filter((i) => i.keyword === 'VOLUME')
          .flatMap((i) => parseVolume(i.args))
          .map((v) => `${v}\n`)
          .join(''),
      );
      return 0;
    case 'healthcheck-options': {
      const hc = lastOf(stage(), 'HEALTHCHECK');
      const options = hc ? (parseHealthcheck(hc.args)?.options ?? {}) : {};
      process.stdout.write(
        Object.entries(options)
          .map(([k, v]) => `${k}=${v}\n`)
          .join(''),
      );
      return 0;
    }
    default:
      process.stderr.write(`unknown query ${query}\n`);
      return 2;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`dockerfile: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  }
}
