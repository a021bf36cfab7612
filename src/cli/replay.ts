/**
 * `tally replay --from PATH [--to PATH]`: evaluates the configured alert rules against
 * recorded history and prints the notifications that would have been sent (receiver,
 * group, rendered summaries), in simulated time that follows the history's timestamps.
 * Nothing is sent.
 *
 * `--from` is an event log (a `.jsonl` file of change events or a directory of them, as in
 * the state directory's `events/`), or, with `--to`, the first of two stored snapshots
 * (`{ format: 'tally-snapshot', snapshot }` or a bare snapshot): then the changes between
 * them are replayed and condition rules are evaluated against both.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { AlertingConfig } from '../alerts/schema.js';
import { type ReplayInput, simulate } from '../alerts/simulate.js';
import type { Notification } from '../alerts/types.js';
import { loadConfigFile, resolveConfigPath } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { parseDuration } from '../core/units.js';
import { ConfigError, TallyError } from '../core/errors.js';
import { silentLogger } from '../core/log.js';
import { diff } from '../snapshot/diff.js';
import { type ChangeEvent, isEventKind } from '../snapshot/events.js';
import type { OrgSnapshot } from '../snapshot/model.js';
import { applyRecord, readJournal } from '../store/snapshot-journal.js';
import type { OrgView } from '../poll/status.js';
import { EXIT_USAGE, parseCommandArgs } from './args.js';
import type { CliIO, Command } from './io.js';

const USAGE = `usage: tally replay --from PATH [--to PATH] [--config PATH] [--org SLUG] [--after DURATION] [--json]

Evaluates the alert rules of the config against recorded history and prints the
notifications that would have been sent, in simulated time. Nothing is sent.

  --from PATH      an event log: a .jsonl file of change events, or a directory of them
                   (the state directory's events/); or a snapshot file when --to is given
  --to PATH        a later snapshot of the same org: replays the changes between the two
  --config PATH    config file (default: $TALLY_CONFIG, else ./tally.yaml)
  --org SLUG       only this org's events
  --after DURATION keep simulated time running this long after the last input
                   (default: until event alerts have resolved and been reported)
  --json           one JSON notification per line`;

/** What replay needs from the config. */
export interface ReplayConfig {
  alerting: AlertingConfig;
  orgs: readonly {
    slug: string;
    labels?: Record<string, string> | undefined;
    token_expires_at?: string | undefined;
  }[];
  externalURL?: string | undefined;
}

/** Reads the config for replay; replaceable in tests. */
export type ReplayConfigLoader = (file: string, env: CliIO['env']) => Promise<ReplayConfig>;

/** Loads the config file with the standard loader and takes the alert sections from it. */
export const loadReplayConfig: ReplayConfigLoader = async (file, env) => {
  const { config } = await loadConfigFile(file, env);
  const c = config as Config & Partial<AlertingConfig>;
  return {
    alerting: {
      rules: c.rules ?? [],
      route: c.route,
      silences: c.silences ?? [],
      maintenance: c.maintenance ?? [],
      inhibit: c.inhibit ?? { upstream: true },
    },
    orgs: c.orgs,
    externalURL: c.server?.external_url,
  };
};

/** History that cannot be read: a missing file, a snapshot of the wrong shape. */
export class ReplayInputError extends TallyError {
  constructor(message: string) {
    super(message, { reason: 'replay_input' });
  }
}

