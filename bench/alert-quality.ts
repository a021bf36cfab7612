/**
 * Alert quality: a time-dilated stretch of a lively world with incidents (SimOptions
 * .incidents), read as tally's planner reads it (the channel list and hot channels every
 * live interval, a channel around its planned start and again at start + the no-show
 * grace, around its planned end and again at end + the overrun margin, the rest by the
 * sweep), diffed by tally's diff and alerted on by the rules,
 * route and grouping config.example.yaml ships. Measured, per org size: incidents alerted
 * out of all, the time from when each became knowable to its first notification (p50,
 * p95), and notifications at warning or above that were about no incident (routine paged).
 *
 * In-process and on simulated time (no HTTP: what it measures is the rules, the read
 * schedule and the grouping, not the wire), so a day runs in seconds to minutes.
 *
 *   npm run bench -- alert-quality                       # 100 and 1000 channels
 *   BENCH_ALERT_HOURS=168 npm run bench -- alert-quality # a simulated week
 *   BENCH_ALERT_TRACE=ses_00008799 …                     # how one session was seen
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { AlertEngine } from '../src/alerts/engine.js';
import { alertingSchema } from '../src/alerts/schema.js';
import { MemoryAlertStore } from '../src/alerts/state.js';
import type { Notification } from '../src/alerts/types.js';
import type { Clock } from '../src/core/clock.js';
import { silentLogger } from '../src/core/log.js';
import type { OrgView } from '../src/poll/status.js';
import { ChangeLog } from '../src/sim/changes.js';
import { type Dynamics, dynamicsFor } from '../src/sim/dynamics.js';
import { Evolver } from '../src/sim/evolve.js';
import { generateWorld } from '../src/sim/generate.js';
import type { SimIncident } from '../src/sim/incidents.js';
import type { SimChannel } from '../src/sim/model.js';
import { World } from '../src/sim/world.js';
import { dueWithin } from '../src/poll/org-queries.js';
import { diff } from '../src/snapshot/diff.js';
import { findSession } from '../src/snapshot/session-list.js';
import type { Channel, OrgSnapshot, Session, SessionsPart } from '../src/snapshot/model.js';
import { type Bench, type BenchOptions, type BenchResult, table } from './lib/report.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
/** The shipped rules' grace and margins (src/alerts/default-rules.yaml). */
const GRACE = 5 * M;
const OVERRUN_MARGIN = 10 * M;
/** tally's shipped intervals (config.example.yaml): channel list and hot lists, sweep. */
const LIVE_EVERY = 30 * S;
const SWEEP_EVERY = 15 * M;
const HOT_HORIZON = 2 * LIVE_EVERY;
const STEP = 10 * S;
/** How long a no-show must stay one for two reads to hold it: `for: 30s` and one read. */
const CONFIRM_MS = 30 * S + LIVE_EVERY;
const WINDOW_PAST = 3 * H;
const WINDOW_FUTURE = 24 * H;

/**
 * The lively world, with broadcasts of realistic lengths (the shipped graces and margins
 * are minutes; lively's one-to-six-minute shows would end inside them). No audience
 * activity: the shipped rules and this read schedule look at no session detail, and a
 * week of questions and reactions at 1000 channels held gigabytes and most of the steps.
 */
function benchDynamics(): Dynamics {
  return {
    ...dynamicsFor('lively'),
    questionEvery: Number.POSITIVE_INFINITY,
    reactionEvery: Number.POSITIVE_INFINITY,
    announcementEvery: Number.POSITIVE_INFINITY,
    speakerEvery: Number.POSITIVE_INFINITY,
    planEvery: 40 * M,
    lead: [10 * M, 3 * H],
    duration: [20 * M, 90 * M],
    startJitter: 3 * M,
    presenceEvery: 30 * M,
    maxScheduled: 2,
  };
}

const example = parse(readFileSync(new URL('../config.example.yaml', import.meta.url), 'utf8')) as Record<
  string,
  unknown
>;

export interface Run {
  channels: number;
  hours: number;
  incidents: number;
  alerted: number;
  missed: Record<string, number>;
  latencies: number[];
  /** The slowest of each kind (ms). */
  slowest: Record<string, number>;
  routinePages: number;
  /** What the first few routine pages said. */
  routineSaid: string[];
  /** The first few incidents paged more than two minutes after they became knowable. */
  slowSaid: string[];
  /** The first few incidents never paged. */
  missedSaid: string[];
  /**
   * No-shows not counted: their channel was live under another session at start + grace,
   * or went on air under one before two reads could hold the no-show (CONFIRM_MS).
   */
  covered?: number;
  pages: number;
  notifications: number;
  wallMs: number;
}

