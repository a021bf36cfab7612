/**
 * `tally once [--config PATH] [--json]`: reads every configured org once and prints the
 * normalized snapshot — a readable summary, or JSON with `--json`. Sends nothing, writes
 * nothing. Exit 0 when every part of every org was read completely, 1 when something
 * could not be (or the config is invalid), 2 on a usage error.
 */
import { systemClock } from '../core/clock.js';
import { loadConfigFile, resolveConfigPath } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { ConfigError } from '../core/errors.js';
import { createLogger, LOG_LEVELS, type LogLevel } from '../core/log.js';
import { channelMatches } from '../poll/channel-filter.js';
import { type OrgSnapshot, type Part, type SubResource, subResourceRead } from '../snapshot/model.js';
import { isLiveStatus } from '../snapshot/status.js';
import { sessionArray } from '../snapshot/session-list.js';
import { windowUnknown } from '../snapshot/diff-window.js';
import { QueryMemory } from '../upstream/query/adapt.js';
import { TEACH_AT_ONCE } from '../upstream/query/evidence.js';
import { UpstreamClient } from '../upstream/client.js';
import { ExplainCollector, formatExplain } from './explain.js';
import { parseCommandArgs } from './args.js';
import type { CliIO, Command } from './io.js';
import { byCodeUnits } from '../core/order.js';

const USAGE = `usage: tally once [--config PATH] [--json] [--explain]

Reads every configured organization once: profile, team, subscription, channels, the
sessions of every watched channel in the session window, and the detail of live
sessions. Prints a summary, or the normalized snapshots as JSON with --json. Sends no
notification and writes no state. Progress and warnings go to stderr (TALLY_LOG_LEVEL
sets the log level; default warn).

Exits 0 when every org was read completely, 1 when a part could not be read or the
config is invalid, 2 on a usage error.

--explain prints, per endpoint, what tally understood of the server: the request that
worked, where the list was and how it was paged, what was learned (page size, filters
left out or ignored), the source path and conversion of every model field, the keys no
field was read from, and any drift. With --json it is the "explain" member.`;

/** The `once` command. */
export const onceCommand: Command = async (args, io) => {
  const parsed = parseCommandArgs(
    args,
    { config: { type: 'string', short: 'c' }, json: { type: 'boolean' }, explain: { type: 'boolean' } },
    USAGE,
    io,
  );
  if (!parsed.ok) return parsed.exitCode;
  const file = resolveConfigPath(parsed.values.config, io.env, io.cwd);
  let config: Config;
  let secrets: string[];
  try {
    ({ config, secrets } = await loadConfigFile(file, io.env));
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    io.stderr.write(`${err.message}\n`);
    return 1;
  }

  const explain = parsed.values.explain ? new ExplainCollector() : undefined;
  const read = await readEveryOrg(config, secrets, io, explain);
  if (read === undefined) {
    io.stderr.write('tally once: interrupted\n');
    return 1;
  }
  const { snapshots, memory } = read;
  const explained = explain?.result(memory);
  if (parsed.values.json) {
    io.stdout.write(
      `${JSON.stringify({ orgs: snapshots, ...(explained ? { explain: explained } : {}) }, null, 2)}\n`,
    );
  } else {
    io.stdout.write(
      explained
        ? `${summarize(snapshots)}\n${formatExplain(explained, [config.upstream.filters.from_param, config.upstream.filters.to_param])}`
        : summarize(snapshots),
    );
  }
  const problems = Object.values(snapshots).flatMap(problemsOf);
  for (const p of problems) io.stderr.write(`tally once: ${p}\n`);
  return problems.length > 0 ? 1 : 0;
};

/** Reads each org in turn; undefined when stopped by a signal. */
async function readEveryOrg(
  config: Config,
  secrets: string[],
  io: CliIO,
  explain: ExplainCollector | undefined,
): Promise<{ snapshots: Record<string, OrgSnapshot>; memory: QueryMemory } | undefined> {
  const envLevel = io.env['TALLY_LOG_LEVEL'];
  const level: LogLevel = LOG_LEVELS.includes(envLevel as LogLevel) ? (envLevel as LogLevel) : 'warn';
  const format = config.log.format === 'auto' ? (io.isTTY ? 'pretty' : 'json') : config.log.format;
  const logger = createLogger({ level, format, destination: io.stderr, secrets });
  const client = UpstreamClient.fromConfig(config, {
    clock: systemClock,
    logger,
    // One look, each list read once: a refusal teaches for the rest of it (query/evidence.ts).
    memory: new QueryMemory(undefined, TEACH_AT_ONCE),
    ...(explain ? { trace: explain, observer: { onDrift: (i) => explain.drift(i) } } : {}),
  });
  // The budget and retries wait on unref'd timers; keep the process alive meanwhile.
  const keepAlive = setInterval(() => {}, 60_000);
  const out: Record<string, OrgSnapshot> = {};
  try {
    for (const org of config.orgs) {
      const filter = { include: org.channels?.include, exclude: org.channels?.exclude };
      explain?.startOrg(org.slug);
      out[org.slug] = await client.readAll(
        { slug: org.slug, token: org.token ?? '' },
        {
          signal: io.signal,
          onProgress: (msg) => io.stderr.write(`${msg}\n`),
          channelFilter: (c) => channelMatches(c, filter),
        },
      );
    }
    return { snapshots: out, memory: client.memory };
  } catch (err) {
    if (io.signal.aborted) return undefined;
    throw err;
  } finally {
    clearInterval(keepAlive);
    await client.close();
  }
}

