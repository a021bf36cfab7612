/**
 * `tally demo`: the simulator in-process on a free port with a lively world, and the
 * daemon polling it with short intervals, printing a readable stream of change events.
 */
import { Registry } from 'prom-client';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { App } from '../app/app.js';
import { systemClock } from '../core/clock.js';
import { parseConfig } from '../config/load.js';
import { parseDuration } from '../core/units.js';
import { createLogger } from '../core/log.js';
import { startSimulator } from '../sim/index.js';
import { describeEvent } from '../snapshot/describe.js';
import type { ChangeEvent } from '../snapshot/events.js';
import { parseCommandArgs } from './args.js';
import type { Command } from './io.js';
import { runUntilStopped } from './run.js';

const USAGE = `usage: tally demo [--channels N] [--seed N] [--speed X] [--duration D] [--state DIR] [--log-level LEVEL]

Starts the upstream simulator with a lively world and runs tally against it, printing
every change event as it is detected. Stops on Ctrl-C, or after --duration (e.g. 2m).`;

/** The demo's config: short intervals so that something happens every few seconds. */
export function demoConfigYaml(baseUrl: string, stateDir: string, logLevel: string): string {
  return `upstream:
  base_url: ${baseUrl}
  budget_per_minute: 240
orgs:
  - slug: demo
    token: demo-token
intervals:
  org: 30s
  team: 15s
  subscription: 10s
  channels: 5s
  live_sessions: 5s
  live_detail: 10s
  sweep: 1m
server:
  listen: 127.0.0.1:0
state:
  dir: ${JSON.stringify(stateDir)}
log:
  level: ${logLevel}
  format: pretty
rules:
  - name: session_went_live
    on: session.started
    severity: info
    annotations:
      summary: "Live on {{ event.labels.channel }}: {{ event.labels.session }}"
  - name: session_failed
    on: session.ended
    when: 'has(event.to) && string(event.to) == "failed"'
    severity: warning
    annotations:
      summary: "Session failed on {{ event.labels.channel }}: {{ event.labels.session }}"
  - name: channel_offline
    on: channel.status_changed
    when: 'has(event.from) && is_live(string(event.from)) && !(has(event.to) && is_live(string(event.to)))'
    severity: warning
    annotations:
      summary: "Channel {{ event.labels.channel }} went off air ({{ event.from }} → {{ event.to }})"
  - name: member_changed
    on: [member.added, member.removed, member.role_changed]
    severity: info
    annotations:
      summary: "Team change in {{ event.org }}: {{ event.kind }} {{ event.labels.member }}"
  - name: upstream_unreachable
    for_each: org
    when: 'upstream.state == "unreachable"'
    severity: critical
    annotations:
      summary: "The API is unreachable for {{ org.slug }}"
route:
  receiver: console
  group_by: [org, alertname]
  group_wait: 5s
  group_interval: 30s
  repeat_interval: 1h
receivers:
  - name: console
    log: {}
`;
}

const COLORS: Record<string, string> = { session: '36', channel: '33', member: '35', upstream: '31' };

function line(e: ChangeEvent, color: boolean): string {
  const time = new Date(e.at).toISOString().slice(11, 19);
  const kind = e.kind.padEnd(28);
  const tint = COLORS[e.entity.kind] ?? '32';
  const k = color ? `\x1b[${tint}m${kind}\x1b[0m` : kind;
  return `${time}  ${e.org}  ${k} ${describeEvent(e)}\n`;
}

/** The `demo` command. */
export const demoCommand: Command = async (args, io) => {
  const parsed = parseCommandArgs(
    args,
    {
      channels: { type: 'string' },
      seed: { type: 'string' },
      speed: { type: 'string' },
      duration: { type: 'string' },
      state: { type: 'string' },
      'log-level': { type: 'string' },
    },
    USAGE,
    io,
  );
  if (!parsed.ok) return parsed.exitCode;
  const v = parsed.values;
  const num = (name: string, text: string | undefined, fallback: number) => {
    const n = text === undefined ? fallback : Number(text);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} takes a positive number, got '${text}'`);
    return n;
  };
  let channels: number;
  let seed: number;
  let speed: number;
  let durationMs: number | undefined;
  try {
    channels = num('channels', v.channels, 12);
    seed = num('seed', v.seed, 7);
    speed = num('speed', v.speed, 1);
    durationMs = v.duration === undefined ? undefined : parseDuration(v.duration);
    if (v.duration !== undefined && durationMs === undefined)
      throw new Error(`--duration takes e.g. 90s or 2m, got '${v.duration}'`);
  } catch (err) {
    io.stderr.write(`tally: ${(err as Error).message}\n\n${USAGE}\n`);
    return 2;
  }

  const sim = await startSimulator({ seed, channels, speed, scenario: 'lively', clock: systemClock });
  const stateDir = v.state ?? (await mkdtemp(path.join(tmpdir(), 'tally-demo-')));
  const loaded = await parseConfig(demoConfigYaml(sim.url, stateDir, v['log-level'] ?? 'warn'), {
    source: 'demo config',
    env: io.env,
    baseDir: io.cwd,
  });
  const logger = createLogger({
    level: loaded.config.log.level,
    format: 'pretty',
    destination: io.stderr,
    secrets: loaded.secrets,
  });
  // stdout is the demo's human feed (its log goes to stderr): readable blocks there.
  const app = App.create(loaded, {
    registry: new Registry(),
    clock: systemClock,
    logger,
    console: io.stdout,
    consoleFormat: 'pretty',
    ...(io.host ? { host: io.host } : {}),
  });
  app.onEvents((events) => {
    for (const e of events) io.stdout.write(line(e, io.isTTY));
  });

  io.stdout.write(
    [
      `simulator   ${sim.url}  (org demo, token demo-token, ${channels} channels, seed ${seed})`,
      `state       ${stateDir}`,
      'tally is taking its first look (a silent baseline); changes follow as they happen.',
      durationMs ? `stopping after ${Math.round(durationMs / 1000)}s` : 'Ctrl-C to stop.',
      '',
    ].join('\n'),
  );

  app.onStarted = () => {
    const url = app.url();
    if (url) {
      io.stdout.write(
        `metrics     ${url}/metrics\napi         ${url}/api/v1/status  ${url}/api/v1/events  ${url}/api/v1/alerts\n\n`,
      );
    }
  };
  const stop = new AbortController();
  io.signal.addEventListener('abort', () => stop.abort(io.signal.reason), { once: true });
  const timer = durationMs
    ? setTimeout(() => stop.abort(new Error('demo duration reached')), durationMs)
    : undefined;
  try {
    return await runUntilStopped(app, { io: { ...io, signal: stop.signal }, logger, stopTimeoutMs: 5000 });
  } finally {
    if (timer) clearTimeout(timer);
    await sim.close();
    if (v.state === undefined) await rm(stateDir, { recursive: true, force: true });
  }
};