function sessionOfSim(s: SimChannel['sessions'][number]): Session {
  const out: Session = { id: s.id, channelId: s.channel.id, title: s.title, status: s.status };
  out.scheduledAt = s.scheduledAt;
  out.scheduledEndAt = s.scheduledEndAt;
  if (s.startedAt !== null) out.startedAt = s.startedAt;
  if (s.endedAt !== null) out.endedAt = s.endedAt;
  return out;
}

/** When an incident became knowable to anyone reading the API. */
export function knowableAt(i: SimIncident): number {
  if (i.kind === 'no_show') return i.scheduledAt + GRACE;
  if (i.kind === 'overrun') return i.scheduledEndAt + OVERRUN_MARGIN;
  return i.at;
}

function runOne(
  channels: number,
  hours: number,
  rate: number,
  seed = 7,
  progress: (line: string) => void = () => {},
): Run {
  const wall = Date.now();
  const trace = process.env['BENCH_ALERT_TRACE']
    ? tracer(process.env['BENCH_ALERT_TRACE'], progress)
    : undefined;
  const dyn = benchDynamics();
  const start = Date.UTC(2026, 2, 2);
  const world = new World(start, 1, new ChangeLog(1000), seed, dyn);
  generateWorld(world, [{ slug: 'acme', channels, sessionsPerChannel: 3 }], seed, dyn);
  const evolver = new Evolver(world, dyn, seed, false, rate);
  evolver.init();
  const org = world.orgs.get('acme')!;
  let now = start;
  const clock: Clock = {
    now: () => now,
    // Simulated time moves only forward here: elapsed time is the time line itself.
    monotonic: () => now - start,
    setTimeout: () => ({ unref() {} }) as never,
    sleep: async () => undefined,
  };
  const config = alertingSchema.parse({ rules: example['rules'], route: example['route'] });
  const engine = new AlertEngine({
    rules: config.rules,
    route: config.route,
    silences: [],
    maintenance: [],
    inhibit: config.inhibit,
    logger: silentLogger(),
    clock,
    store: new MemoryAlertStore(),
  });
  const lastRead = new Map<string, number>();
  const seenStatus = new Map<string, string>();
  let snap: OrgSnapshot = { version: 1, org: 'acme', takenAt: now, sessions: {}, details: {} };
  const sent: Notification[] = [];
  const end = start + hours * H;
  // No-shows whose channel was live under another session when they became knowable, or
  // went on air under one before two reads could hold the no-show (the rule's `for: 30s`
  // and one read more, CONFIRM_MS): the shipped rule does not call them no-shows
  // (`session_no_show`, docs/alerts.md), and is right not to by its definition.
  const covered = new Set<string>();
  const pending: SimIncident[] = [];
  let taken = 0;
  const noteCovered = (at: number) => {
    for (; taken < evolver.incidents.length; taken++) {
      const i = evolver.incidents[taken]!;
      if (i.kind === 'no_show') pending.push(i);
    }
    for (let k = pending.length - 1; k >= 0; k--) {
      const i = pending[k]!;
      if (knowableAt(i) > at) continue;
      if (org.channels.find((c) => c.id === i.channel)?.status === 'live') covered.add(i.session);
      if (at >= knowableAt(i) + CONFIRM_MS) pending.splice(k, 1);
    }
  };
  for (; now <= end; now += STEP) {
    evolver.advanceTo(now);
    const next: OrgSnapshot = { ...snap, takenAt: now };
    if ((now - start) % LIVE_EVERY === 0) {
      const list: Channel[] = org.channels
        .filter((c) => !c.removed)
        .map((c) => ({ id: c.id, name: c.name, status: c.status, visibility: c.visibility }));
      next.channels = { state: 'complete', at: now, value: list };
      const sessions = { ...snap.sessions };
      org.channels.forEach((ch, k) => {
        if (ch.removed) return;
        const changed = seenStatus.get(ch.id) !== ch.status;
        seenStatus.set(ch.id, ch.status);
        const last = lastRead.get(ch.id);
        // Hot as tally's poller has it (org-queries.ts, hotChannelsOf): live in the channel
        // list, or its last read list holds a session live, or one still scheduled around
        // its planned start or start + the grace, or its planned end or end + the margin.
        const stored = snap.sessions[ch.id];
        const hot =
          ch.status === 'live' || (stored?.state === 'complete' && dueWithin(stored.value, now, HOT_HORIZON));
        // The sweep reads every other channel once per sweep interval, spread over it.
        const swept = last === undefined || now - last >= SWEEP_EVERY - ((k * 7919) % 60) * S;
        if (!hot && !changed && !swept) return;
        lastRead.set(ch.id, now);
        const from = now - WINDOW_PAST;
        const value = ch.sessions
          .filter((s) => (s.endedAt ?? s.scheduledEndAt) >= from && s.scheduledAt <= now + WINDOW_FUTURE)
          .map(sessionOfSim);
        // Read after the channel list, as tally's hot reads follow it.
        const part: SessionsPart = {
          state: 'complete',
          at: now + S,
          value,
          window: { from, to: now + WINDOW_FUTURE },
        };
        sessions[ch.id] = part;
      });
      next.sessions = sessions;
      const events = diff(snap, next);
      snap = next;
      engine.onEvents(events);
    }
    // The daemon evaluates every second (src/app/app.ts, EVALUATE_MS), not only on reads:
    // a rule's `for` hold runs on between reads.
    const view: OrgView = {
      slug: 'acme',
      snapshot: snap,
      health: { state: 'ok', lastSuccessAt: now, lastError: undefined },
      attempts: new Map(),
      labels: {},
      ready: true,
    };
    engine.evaluate([view]);
    sent.push(...engine.tick());
    if (trace !== undefined) trace(now, org.channels, snap, engine);
    noteCovered(now);
    if (now > start && (now - start) % PROGRESS_EVERY === 0) {
      progress(sofar(channels, now, start, evolver.incidents, covered, sent, Date.now() - wall));
    }
  }
  // An overrun is told when it ends: let the world run on so the truth holds every incident
  // that began within the run.
  evolver.advanceTo(end + 2 * H);
  // Incidents knowable after the first half hour (the baseline) and an hour before the end.
  const counted = evolver.incidents.filter(
    (i) => knowableAt(i) > start + 30 * M && knowableAt(i) < end - H && !covered.has(i.session),
  );
  const run = measure(channels, hours, evolver.incidents, counted, sent, Date.now() - wall);
  run.covered = evolver.incidents.filter((i) => covered.has(i.session) && knowableAt(i) < end - H).length;
  return run;
}

