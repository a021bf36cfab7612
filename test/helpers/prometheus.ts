/**
 * A real Prometheus for end-to-end tests: Debian's `prometheus` binary on loopback, with a
 * free port, a temporary data directory and a generated config that scrapes the given
 * targets every second. `query` runs PromQL through its HTTP API. {@link startScrapedTally}
 * is the e2e tier's one set-up: a whole tally in this process, scraped by a Prometheus.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { App } from '../../src/app/app.js';
import { startApp, type Tally } from './daemon.js';

/** One scrape target. */
export interface ScrapeTarget {
  job: string;
  /** Base URL of the target, e.g. `http://127.0.0.1:10464`. */
  url: string;
  metricsPath?: string;
  bearerToken?: string;
}

/** One element of an instant vector. */
export interface VectorSample {
  metric: Record<string, string>;
  value: number;
}

/** A target as Prometheus sees it. */
export interface TargetState {
  job: string;
  health: string;
  lastError: string;
  scrapeUrl: string;
}

/** A running Prometheus. */
export interface PrometheusHandle {
  readonly url: string;
  /** Runs an instant query; throws when Prometheus reports an error. */
  query(promql: string): Promise<VectorSample[]>;
  /** The active scrape targets. */
  targets(): Promise<TargetState[]>;
  /** What Prometheus printed, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

/** The Prometheus binary: `TALLY_PROMETHEUS_BIN` or `prometheus` on PATH. */
export function prometheusBinary(): string {
  return process.env['TALLY_PROMETHEUS_BIN'] ?? 'prometheus';
}

/** Whether the Prometheus binary runs here. */
export function hasPrometheus(): boolean {
  return spawnSync(prometheusBinary(), ['--version'], { stdio: 'ignore' }).status === 0;
}

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The config file for the targets; rule files are evaluated as often as targets are scraped. */
export function prometheusConfig(
  targets: readonly ScrapeTarget[],
  intervalSeconds: number,
  ruleFiles: readonly string[] = [],
): string {
  const jobs = targets.map((t) => {
    const u = new URL(t.url);
    const lines = [
      `  - job_name: ${JSON.stringify(t.job)}`,
      `    metrics_path: ${JSON.stringify(t.metricsPath ?? '/metrics')}`,
      `    scheme: ${u.protocol.replace(':', '')}`,
    ];
    if (t.bearerToken) lines.push(`    authorization: { credentials: ${JSON.stringify(t.bearerToken)} }`);
    lines.push(`    static_configs: [{ targets: [${JSON.stringify(u.host)}] }]`);
    return lines.join('\n');
  });
  return [
    'global:',
    `  scrape_interval: ${intervalSeconds}s`,
    `  scrape_timeout: ${intervalSeconds}s`,
    ...(ruleFiles.length > 0
      ? [`  evaluation_interval: ${intervalSeconds}s`, `rule_files: ${JSON.stringify(ruleFiles)}`]
      : []),
    'scrape_configs:',
    ...jobs,
    '',
  ].join('\n');
}

/** Starts Prometheus scraping the targets and waits until it is ready. */
export async function startPrometheus(opts: {
  targets: readonly ScrapeTarget[];
  intervalSeconds?: number;
  /** Alerting and recording rule files to load. */
  ruleFiles?: readonly string[];
  readyTimeoutMs?: number;
}): Promise<PrometheusHandle> {
  const dir = await mkdtemp(path.join(tmpdir(), 'tally-prometheus-'));
  const configFile = path.join(dir, 'prometheus.yml');
  await writeFile(configFile, prometheusConfig(opts.targets, opts.intervalSeconds ?? 1, opts.ruleFiles));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let out = '';
  const child: ChildProcess = spawn(
    prometheusBinary(),
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let alive = true;
  void exited.then(() => (alive = false));

  const stop = async () => {
    if (alive) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    }
    await rm(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + (opts.readyTimeoutMs ?? 30_000);
  for (;;) {
    if (!alive) {
      await stop();
      throw new Error(`prometheus exited before it was ready:\n${out}`);
    }
    if (await isReady(url)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus was not ready within ${opts.readyTimeoutMs ?? 30_000} ms:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }

  return {
    url,
    output: () => out,
    stop,
    async query(promql) {
      const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`);
      const body = (await res.json()) as {
        status: string;
        error?: string;
        data?: { resultType: string; result: { metric: Record<string, string>; value: [number, string] }[] };
      };
      if (body.status !== 'success' || !body.data) throw new Error(`query ${promql} failed: ${body.error}`);
      if (body.data.resultType !== 'vector')
        throw new Error(`query ${promql} gave a ${body.data.resultType}`);
      return body.data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
    },
    async targets() {
      const res = await fetch(`${url}/api/v1/targets?state=active`);
      const body = (await res.json()) as {
        data: {
          activeTargets: {
            labels: Record<string, string>;
            health: string;
            lastError: string;
            scrapeUrl: string;
          }[];
        };
      };
      return body.data.activeTargets.map((t) => ({
        job: t.labels['job'] ?? '',
        health: t.health,
        lastError: t.lastError,
        scrapeUrl: t.scrapeUrl,
      }));
    },
  };
}

/** A tally in this process and the Prometheus scraping it (job `tally`). */
export interface ScrapedTally {
  app: App;
  tally: Tally;
  prom: PrometheusHandle;
  /** The tally's own directory (its state, and files a config names). */
  dir: string;
  /** `host:port` of the tally, the `instance` label of its series. */
  instance: string;
  /** Stops Prometheus and tally and removes the directory. */
  stop(): Promise<void>;
}

/**
 * Starts a tally from `config(dir)` (a temporary directory of its own) and a Prometheus
 * scraping it every second, with `bearerToken` when the config asks scrapers for one.
 * Fails at once when the Prometheus binary is missing: this tier needs it.
 */
export async function startScrapedTally(o: {
  prefix: string;
  config: (dir: string) => string | Promise<string>;
  bearerToken?: string;
  ruleFiles?: (dir: string) => Promise<readonly string[]>;
  beforeStart?: (app: App) => void;
}): Promise<ScrapedTally> {
  if (!hasPrometheus())
    throw new Error(
      'the prometheus binary is not on PATH (apt-get install prometheus, or set TALLY_PROMETHEUS_BIN)',
    );
  const dir = await mkdtemp(path.join(tmpdir(), `tally-e2e-${o.prefix}-`));
  const stops: (() => Promise<void>)[] = [() => rm(dir, { recursive: true, force: true })];
  const stop = async () => {
    for (const s of stops.splice(0)) await s();
  };
  try {
    const tally = await startApp(await o.config(dir), {
      baseDir: dir,
      ...(o.beforeStart ? { beforeStart: o.beforeStart } : {}),
    });
    stops.unshift(() => tally.app.stop(5_000));
    const url = new URL(tally.app.url()!);
    const target: ScrapeTarget = { job: 'tally', url: url.origin };
    if (o.bearerToken) target.bearerToken = o.bearerToken;
    const prom = await startPrometheus({
      targets: [target],
      ...(o.ruleFiles ? { ruleFiles: await o.ruleFiles(dir) } : {}),
    });
    stops.unshift(() => prom.stop());
    return { app: tally.app, tally, prom, dir, instance: url.host, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function isReady(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/-/ready`);
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

/**
 * Retries `probe` until it returns without throwing, or throws its last error after
 * `timeoutMs`. For facts that become true after the next poll and the next scrape.
 */
export async function eventually<T>(probe: () => Promise<T>, timeoutMs = 30_000, everyMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await probe();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  }
}
