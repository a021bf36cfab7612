import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  commandForm,
  contextFiles,
  execOf,
  inContext,
  lastOf,
  parseDockerfile,
  parseDockerignore,
  parseEnv,
  parseHealthcheck,
  parseInstructions,
  parseVolume,
  runCommand,
  stageEnv,
  stageOf,
} from '../../scripts/dockerfile.js';

const stages = parseDockerfile(readFileSync('Dockerfile', 'utf8'));
const build = stageOf(stages, 'build');
const runtime = stageOf(stages, 'final');
const runs = (stage: typeof build) =>
  stage.instructions.filter((i) => i.keyword === 'RUN').map((i) => runCommand(i.args));
const copies = (stage: typeof build) =>
  stage.instructions.filter((i) => i.keyword === 'COPY').map((i) => i.args);

describe('reading a Dockerfile', () => {
  it('joins continuation lines and drops comments, also between continued lines', () => {
    const ins = parseInstructions('# c\nFROM a AS b\nRUN one \\\n  # inside\n  two\n\nenv A=1\n');
    expect(ins).toEqual([
      { keyword: 'FROM', args: 'a AS b', line: 2 },
      { keyword: 'RUN', args: 'one two', line: 3 },
      { keyword: 'ENV', args: 'A=1', line: 7 },
    ]);
  });

  it.each<[string, string, string[]]>([
    ['exec form', '["node", "-e", "x"]', ['node', '-e', 'x']],
    ['shell form', 'node main.js run', ['/bin/sh', '-c', 'node main.js run']],
  ])('reads the %s of a command', (_, args, want) => {
    expect(commandForm(args)).toEqual(want);
  });

  it.each<[string, Record<string, string>]>([
    ['A=1 B="two words" C=\'x\'', { A: '1', B: 'two words', C: 'x' }],
    ['NAME some value', { NAME: 'some value' }],
  ])('reads ENV %s', (args, want) => {
    expect(parseEnv(args)).toEqual(want);
  });

  it('reads HEALTHCHECK options and command, and NONE', () => {
    expect(parseHealthcheck('--interval=30s --retries=3 CMD ["a", "b"]')).toEqual({
      options: { interval: '30s', retries: '3' },
      command: ['a', 'b'],
    });
    expect(parseHealthcheck('NONE')).toBeUndefined();
  });

  it('drops build-only RUN flags', () => {
    expect(runCommand('--mount=type=cache,target=/root/.npm --network=none npm ci')).toBe('npm ci');
  });

  it.each<[string, boolean]>([
    ['package.json', true],
    ['src/main.ts', true],
    ['src/a/b.test.ts', false],
    ['node_modules/x/index.js', false],
    ['test/a.test.ts', false],
    ['README.md', false],
  ])('applies .dockerignore rules: %s → %s', (file, want) => {
    const rules = parseDockerignore('*\n!package.json\n!src\nsrc/**/*.test.ts\n');
    expect(inContext(file, rules)).toBe(want);
  });
});