/**
 * `BENCH_ALERT_TRACE=<session id>`: one line each time what is known of that session
 * changes (its channel as the world has it and as the last channel list read it, the
 * session in the world and in its channel's last list read, and the alerts naming it),
 * to tell why an incident was paged late or not at all.
 */
function tracer(
  sessionId: string,
  say: (line: string) => void,
): (now: number, channels: readonly SimChannel[], snap: OrgSnapshot, engine: AlertEngine) => void {
  let last = '';
  const t = (ms: number | undefined) => (ms === undefined ? '-' : new Date(ms).toISOString().slice(11, 19));
  return (now, channels, snap, engine) => {
    const ch = channels.find((c) => c.sessions.some((x) => x.id === sessionId));
    if (ch === undefined) return;
    const sim = ch.sessions.find((x) => x.id === sessionId)!;
    const listed =
      snap.channels?.state === 'complete' ? snap.channels.value.find((c) => c.id === ch.id) : undefined;
    const part = snap.sessions[ch.id];
    const read = part?.state === 'complete' ? findSession(part.value, sessionId) : undefined;
    const others = ch.sessions
      .filter((x) => x.id !== sessionId && x.status === 'live')
      .map((x) => x.id)
      .join(',');
    const alerts = engine
      .alerts()
      .filter(
        (a) =>
          a.labels['session_id'] === sessionId ||
          (a.labels['channel_id'] === ch.id && !a.labels['session_id']),
      )
      .map((a) => `${a.labels['alertname']}:${a.state}`)
      .join(',');
    const line =
      `channel ${ch.id} ${ch.status} (list: ${listed?.status ?? '-'}), live there: ${others || 'none'}; ` +
      `session ${sim.status} planned ${t(sim.scheduledAt)}-${t(sim.scheduledEndAt)} ` +
      `(read ${t(part?.at)}: ${read?.status ?? 'absent'}); alerts: ${alerts || 'none'}`;
    if (line !== last) say(`${new Date(now).toISOString()} ${line}`);
    last = line;
  };
}

