/**
 * A whole tally against the simulator on loopback, the one way the test suite runs it:
 * - {@link tallyConfig} / {@link configText}: the config text (one org `demo`, port 0, a
 *   state directory of the test's own);
 * - {@link startTally} / {@link startApp}: the real App in this process, its events and
 *   log lines collected;
 * - {@link daemonRig}: `tally run` as a child process (src/main.ts through tsx) in a
 *   temporary directory, started, killed and started again as a crash test needs, every
 *   child and the directory gone at {@link DaemonRig.close}.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { Registry } from 'prom-client';
import { App } from '../../src/app/app.js';
import { type Clock, systemClock } from '../../src/core/clock.js';
import { parseConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/core/log.js';
import type { ChangeEvent } from '../../src/snapshot/events.js';

/** What a config text is written around. */
export interface ConfigOptions {
  /** The simulator (or a proxy in front of it) tally reads. */
  sim: { url: string };
  stateDir: string;
  /** YAML under `upstream:` after `base_url` (each line indented two spaces). */
  upstream?: string;
  /** The `intervals:` value (flow YAML). */
  intervals?: string;
  /** The `server:` value (flow YAML); default: loopback, port 0. */
  server?: string;
  /** Log level (default info; the format is always JSON). */
  level?: 'debug' | 'info' | 'warn';
  /** Extra top-level YAML (rules, route, receivers, delivery …). */
  extra?: string;
}

/** The intervals of a tally that reads every second or two (the in-process scenarios). */
export const FAST_INTERVALS =
  '{ org: 10s, team: 10s, subscription: 10s, channels: 2s, live_sessions: 1s, live_detail: 2s, sweep: 3s, jitter: 0 }';

/** Two quick retries within 2 s (`upstream.retries` of the child-process scenarios). */
export const QUICK_RETRIES = '  retries: { attempts: 2, base_delay: 50ms, max_delay: 200ms, deadline: 2s }\n';

/** A config text: org `demo` (token `demo-token`) of `sim`, JSON logs, port 0. */
export function configText(o: ConfigOptions): string {
  return `upstream:
  base_url: ${o.sim.url}
${o.upstream ?? ''}orgs:
  - slug: demo
    token: demo-token
intervals: ${o.intervals ?? FAST_INTERVALS}
server: ${o.server ?? '{ listen: 127.0.0.1:0 }'}
state: { dir: ${JSON.stringify(o.stateDir)} }
log: { level: ${o.level ?? 'info'}, format: json }
${o.extra ?? ''}`;
}

/**
 * YAML that alerts on every channel status change through one webhook receiver, a group
 * per channel (the kill -9 and lost-file scenarios).
 */
export function statusChangeWebhook(url: string, groupWait: string): string {
  return `rules:
  - name: status_change
    on: channel.status_changed
    severity: info
route:
  receiver: hook
  group_by: [org, alertname, channel_id]
  group_wait: ${groupWait}
  group_interval: 10m
  repeat_interval: 4h
receivers:
  - name: hook
    webhook: { url: '${url}' }
delivery: { timeout: 5s }
`;
}

/** Options of {@link startTally} and {@link tallyConfig}. */
export interface TallyOptions extends Omit<ConfigOptions, 'upstream'> {
  clock?: Clock;
  /** Extra YAML under `upstream:` (indented two spaces). */
  upstream?: string;
  /** Budget per minute (default 300: tests read fast). */
  budget?: number;
}

/** The config text of a test tally: reads every second, fails fast, pages of 4. */
export function tallyConfig(o: Omit<TallyOptions, 'clock'>): string {
  const upstream = `  budget_per_minute: ${o.budget ?? 300}
  retries: { attempts: 2, base_delay: 20ms, max_delay: 50ms, deadline: 1s }
  timeouts: { connect: 500ms, headers: 500ms, body: 500ms }
  max_body_bytes: 64KiB
  shape: { per_page: 4 }
${o.upstream ?? ''}`;
  return configText({ ...o, upstream });
}

/** A running tally and what it reported. */
export interface Tally {
  app: App;
  /** Every event handed to listeners, in order. */
  events: ChangeEvent[];
  /** Parsed log lines. */
  logs: Record<string, unknown>[];
  stop(): Promise<void>;
}

/**
 * Starts the real App in this process from a config text; `baseDir` resolves relative
 * paths in it. `beforeStart` sees the App before it starts (to wrap a part of it).
 */
export async function startApp(
  text: string,
  o: { baseDir: string; clock?: Clock | undefined; beforeStart?: (app: App) => void },
): Promise<Tally> {
  const loaded = await parseConfig(text, { source: 'test.yaml', env: {}, baseDir: o.baseDir });
  const logs: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _e, cb) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) logs.push(JSON.parse(line));
      cb();
    },
  });
  const logger = createLogger({ level: 'info', format: 'json', destination });
  const console = new Writable({ write: (_c, _e, cb) => cb() });
  const app = App.create(loaded, {
    registry: new Registry(),
    clock: o.clock ?? systemClock,
    logger,
    console,
  });
  const events: ChangeEvent[] = [];
  app.onEvents((batch) => events.push(...batch));
  o.beforeStart?.(app);
  await app.start();
  let stopped = false;
  return {
    app,
    events,
    logs,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await app.stop(3000);
    },
  };
}

