/**
 * Shared pieces of the resilience suite: a whole tally (the real App, test/helpers/
 * daemon.ts) against the simulator on loopback, with short intervals, its events and log
 * lines collected, and small waiting helpers.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Simulator } from '../../src/sim/index.js';
import type { ChangeEvent } from '../../src/snapshot/events.js';

// A whole tally in this process, as every scenario here starts it (test/helpers/daemon.ts).
import type { Tally } from '../helpers/daemon.js';
export { startTally, type Tally, type TallyOptions, tallyConfig } from '../helpers/daemon.js';

/** A temporary directory, removed by the returned function. */
export async function tempDir(prefix: string): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), `tally-${prefix}-`));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Waits until `check` holds (polling every 50 ms), failing with `what` after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, what: string, ms = 8000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await sleep(50);
  }
  if (await check()) return;
  throw new Error(`timed out after ${ms} ms waiting for ${what}`);
}

/** Whether every channel's session list and the org-level parts have been read completely. */
export function baselineDone(t: Tally): boolean {
  const view = t.app.orgs()[0];
  if (!view?.ready) return false;
  const channels = view.snapshot.channels;
  if (channels?.state !== 'complete') return false;
  return channels.value.every((c) => view.snapshot.sessions[c.id]?.state === 'complete');
}

/** Events about the organization's data (everything but upstream health). */
export function dataEvents(events: readonly ChangeEvent[]): ChangeEvent[] {
  return events.filter((e) => e.entity.kind !== 'upstream');
}

/** Every event in the state directory's event log, oldest first. */
export async function loggedEvents(stateDir: string): Promise<ChangeEvent[]> {
  const dir = path.join(stateDir, 'events');
  const files = (await readdir(dir).catch(() => [])).filter((f) => f.endsWith('.jsonl')).sort();
  const out: ChangeEvent[] = [];
  for (const f of files) {
    for (const line of (await readFile(path.join(dir, f), 'utf8')).split('\n')) {
      if (line.trim()) out.push(JSON.parse(line) as ChangeEvent);
    }
  }
  return out;
}

/** A channel status different from `current`. */
export function otherStatus(current: unknown): 'live' | 'idle' | 'offline' {
  return current === 'offline' ? 'idle' : 'offline';
}

/** One way of answering badly, instead of the simulator. */
export type Breakage = (req: IncomingMessage, res: ServerResponse) => void;

/** A proxy in front of the simulator (tally's base_url points at `url`). */
export interface BreakingProxy {
  url: string;
  close(): Promise<void>;
}

/**
 * Starts a proxy to `target` that answers with `broken(req)` instead whenever it returns
 * one. The simulator's absolute links point at itself; they are rewritten to go through
 * the proxy too.
 */
export async function startProxy(
  target: Simulator,
  broken: (req: IncomingMessage) => Breakage | undefined,
): Promise<BreakingProxy> {
  let origin = '';
  const server = createServer((req, res) => {
    const breakage = broken(req);
    if (breakage) return breakage(req, res);
    const upstream = request(
      `${target.url}${req.url}`,
      { method: req.method, headers: req.headers },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (c: Buffer) => chunks.push(c));
        answer.on('end', () => {
          const headers = { ...answer.headers };
          if (typeof headers.link === 'string') headers.link = headers.link.split(target.url).join(origin);
          delete headers['content-length'];
          delete headers['content-encoding'];
          const body = Buffer.concat(chunks).toString('utf8').split(target.url).join(origin);
          res.writeHead(answer.statusCode ?? 502, headers).end(body);
        });
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