/** How often a run tells how far it got (simulated time). */
const PROGRESS_EVERY = 12 * H;

/**
 * The figures so far, over the incidents knowable an hour before `now`, as one line. An
 * overrun still on air is not yet in the truth (it is told when it ends), so its page
 * counts as routine here until then; the first such page is named.
 */
function sofar(
  channels: number,
  now: number,
  start: number,
  all: readonly SimIncident[],
  covered: ReadonlySet<string>,
  sent: readonly Sent[],
  wallMs: number,
): string {
  const counted = all.filter(
    (i) => knowableAt(i) > start + 30 * M && knowableAt(i) < now - H && !covered.has(i.session),
  );
  const r = measure(channels, (now - start) / H, all, counted, sent, wallMs);
  const s = (ms: number | undefined) => (ms === undefined ? '—' : `${(ms / 1000).toFixed(0)} s`);
  const missed = Object.entries(r.missed).map(([k, v]) => `${k} ${v}`);
  return (
    `alert-quality ${channels} channels, ${r.hours} h simulated: ${r.alerted} / ${r.incidents} alerted, ` +
    `p50 ${s(quantile(r.latencies, 0.5))}, p95 ${s(quantile(r.latencies, 0.95))}, ` +
    `routine paged ${r.routinePages}${r.routineSaid[0] === undefined ? '' : ` (${r.routineSaid[0]})`}, ` +
    `missed ${missed.join(', ') || '—'}, wall ${(wallMs / 1000).toFixed(0)} s`
  );
}

const PAGE = new Set(['warning', 'critical', 'error', 'page']);

/** A notification as measured: when it was sent (or arrived), and its alerts. */
export type Sent = Pick<Notification, 'status' | 'createdAt'> & {
  alerts: readonly Pick<Notification['alerts'][number], 'state' | 'labels' | 'annotations'>[];
};

/**
 * The figures of one run: `incidents` (those counted, a subset of `all`) against the
 * first warning-or-above notification naming each session; a page naming no session of
 * `all` is routine paged.
 */
export function measure(
  channels: number,
  hours: number,
  all: readonly SimIncident[],
  incidents: readonly SimIncident[],
  sent: readonly Sent[],
  wallMs: number,
): Run {
  const bySession = new Map<string, SimIncident>();
  for (const i of all) bySession.set(i.session, i);
  const firstPage = new Map<string, number>();
  let routinePages = 0;
  const routineSaid: string[] = [];
  let pages = 0;
  for (const n of sent) {
    if (n.status !== 'firing') continue;
    for (const a of n.alerts) {
      if (a.state === 'resolved' || !PAGE.has(a.labels['severity'] ?? '')) continue;
      pages++;
      const session = a.labels['session_id'];
      if (session === undefined || !bySession.has(session)) {
        routinePages++;
        if (routineSaid.length < 5)
          routineSaid.push(`${a.labels['alertname']}: ${a.annotations['summary'] ?? ''}`);
      } else if (!firstPage.has(session)) firstPage.set(session, n.createdAt);
    }
  }
  const latencies: number[] = [];
  const missed: Record<string, number> = {};
  const slowest: Record<string, number> = {};
  const slowSaid: string[] = [];
  const missedSaid: string[] = [];
  for (const i of incidents) {
    const at = firstPage.get(i.session);
    if (at === undefined) {
      missed[i.kind] = (missed[i.kind] ?? 0) + 1;
      if (missedSaid.length < 5) {
        missedSaid.push(
          `${i.kind} ${i.session} on ${i.channel}: knowable ${new Date(knowableAt(i)).toISOString()}`,
        );
      }
    } else {
      const took = Math.max(0, at - knowableAt(i));
      latencies.push(took);
      slowest[i.kind] = Math.max(slowest[i.kind] ?? 0, took);
      if (took > 2 * M && slowSaid.length < 5) {
        slowSaid.push(
          `${i.kind} ${i.session} on ${i.channel}: knowable ${new Date(knowableAt(i)).toISOString()}, paged ${new Date(at).toISOString()}`,
        );
      }
    }
  }
  return {
    channels,
    hours,
    incidents: incidents.length,
    alerted: latencies.length,
    missed,
    latencies: latencies.sort((a, b) => a - b),
    slowest,
    routinePages,
    routineSaid,
    slowSaid,
    missedSaid,
    pages,
    notifications: sent.length,
    wallMs,
  };
}