/** Every part of a snapshot that was not read completely, in words. */
export function problemsOf(snap: OrgSnapshot): string[] {
  const out: string[] = [];
  const check = (what: string, part: Part<unknown> | undefined) => {
    if (part === undefined) out.push(`${snap.org}: ${what} not read`);
    else if (part.state !== 'complete') {
      out.push(`${snap.org}: ${what} ${part.state} (${part.error.reason}): ${part.error.message}`);
    }
  };
  check('profile', snap.profile);
  check('team', snap.team);
  check('subscription', snap.subscription);
  check('channels', snap.channels);
  for (const [id, part] of Object.entries(snap.sessions)) check(`sessions of channel ${id}`, part);
  for (const [id, part] of Object.entries(snap.details)) check(`detail of session ${id}`, part);
  return out;
}

/** The readable summary of every org. */
export function summarize(snapshots: Record<string, OrgSnapshot>): string {
  return Object.values(snapshots)
    .map((s) => `${summarizeOrg(s).join('\n')}\n`)
    .join('\n');
}

function summarizeOrg(snap: OrgSnapshot): string[] {
  const lines: string[] = [];
  const profile = value(snap.profile);
  const title = profile?.name ? `${snap.org} — ${profile.name}` : snap.org;
  lines.push(profile?.plan ? `${title} (plan ${profile.plan})` : title);

  const team = value(snap.team);
  if (team) lines.push(`  members: ${team.length}${counts(team.map((m) => m.role ?? 'unknown'))}`);

  const sub = value(snap.subscription);
  if (sub) {
    const f = sub.funding;
    const funding =
      f.mode === 'wallet'
        ? `wallet${f.balance === undefined ? '' : ` ${f.balance.toFixed(2)}${f.currency ? ` ${f.currency}` : ''}`}`
        : f.mode === 'byok'
          ? `byok${f.provider ? ` ${f.provider}` : ''}${f.keyStatus ? ` (key ${f.keyStatus})` : ''}`
          : `unknown${f.raw ? ` (${f.raw})` : ''}`;
    lines.push(`  subscription: plan ${sub.plan ?? '?'}, AI funding ${funding}`);
    const limits = Object.entries(sub.limits).map(([k, v]) => `${k} ${sub.usage[k] ?? '?'}/${v}`);
    if (limits.length > 0) lines.push(`    usage/limits: ${limits.join(', ')}`);
  }

  const channels = value(snap.channels);
  if (channels) lines.push(`  channels: ${channels.length}${counts(channels.map((c) => c.status))}`);

  const listed = Object.values(snap.sessions).flatMap((p) =>
    p.state === 'failed' ? [] : sessionArray(p.value),
  );
  // A session without any time is not known to lie in the window (windowUnknown).
  const sessions = listed.filter((s) => !windowUnknown(s));
  const timeless = listed.length - sessions.length;
  lines.push(
    `  sessions in window: ${sessions.length}${counts(sessions.map((s) => s.status))}` +
      (timeless > 0 ? `; ${timeless} without readable times (window unknown, not counted)` : ''),
  );

  const live = sessions.filter((s) => isLiveStatus(s.status));
  if (live.length > 0) lines.push('  live sessions:');
  for (const s of live) {
    const d = value(snap.details[s.id]);
    const label = `${s.id}${s.title ? ` "${s.title}"` : ''} on ${s.channelId}`;
    if (!d) {
      lines.push(`    ${label}: detail not read`);
      continue;
    }
    // A sub-resource that could not be read shows `?`, never 0.
    const n = (name: SubResource, count: number) => (subResourceRead(d, name) ? String(count) : '?');
    lines.push(
      `    ${label}: ${n('questions', d.questions.count)} questions, ` +
        `${n('announcements', d.announcements.count)} announcements, ` +
        `${n('reactions', d.reactions.count)} reactions, ${n('speakers', d.speakers.count)} speakers, ` +
        `ai ${d.ai.status ?? 'unknown'}`,
    );
  }

  const problems = problemsOf(snap);
  if (problems.length > 0) {
    lines.push('  not read completely:');
    for (const p of problems) lines.push(`    ${p.slice(snap.org.length + 2)}`);
  }
  return lines;
}

/** The value of a part when something usable was read. */
function value<T>(part: Part<T> | undefined): T | undefined {
  return part !== undefined && part.state !== 'failed' ? part.value : undefined;
}

/** ` (live 2, idle 5)`, most frequent first; empty for no items. */
function counts(words: readonly string[]): string {
  if (words.length === 0) return '';
  const by = new Map<string, number>();
  for (const w of words) by.set(w, (by.get(w) ?? 0) + 1);
  const sorted = [...by].sort((a, b) => b[1] - a[1] || byCodeUnits(a[0], b[0]));
  return ` (${sorted.map(([w, n]) => `${w} ${n}`).join(', ')})`;
}