/** Builds the `replay` command around a config loader. */
export function createReplayCommand(loadConfig: ReplayConfigLoader = loadReplayConfig): Command {
  return async (args, io) => {
    const parsed = parseCommandArgs(
      args,
      {
        from: { type: 'string' },
        to: { type: 'string' },
        config: { type: 'string', short: 'c' },
        org: { type: 'string' },
        after: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
      USAGE,
      io,
    );
    if (!parsed.ok) return parsed.exitCode;
    const v = parsed.values;
    if (v.from === undefined) {
      io.stderr.write(`tally: --from is required\n\n${USAGE}\n`);
      return EXIT_USAGE;
    }
    const afterMs = v.after === undefined ? undefined : parseDuration(v.after);
    if (v.after !== undefined && afterMs === undefined) {
      io.stderr.write(`tally: --after: not a duration: ${v.after}\n`);
      return EXIT_USAGE;
    }
    try {
      const config = await loadConfig(resolveConfigPath(v.config, io.env, io.cwd), io.env);
      const from = path.resolve(io.cwd, v.from);
      const input =
        v.to === undefined
          ? { events: await readEventLog(from) }
          : await readSnapshots(from, path.resolve(io.cwd, v.to), config);
      const events = input.events.filter((e) => v.org === undefined || e.org === v.org);
      if (events.length === 0 && v.to === undefined) {
        // An event log with nothing to replay is a mistake to name (a wrong path, a
        // misspelt --org), not a run to report over an empty range. (Two snapshots still
        // have their condition rules to evaluate.)
        const orgs = [...new Set(input.events.map((e) => e.org))].sort();
        const why =
          input.events.length === 0
            ? `no events in ${v.from}`
            : `no events of org ${v.org} in ${v.from} (it holds ${orgs.slice(0, 10).join(', ')}${orgs.length > 10 ? ', …' : ''})`;
        io.stderr.write(`tally: ${why}\n`);
        return 1;
      }
      const result = simulate(
        { ...input, events },
        {
          alerting: config.alerting,
          logger: silentLogger(),
          orgLabels: Object.fromEntries(config.orgs.map((o) => [o.slug, o.labels ?? {}])),
          externalURL: config.externalURL,
          ...(afterMs === undefined ? {} : { afterMs }),
        },
      );
      const unjudged = v.to === undefined ? notReplayed(config.alerting) : '';
      if (v.json) {
        for (const n of result.notifications) io.stdout.write(`${JSON.stringify(n)}\n`);
        if (unjudged !== '') io.stderr.write(`tally: ${unjudged}\n`);
      } else {
        io.stdout.write(formatText(result.notifications, events.length, result.start, result.end));
        if (unjudged !== '') io.stdout.write(`${unjudged}\n`);
      }
      return 0;
    } catch (err) {
      if (err instanceof ConfigError || err instanceof ReplayInputError) {
        io.stderr.write(`${err.message}\n`);
        return 1;
      }
      throw err;
    }
  };
}

/**
 * What an event log cannot replay, said in the output: condition rules (`for_each`) judge
 * the state tally read and when it read it (a no-show is a session still scheduled in a
 * list read after the grace, an overrun one still live in a list read past the margin), and
 * an event log holds only the changes, not the reads nor the quiet between them
 * (docs/alerts.md, "Trying rules on history: `tally replay`"). Empty when the config has none.
 */
export function notReplayed(alerting: AlertingConfig): string {
  const names = alerting.rules.filter((r) => r.for_each !== undefined).map((r) => r.name);
  if (names.length === 0) return '';
  return (
    `not replayed: ${names.join(', ')} (condition rules judge what tally read and when; ` +
    'an event log holds changes only, so a no-show, drop or overrun that changed nothing is not in it; ' +
    'replay two stored snapshots with --from A --to B to evaluate them at those times).'
  );
}

/** The `replay` command. */
export const replayCommand: Command = createReplayCommand();

/** Reads change events from a `.jsonl` file or a directory of them, oldest first. */
export async function readEventLog(from: string): Promise<ChangeEvent[]> {
  let files: string[];
  try {
    const s = await stat(from);
    files = s.isDirectory()
      ? (await readdir(from))
          .filter((f) => f.endsWith('.jsonl'))
          .sort()
          .map((f) => path.join(from, f))
      : [from];
  } catch {
    throw new ReplayInputError(`cannot read ${from}: no such file or directory`);
  }
  const events: ChangeEvent[] = [];
  for (const file of files) {
    const text = await readFile(file, 'utf8');
    text.split('\n').forEach((line, i) => {
      if (line.trim() === '') return;
      const e = parseEvent(line);
      if (!e) throw new ReplayInputError(`${file}:${i + 1}: not a change event`);
      events.push(e);
    });
  }
  return events.sort((a, b) => a.at - b.at);
}

function parseEvent(line: string): ChangeEvent | undefined {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return undefined;
  }
  const e = v as Partial<ChangeEvent> | null;
  if (
    !e ||
    typeof e.id !== 'string' ||
    typeof e.at !== 'number' ||
    typeof e.org !== 'string' ||
    typeof e.kind !== 'string' ||
    !isEventKind(e.kind) ||
    typeof e.entity?.id !== 'string'
  ) {
    return undefined;
  }
  return { ...(e as ChangeEvent), labels: e.labels ?? {} };
}