export function quantile(sorted: readonly number[], q: number): number | undefined {
  if (sorted.length === 0) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

export const alertQualityBench: Bench = {
  name: 'alert-quality',
  description: 'incidents alerted, knowable → notification p50/p95, routine paged (bench/alert-quality.ts)',
  async run(opts: BenchOptions): Promise<BenchResult> {
    const sizes = opts.channels ?? [100, 1000];
    const hours = Number(process.env['BENCH_ALERT_HOURS'] ?? (opts.quick ? 3 : 24));
    const rate = Number(process.env['BENCH_ALERT_RATE'] ?? 0.05);
    const seed = Number(process.env['BENCH_ALERT_SEED'] ?? 7);
    const runs: Run[] = [];
    for (const n of sizes) {
      const h = n >= 1000 && process.env['BENCH_ALERT_HOURS'] === undefined ? Math.min(hours, 8) : hours;
      runs.push(await runInChild(n, h, rate, seed));
    }
    const s = (ms: number | undefined) => (ms === undefined ? '—' : `${(ms / 1000).toFixed(0)} s`);
    const rows = runs.map((r) => [
      r.channels,
      `${r.hours} h`,
      `${r.alerted} / ${r.incidents}`,
      s(quantile(r.latencies, 0.5)),
      s(quantile(r.latencies, 0.95)),
      r.routinePages,
      Object.entries(r.missed)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || '—',
      r.covered ?? 0,
      `${(r.wallMs / 1000).toFixed(0)} s`,
    ]);
    const said = runs.flatMap((r) => r.routineSaid.map((x) => `  ${r.channels} channels: ${x}`));
    const slow = runs.flatMap((r) => r.slowSaid.map((x) => `  ${r.channels} channels: ${x}`));
    const never = runs.flatMap((r) => r.missedSaid.map((x) => `  ${r.channels} channels: ${x}`));
    return {
      name: 'alert-quality',
      tables: [
        ...(said.length > 0 ? [`routine paged (first few):\n${said.join('\n')}`] : []),
        ...(never.length > 0 ? [`never paged (first few):\n${never.join('\n')}`] : []),
        ...(slow.length > 0 ? [`paged after more than 2 minutes (first few):\n${slow.join('\n')}`] : []),
        table(
          [
            'channels',
            'simulated',
            'incidents alerted',
            'p50',
            'p95',
            'routine pages',
            'missed',
            'no-show on air',
            'wall',
          ],
          rows,
        ),
      ],
      data: {
        rate,
        seed,
        runs: runs.map(({ latencies, ...r }) => ({
          ...r,
          p50: quantile(latencies, 0.5),
          p95: quantile(latencies, 0.95),
          max: latencies.at(-1),
        })),
      },
    };
  },
};

/**
 * Node flags of the run's own process: a young generation large enough that what lives
 * for one read cycle (a channel list, its hot session lists, what rules see of them) dies
 * young instead of being copied and promoted, which halves the wall time at 1000
 * channels; and room for the simulated world, which keeps every session's history.
 */
const CHILD_FLAGS = ['--max-semi-space-size=64', '--max-old-space-size=12288'];

/** One run in a process of its own (CHILD_FLAGS); its progress lines go to stderr. */
function runInChild(channels: number, hours: number, rate: number, seed: number): Promise<Run> {
  const script = fileURLToPath(import.meta.url);
  const args = [
    ...CHILD_FLAGS,
    '--import',
    'tsx',
    script,
    '--child',
    ...[channels, hours, rate, seed].map(String),
  ];
  return new Promise<Run>((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.on('data', (c: Buffer) => {
      text += c.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`alert-quality run at ${channels} channels: exit ${code}`));
      resolve(JSON.parse(text) as Run);
    });
  });
}

if (process.argv[2] === '--child' && process.argv[1] === fileURLToPath(import.meta.url)) {
  const [channels, hours, rate, seed] = process.argv.slice(3).map(Number) as [number, number, number, number];
  const run = runOne(channels, hours, rate, seed, (line) => process.stderr.write(`${line}\n`));
  process.stdout.write(JSON.stringify(run));
}