describe('the Dockerfile', () => {
  it('builds on Node 24 LTS bookworm-slim pinned by digest, the same image in both stages', () => {
    expect(stages.map((s) => s.name)).toEqual(['build', 'runtime']);
    // A tag alone moves under a rebuild; the digest is what a bump changes on purpose.
    for (const s of stages)
      expect(s.from, `FROM ${s.from}`).toMatch(/^node:24-bookworm-slim@sha256:[0-9a-f]{64}$/);
    expect(new Set(stages.map((s) => s.from)).size).toBe(1);
    // The label names the tag the digest belongs to.
    const labels = runtime.instructions
      .filter((i) => i.keyword === 'LABEL')
      .map((i) => i.args)
      .join(' ');
    expect(labels).toContain(
      `org.opencontainers.image.base.name="docker.io/library/${stages[0]!.from.split('@')[0]}"`,
    );
  });

  it('removes npm, npx and corepack from the runtime stage after its last npm step', () => {
    const steps = runs(runtime);
    const removal = steps.findIndex((r) => r.includes('/usr/local/lib/node_modules/npm'));
    expect(removal).toBeGreaterThan(-1);
    const removed = steps[removal]!;
    for (const p of [
      '/usr/local/lib/node_modules/npm',
      '/usr/local/lib/node_modules/corepack',
      '/usr/local/bin/npm',
      '/usr/local/bin/npx',
      '/usr/local/bin/corepack',
    ])
      expect(removed).toContain(p);
    expect(steps.slice(removal + 1).filter((r) => /\bnp[mx]\b|corepack/.test(r))).toEqual([]);
    // Nothing the image runs needs them.
    const entry = [...execOf(runtime, 'entrypoint'), ...execOf(runtime, 'healthcheck')].join(' ');
    expect(entry).not.toMatch(/\bnp[mx]\b|corepack/);
  });

  it('compiles in the build stage and installs production dependencies only in the runtime', () => {
    expect(runs(build)).toEqual(['npm ci --no-audit --no-fund', 'npm run build']);
    expect(runs(runtime)).toContain('npm ci --omit=dev --no-audit --no-fund');
    expect(copies(runtime)).toEqual([
      'package.json package-lock.json ./',
      '--from=build /src/dist ./dist',
      'schema ./schema',
    ]);
  });

  it('runs as an unprivileged user under tini, with the state directory as a volume', () => {
    const user = lastOf(runtime, 'USER')!.args;
    expect(user).not.toMatch(/^(root|0)(:|$)/);
    expect(runs(runtime).some((r) => /apt-get install .*\btini\b/.test(r))).toBe(true);
    expect(execOf(runtime, 'entrypoint').slice(0, 2)).toEqual(['/usr/bin/tini', '--']);
    // A small young generation keeps RSS down at large orgs (docs/performance.md, footprint).
    expect(execOf(runtime, 'entrypoint').slice(2)).toEqual([
      'node',
      '--max-semi-space-size=2',
      '/app/dist/main.js',
    ]);
    expect(execOf(runtime, 'cmd')).toEqual(['run']);
    expect(parseVolume(lastOf(runtime, 'VOLUME')!.args)).toEqual(['/var/lib/tally']);
    expect(stageEnv(runtime)).toMatchObject({
      TALLY_CONFIG: '/etc/tally/config.yaml',
      NODE_ENV: 'production',
      // glibc's malloc as bench/footprint measures the image (IMAGE_ENV): two arenas, and
      // blocks over 128 KiB in maps of their own, given back when freed.
      MALLOC_ARENA_MAX: '2',
      MALLOC_MMAP_THRESHOLD_: '131072',
      MALLOC_TRIM_THRESHOLD_: '131072',
    });
    expect(lastOf(runtime, 'EXPOSE')!.args).toBe('10464');
    // The HEALTHCHECK reaches the exposed port through TALLY_PORT.
    expect(stageEnv(runtime)['TALLY_PORT']).toBe(lastOf(runtime, 'EXPOSE')!.args);
  });

  it('carries OCI labels, its version matching package.json', () => {
    const labels = runtime.instructions
      .filter((i) => i.keyword === 'LABEL')
      .map((i) => i.args)
      .join(' ');
    for (const key of ['title', 'description', 'version', 'revision', 'licenses', 'base.name'])
      expect(labels).toContain(`org.opencontainers.image.${key}=`);
    const version = runtime.instructions.find((i) => i.keyword === 'ARG' && i.args.startsWith('VERSION='));
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(version?.args).toBe(`VERSION=${pkg.version}`);
  });

  it('sends only what the build needs as its context', () => {
    const files = contextFiles('.');
    for (const f of [
      'package.json',
      'package-lock.json',
      'tsconfig.json',
      'tsconfig.build.json',
      'src/main.ts',
    ])
      expect(files).toContain(f);
    expect(files).toContain('schema/tally.schema.json');
    expect(
      files.filter((f) => !/^(src|schema)\/|^(package|package-lock|tsconfig|tsconfig\.build)\.json$/.test(f)),
    ).toEqual([]);
  });
});

describe('the HEALTHCHECK command', () => {
  const command = execOf(runtime, 'healthcheck');
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  /** Runs the HEALTHCHECK with TALLY_PORT set; resolves with its exit code. */
  function check(port: number): Promise<number | null> {
    expect(command[0]).toBe('node');
    const child = spawn(process.execPath, command.slice(1), {
      env: { PATH: process.env['PATH'], TALLY_PORT: String(port) },
      stdio: 'ignore',
    });
    return new Promise((resolve) => child.on('close', resolve));
  }

  async function serve(status: number): Promise<number> {
    server = createServer((req, res) => {
      res.statusCode = req.url === '/-/healthy' ? status : 404;
      res.end();
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }

  it('uses node and /-/healthy, not curl, and reads the port from TALLY_PORT', () => {
    expect(command.join(' ')).toContain('/-/healthy');
    expect(command.join(' ')).toContain('process.env.TALLY_PORT||10464');
    expect(command.join(' ')).not.toContain('curl');
    expect(parseHealthcheck(lastOf(runtime, 'HEALTHCHECK')!.args)?.options).toMatchObject({ timeout: '5s' });
  });

  it.each<[string, number, number]>([
    ['healthy', 200, 0],
    ['unhealthy', 503, 1],
  ])('exits as the answer says: %s', async (_, status, code) => {
    expect(await check(await serve(status))).toBe(code);
  });

  it('fails when nothing listens', async () => {
    const port = await serve(200);
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = undefined;
    expect(await check(port)).toBe(1);
  });
});