async function readSnapshot(file: string): Promise<OrgSnapshot> {
  let data: unknown;
  try {
    data = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new ReplayInputError(`cannot read snapshot ${file}: ${(err as Error).message.split('\n')[0]}`);
  }
  const env = data as { format?: unknown; snapshot?: unknown; generation?: unknown } | null;
  const snap = (env?.format === 'tally-snapshot' ? env.snapshot : data) as Partial<OrgSnapshot> | null;
  if (snap?.version !== 1 || typeof snap.org !== 'string' || typeof snap.takenAt !== 'number') {
    throw new ReplayInputError(`${file} is not a tally snapshot`);
  }
  const out = { ...snap, sessions: snap.sessions ?? {}, details: snap.details ?? {} } as OrgSnapshot;
  // A snapshot file from a state directory is continued by the journal beside it (docs/state.md).
  if (env?.format === 'tally-snapshot' && typeof env.generation === 'string' && file.endsWith('.json')) {
    const journal = await readJournal(`${file.slice(0, -'.json'.length)}.journal`, out.org, env.generation);
    if (journal.status === 'ok') for (const record of journal.records) applyRecord(out, record);
  }
  return out;
}

async function readSnapshots(fromFile: string, toFile: string, config: ReplayConfig): Promise<ReplayInput> {
  const [a, b] = [await readSnapshot(fromFile), await readSnapshot(toFile)];
  if (a.org !== b.org)
    throw new ReplayInputError(`the snapshots are of different orgs: ${a.org} and ${b.org}`);
  const org = config.orgs.find((o) => o.slug === a.org);
  const toView = (s: OrgSnapshot): OrgView => {
    const v: OrgView = {
      slug: s.org,
      snapshot: s,
      health: { state: 'ok', lastSuccessAt: s.takenAt, lastError: undefined },
      attempts: new Map(),
      labels: org?.labels ?? {},
      ready: true,
    };
    if (org?.token_expires_at !== undefined) v.tokenExpiresAt = Date.parse(org.token_expires_at);
    return v;
  };
  return {
    events: diff(a, b),
    views: [
      { at: a.takenAt, views: [toView(a)] },
      { at: b.takenAt, views: [toView(b)] },
    ],
  };
}

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const MAX_LINES = 10;

/** The text report: each notification with its receiver, group and alert summaries. */
export function formatText(ns: readonly Notification[], events: number, start: number, end: number): string {
  const out: string[] = [];
  for (const n of ns) {
    out.push(
      `${iso(n.createdAt)}  ${n.receiver}  ${n.status.toUpperCase()}  ${n.groupKey}  (${n.alerts.length} alert${n.alerts.length === 1 ? '' : 's'})`,
    );
    for (const a of n.alerts.slice(0, MAX_LINES)) {
      out.push(`    ${a.state.padEnd(8)} ${a.labels['alertname'] ?? ''}: ${a.annotations['summary'] ?? ''}`);
    }
    if (n.alerts.length > MAX_LINES) out.push(`    … and ${n.alerts.length - MAX_LINES} more`);
  }
  const receivers = new Set(ns.map((n) => n.receiver)).size;
  out.push(
    `${ns.length} notification${ns.length === 1 ? '' : 's'} to ${receivers} receiver${receivers === 1 ? '' : 's'} ` +
      `from ${events} event${events === 1 ? '' : 's'}, simulated ${iso(start)} to ${iso(end)}; nothing was sent.`,
  );
  return `${out.join('\n')}\n`;
}
