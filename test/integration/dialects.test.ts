/**
 * Servers tally has never seen: the simulator's dialects (src/sim/dialect.ts) each speak
 * the documented API differently — envelope, paging, case, ids, times, words, money,
 * page-size caps, strictness, filters, error bodies. With no `upstream.shape` override,
 * `tally once` must read the same organization from every one of them, and `tally run`
 * must see its changes with no drift that fails a read.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onceCommand } from '../../src/cli/once.js';
import { runCommand } from '../../src/cli/run.js';
import { DIALECT_NAMES } from '../../src/sim/dialect.js';
import { startSimulator } from '../../src/sim/index.js';
import type { OrgSnapshot } from '../../src/snapshot/model.js';
import { channelClass, statusClass } from '../../src/snapshot/vocabulary.js';
import { captureIO } from '../helpers/io.js';
import { waitFor } from '../helpers/wait.js';
import { sessionArray } from '../../src/snapshot/session-list.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tally-dialects-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function config(name: string, url: string, extra = ''): Promise<string> {
  const file = path.join(dir, `${name}.yaml`);
  await writeFile(
    file,
    `upstream:\n  base_url: ${url}\norgs:\n  - slug: demo\n    token: demo-token\n${extra}`,
  );
  return file;
}

/** What must read the same whatever the dialect. */
function facts(s: OrgSnapshot) {
  const v = <T>(p: { state: string; value?: T } | undefined) =>
    p && p.state !== 'failed' ? p.value : undefined;
  const channels = v(s.channels) ?? [];
  const sessions = Object.values(s.sessions).flatMap((p) => sessionArray(v(p) ?? []));
  const sub = v(s.subscription);
  const count = (words: string[]) => {
    const m: Record<string, number> = {};
    for (const w of words) m[w] = (m[w] ?? 0) + 1;
    return m;
  };
  return {
    plan: v(s.profile)?.plan,
    members: v(s.team)?.length,
    channels: count(channels.map((c) => channelClass(c.status))),
    visibilities: channels.filter((c) => c.visibility !== undefined).length,
    sessions: count(sessions.map((x) => statusClass(x.status))),
    withTimes: sessions.filter((x) => x.scheduledAt !== undefined || x.startedAt !== undefined).length,
    funding:
      sub?.funding.mode === 'wallet'
        ? { balance: Math.round((sub.funding.balance ?? Number.NaN) * 100), currency: sub.funding.currency }
        : sub?.funding,
  };
}

describe('tally once against every dialect, no overrides', () => {
  const seen: Record<string, ReturnType<typeof facts>> = {};

  it.each(DIALECT_NAMES)('%s', async (dialect) => {
    // One world (same seed, frozen: nothing changes on its own) behind each dialect.
    const sim = await startSimulator({ orgs: ['demo'], channels: 9, seed: 11, frozen: true, dialect });
    try {
      const io = captureIO({}, dir);
      const code = await onceCommand(
        ['--config', await config(`once-${dialect}`, sim.url), '--json', '--explain'],
        io,
      );
      expect(io.err()).not.toMatch(/schema drift|not read completely|incomplete|failed/);
      expect(code).toBe(0);
      const out = JSON.parse(io.out()) as {
        orgs: Record<string, OrgSnapshot>;
        explain: Record<string, Record<string, { fields: Record<string, unknown>; drift: string[] }>>;
      };
      const f = facts(out.orgs['demo']!);
      expect(f.members).toBeGreaterThan(0);
      expect(Object.values(f.channels).reduce((a, b) => a + b, 0)).toBe(9);
      expect(f.channels['unknown']).toBeUndefined();
      expect(f.sessions['unknown']).toBeUndefined();
      expect(f.funding).toMatchObject({ currency: expect.any(String) });
      // Every explained endpoint names a source for the fields it read, and no drift.
      const explain = out.explain['demo']!;
      expect(Object.keys(explain)).toEqual(
        expect.arrayContaining(['org', 'team', 'subscription', 'channels', 'sessions']),
      );
      for (const e of Object.values(explain)) expect(e.drift).toEqual([]);
      expect(explain['subscription']?.fields['funding.balance']).toBeDefined();
      seen[dialect] = f;
      if (dialect !== 'default' && seen['default']) expect(f).toEqual(seen['default']);
    } finally {
      await sim.close();
    }
  });
});

