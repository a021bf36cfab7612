/**
 * `tally once --explain` against a server of conventions tally has no names for: the
 * simulator's world behind a proxy that moves every list under `response.value` and
 * renames the session fields. It is read alike, and the explanation says which tier found
 * what; a server whose times cannot be read at all is said to be, and its sessions are
 * never counted in the window (docs/upstream-shapes.md, "Envelopes", "Fields", "Blindness
 * is loud").
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onceCommand } from '../../src/cli/once.js';
import { startSimulator } from '../../src/sim/index.js';
import { captureIO } from '../helpers/io.js';
import { type Loopback, startServer } from '../upstream/loopback.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tally-explain-unseen-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function once(url: string, name: string): Promise<{ code: number; out: string }> {
  const file = path.join(dir, `${name}.yaml`);
  await writeFile(file, `upstream:\n  base_url: ${url}\norgs:\n  - slug: demo\n    token: demo-token\n`);
  const io = captureIO({}, dir);
  const code = await onceCommand(['--config', file, '--explain'], io);
  return { code, out: io.out() };
}

function block(out: string, endpoint: string): string[] {
  const lines = out.split('\n');
  const start = lines.indexOf(`  ${endpoint}`);
  const rest = start < 0 ? [] : lines.slice(start + 1);
  const end = rest.findIndex((l) => !l.startsWith('    '));
  return end < 0 ? rest : rest.slice(0, end);
}

/** A proxy in front of the simulator rewriting each JSON body with `rewrite`. */
async function proxy(
  target: string,
  rewrite: (pathname: string, body: unknown) => unknown,
): Promise<Loopback> {
  let origin = '';
  const server = await startServer(async (req: IncomingMessage, res: ServerResponse) => {
    const upstream = await fetch(`${target}${req.url ?? '/'}`, {
      headers: { authorization: req.headers.authorization ?? '' },
    });
    const type = upstream.headers.get('content-type') ?? '';
    let text = await upstream.text();
    if (type.includes('json') && upstream.ok) {
      const pathname = new URL(req.url ?? '/', 'http://x').pathname;
      text = JSON.stringify(rewrite(pathname, JSON.parse(text))).replaceAll(target, origin);
    }
    res.writeHead(upstream.status, { 'content-type': type }).end(text);
  });
  origin = server.origin;
  return server;
}

/** Renames keys of an object by `names`; others are kept. */
const rename = (o: Record<string, unknown>, names: Record<string, string>) =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [names[k] ?? k, v]));

/** A list body `{ data: [...], …paging }` → `{ response: { value: [...] }, …paging }`, items renamed. */
function unseen(body: unknown, names: Record<string, string>): unknown {
  const b = body as { data?: Record<string, unknown>[] };
  if (!Array.isArray(b.data)) return body;
  const { data, ...rest } = b;
  return { ...rest, response: { value: data.map((item) => rename(item, names)) } };
}

const sessionsLine = (out: string) => out.split('\n').find((l) => l.startsWith('  sessions in window:'));

describe('a server of conventions tally has no names for', () => {
  it('is read alike: lists by their shape, session times and status by their words', async () => {
    const sim = await startSimulator({ orgs: ['demo'], channels: 3, seed: 2, frozen: true });
    const names = {
      scheduled_at: 'plannedBegin',
      started_at: 'actualStartTime',
      ended_at: 'actualEndTime',
      status: 'lifecyclePhase',
    };
    const front = await proxy(sim.url, (pathname, body) =>
      pathname.endsWith('/sessions') ? unseen(body, names) : unseen(body, {}),
    );
    try {
      const plain = await once(sim.url, 'plain');
      const r = await once(front.origin, 'unseen');
      expect(r.code).toBe(0);
      expect(sessionsLine(r.out)).toBe(sessionsLine(plain.out));
      expect(sessionsLine(r.out)).toMatch(/^ {2}sessions in window: [1-9]/);
      const sessions = block(r.out, 'sessions');
      expect(sessions).toEqual(
        expect.arrayContaining([
          '    found at: response.value (by shape)',
          expect.stringMatching(
            /^ {4}session\.scheduledAt ← plannedBegin (\(epoch \w+\) )?\[words, confidence 1\.00\]$/,
          ),
          expect.stringMatching(/^ {4}session\.status ← lifecyclePhase \[words, confidence 1\.00\]$/),
          expect.stringMatching(/^ {4}session\.endedAt ← actualEndTime .*\[words, confidence 1\.00\]/),
        ]),
      );
      expect(block(r.out, 'channels')).toContain('    found at: response.value (by shape)');
      expect(sessions.filter((l) => l.startsWith('    drift:'))).toEqual([]);
    } finally {
      await front.close();
      await sim.close();
    }
  });

  it('times it cannot read: said loudly, and no session counted in the window', async () => {
    const sim = await startSimulator({ orgs: ['demo'], channels: 3, seed: 2, frozen: true });
    const names = { scheduled_at: 'kickoff', started_at: 'kickedOff', ended_at: 'whistle' };
    const front = await proxy(sim.url, (pathname, body) =>
      pathname.endsWith('/sessions') ? unseen(body, names) : body,
    );
    try {
      const r = await once(front.origin, 'blind');
      expect(r.code).toBe(0);
      expect(sessionsLine(r.out)).toMatch(
        /^ {2}sessions in window: 0; \d+ without readable times \(window unknown, not counted\)$/,
      );
      const sessions = block(r.out, 'sessions');
      expect(sessions).toContain(
        '    drift: session.times: unreadable on most records of the list (more than half): those sessions are not counted in the window, nor reported added or removed',
      );
      expect(sessions.find((l) => l.startsWith('    not read:'))).toMatch(/session\.scheduledAt ×\d+/);
    } finally {
      await front.close();
      await sim.close();
    }
  });
});