/** Starts the real App in this process with {@link tallyConfig}. */
export function startTally(o: TallyOptions): Promise<Tally> {
  return startApp(tallyConfig(o), { baseDir: o.stateDir, clock: o.clock });
}

/** How a child process ended. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** One `tally run` child process. */
export interface Daemon {
  child: ChildProcess;
  /** What it printed so far, stdout and stderr. */
  out(): string;
  /** Resolves when it has exited. */
  exited: Promise<Exit>;
  /** Whether it has exited. */
  gone(): boolean;
  /**
   * Resolves to its HTTP base URL once it logged "serving metrics" (a log level of info
   * or lower; `url` instead, when the config names the port) and, with `ready` (the
   * default), once `/-/ready` answers 200; throws after `ms`, or when it exits first,
   * with the end of its output.
   */
  serving(o?: {
    ready?: boolean | undefined;
    ms?: number | undefined;
    url?: string | undefined;
  }): Promise<string>;
  /** SIGKILL; resolves once it is gone. */
  kill9(): Promise<void>;
  /** Sends `signal` (SIGTERM by default) and resolves to the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** A temporary directory with a config file, and the `tally run` children started on it. */
export interface DaemonRig {
  dir: string;
  /** `<dir>/state`, the state directory a config of the rig names. */
  stateDir: string;
  /** `<dir>/tally.yaml`. */
  configPath: string;
  /** Writes the config file. */
  write(text: string): Promise<void>;
  /** Spawns `tally run --config <configPath> ...args` with `env` added to this process's. */
  spawn(o?: { args?: string[]; env?: NodeJS.ProcessEnv }): Daemon;
  /** Spawns and waits until it serves (see {@link Daemon.serving}); `url` is its base URL. */
  start(o?: {
    args?: string[];
    env?: NodeJS.ProcessEnv;
    ready?: boolean | undefined;
    ms?: number | undefined;
    url?: string | undefined;
  }): Promise<Daemon & { url: string }>;
  /** SIGKILLs every child still running. */
  killAll(): Promise<void>;
  /** {@link killAll}, then removes the directory. */
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function runDaemon(configPath: string, args: string[], env: NodeJS.ProcessEnv | undefined): Daemon {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/main.ts', 'run', '--config', configPath, ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: env ? { ...process.env, ...env } : process.env,
    },
  );
  let out = '';
  const collect = (d: Buffer) => {
    out += d.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  let gone = false;
  const exited = new Promise<Exit>((resolve) => {
    child.once('exit', (code, signal) => {
      gone = true;
      resolve({ code, signal });
    });
  });
  const ready = (base: string) =>
    fetch(`${base}/-/ready`).then(
      async (r) => {
        await r.arrayBuffer();
        return r.ok;
      },
      () => false,
    );
  return {
    child,
    out: () => out,
    exited,
    gone: () => gone,
    async serving({ ready: waitReady = true, ms = 30_000, url } = {}) {
      const end = Date.now() + ms;
      let base = url;
      while (Date.now() < end && !gone) {
        base ??= /"url":"(http:\/\/127\.0\.0\.1:\d+)"[^\n]*"msg":"serving metrics/.exec(out)?.[1];
        if (base && (!waitReady || (await ready(base)))) return base;
        await sleep(100);
      }
      throw new Error(
        `tally ${gone ? 'exited' : 'did not become ready'} (pid ${child.pid}): ${out.slice(-800)}`,
      );
    },
    async kill9() {
      if (gone) return;
      child.kill('SIGKILL');
      await exited;
    },
    async stop(signal = 'SIGTERM') {
      if (!gone) child.kill(signal);
      return (await exited).code;
    },
  };
}

/** Makes a temporary directory `tally-<prefix>-*` for `tally run` children. */
export async function daemonRig(prefix: string): Promise<DaemonRig> {
  const dir = await mkdtemp(path.join(tmpdir(), `tally-${prefix}-`));
  const configPath = path.join(dir, 'tally.yaml');
  const children: Daemon[] = [];
  const rig: DaemonRig = {
    dir,
    stateDir: path.join(dir, 'state'),
    configPath,
    write: (text) => writeFile(configPath, text),
    spawn({ args = [], env } = {}) {
      const d = runDaemon(configPath, args, env);
      children.push(d);
      return d;
    },
    async start({ ready, ms, url, ...o } = {}) {
      const d = rig.spawn(o);
      return { ...d, url: await d.serving({ ready, ms, url }) };
    },
    async killAll() {
      await Promise.all(children.splice(0).map((d) => d.kill9()));
    },
    async close() {
      await rig.killAll();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return rig;
}