describe('tally run against every dialect, no overrides', () => {
  const seen: Record<string, ReturnType<typeof facts>> = {};

  it.each(DIALECT_NAMES)(
    '%s: reads the same org, sees changes and stays free of drift that fails a read',
    async (dialect) => {
      // One world (same seed, frozen: only the triggers below change it) behind each dialect.
      const sim = await startSimulator({ orgs: ['demo'], channels: 6, seed: 7, frozen: true, dialect });
      try {
        const file = await config(
          `run-${dialect}`,
          sim.url,
          `intervals: { org: 2s, team: 2s, subscription: 2s, channels: 1s, live_sessions: 1s, live_detail: 1s, sweep: 2s, jitter: 0 }
server: { listen: 127.0.0.1:0 }
state: { dir: ${JSON.stringify(path.join(dir, `state-${dialect}`))} }
log: { level: info, format: json }
`,
        );
        const io = captureIO({}, dir);
        const running = runCommand(['--config', file], io);
        const base = await waitFor(
          () => /"url":"(http:\/\/127\.0\.0\.1:\d+)","msg":"serving metrics/.exec(io.out())?.[1],
          'the HTTP server',
          15_000,
        );
        await waitFor(
          async () => ((await fetch(`${base}/-/ready`)).ok ? true : undefined),
          'readiness',
          20_000,
        );
        const snapshot = async () =>
          (await (await fetch(`${base}/api/v1/snapshot/demo`)).json()) as OrgSnapshot;
        // The org as `run` holds it once every channel's session list was read completely.
        const before = await waitFor(
          async () => {
            const s = await snapshot();
            const lists = Object.values(s.sessions);
            const channels = s.channels?.state === 'complete' ? s.channels.value.length : -1;
            return lists.length === channels && lists.every((p) => p.state === 'complete') ? s : undefined;
          },
          "every channel's session list read",
          20_000,
        );
        const f = facts(before);
        expect(Object.values(f.channels).reduce((a, b) => a + b, 0)).toBe(6);
        expect(f.members).toBeGreaterThan(0);
        expect(f.channels['unknown']).toBeUndefined();
        expect(f.sessions['unknown']).toBeUndefined();
        expect(f.funding).toMatchObject({ balance: expect.any(Number), currency: expect.any(String) });
        seen[dialect] = f;
        if (dialect !== 'default' && seen['default']) expect(f).toEqual(seen['default']);

        // Changes, the same in every dialect: a channel's status, then a session going live.
        const world = sim.view('demo');
        const quiet = world.channels.find((c) => c['status'] !== 'live')!;
        sim.trigger.channelStatus({
          channel: String(quiet['id']),
          status: quiet['status'] === 'offline' ? 'idle' : 'offline',
        });
        const started = sim.trigger.startSession({ channel: String(quiet['id']), title: 'Run check' });
        const kinds = await waitFor(
          async () => {
            const body = (await (await fetch(`${base}/api/v1/events?limit=200`)).json()) as {
              events: { kind: string }[];
            };
            const k = new Set(body.events.map((e) => e.kind));
            return k.has('channel.status_changed') && k.has('session.started') ? k : undefined;
          },
          'the channel status change and the session start',
          30_000,
        );
        expect(kinds.size).toBeGreaterThan(0);
        // The new session reads as live whatever this server calls it.
        const live = (f.sessions['live'] ?? 0) + 1;
        await waitFor(
          async () => ((facts(await snapshot()).sessions['live'] ?? 0) === live ? true : undefined),
          `${live} live sessions in the snapshot`,
          10_000,
        );
        // A failed and a cancelled session read as such, whatever words this server uses.
        sim.trigger.failSession({ session: started.id! });
        const scheduled = Object.values(world.sessions)
          .flat()
          .find((x) => x['status'] === 'scheduled')!;
        sim.trigger.cancelSession({ session: String(scheduled['id']) });
        const expected = {
          ...f.sessions,
          scheduled: (f.sessions['scheduled'] ?? 0) - 1,
          failed: (f.sessions['failed'] ?? 0) + 1,
          canceled: (f.sessions['canceled'] ?? 0) + 1,
        };
        const classes = await waitFor(
          async () => {
            const now = facts(await snapshot()).sessions;
            return now['failed'] === expected.failed && now['canceled'] === expected.canceled
              ? now
              : undefined;
          },
          'the failed and the cancelled session',
          15_000,
        );
        expect(classes).toEqual(expected);
        const status = (await (await fetch(`${base}/api/v1/status`)).json()) as {
          orgs: { drift: { fatal: boolean; problem: string }[] }[];
        };
        expect(status.orgs[0]?.drift.filter((d) => d.fatal)).toEqual([]);
        io.stop();
        expect(await running).toBe(0);
      } finally {
        await sim.close();
      }
    },
  );
});
