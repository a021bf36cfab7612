/**
 * Config files for the tally under bench: the defaults an operator would run with
 * (intervals, budget), a set of everyday rules so that the alert layer does its share
 * of the work, and a console receiver whose output the bench throws away.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseConfig, type LoadedConfig } from '../../src/config/load.js';

/** What a bench config varies. */
export interface BenchConfigOptions {
  baseUrl: string;
  stateDir: string;
  budgetPerMinute?: number;
  /** Extra YAML appended under `intervals:` (indented two spaces), e.g. `channels: 5s`. */
  intervals?: Record<string, string | number>;
  /** The session window's past (default 1d). */
  windowPast?: string;
  /** Replaces the rules, route and receivers sections. */
  alerting?: string;
  logLevel?: string;
  /** `state.events.max_bytes` (default: tally's, 64 MiB). */
  eventsMaxBytes?: string;
  /** The orgs watched, each with the simulator's default token `<slug>-token` (default: demo). */
  orgs?: string[];
}

/** Everyday rules and a console receiver (see config.example.yaml). */
export const EVERYDAY_ALERTING = `rules:
  - name: session_went_live
    on: session.started
    severity: info
  - name: session_failed
    on: [session.ended, session.status_changed]
    when: 'has(event.to) && string(event.to) in ["failed", "error", "aborted"]'
    severity: warning
  - name: channel_offline
    on: channel.status_changed
    when: 'has(event.from) && is_live(string(event.from)) && !(has(event.to) && is_live(string(event.to)))'
    severity: warning
  - name: member_changed
    on: [member.added, member.removed, member.role_changed]
    severity: info
  - name: upstream_unreachable
    for_each: org
    when: 'upstream.state == "unreachable"'
    severity: critical
route:
  receiver: console
  group_by: [org, alertname]
  group_wait: 30s
  group_interval: 5m
  repeat_interval: 4h
receivers:
  - name: console
    log: {}
`;

/** The YAML text of a bench config. */
export function benchConfigYaml(o: BenchConfigOptions): string {
  const intervals = Object.entries(o.intervals ?? {})
    .map(([k, v]) => `  ${k}: ${v}\n`)
    .join('');
  return `upstream:
  base_url: ${o.baseUrl}
  budget_per_minute: ${o.budgetPerMinute ?? 240}
  window:
    past: ${o.windowPast ?? '1d'}
orgs:
${(o.orgs ?? ['demo']).map((slug) => `  - slug: ${slug}\n    token: ${slug}-token\n`).join('')}${intervals ? `intervals:\n${intervals}` : ''}server:
  listen: 127.0.0.1:0
state:
  dir: ${JSON.stringify(o.stateDir)}
${o.eventsMaxBytes ? `  events: { max_bytes: ${o.eventsMaxBytes} }\n` : ''}log:
  level: ${o.logLevel ?? 'warn'}
  format: json
${o.alerting ?? EVERYDAY_ALERTING}`;
}

/** Writes the config next to the state directory and returns its path and parsed form. */
export async function writeBenchConfig(
  dir: string,
  o: BenchConfigOptions,
): Promise<{ path: string; loaded: LoadedConfig }> {
  const text = benchConfigYaml(o);
  const file = path.join(dir, 'tally.yaml');
  await writeFile(file, text);
  const loaded = await parseConfig(text, { source: file, env: {}, baseDir: dir });
  return { path: file, loaded };
}
