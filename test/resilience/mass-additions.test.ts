/**
 * A sudden mass of additions, end to end through the App (docs/events.md, "Mass
 * additions"): a channel's session list answers 150 new sessions at once where it held a
 * couple. Once only: nothing is reported, ever. Answered again by the read that follows:
 * one `session.added_bulk` with the count, instead of 150 `session.added`.
 */
import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import {
  type Breakage,
  baselineDone,
  type BreakingProxy,
  dataEvents,
  sleep,
  startProxy,
  startTally,
  type Tally,
  tempDir,
  until,
} from './helpers.js';

const MASS = 150;

let sim: Simulator | undefined;
let proxy: BreakingProxy | undefined;
let tally: Tally | undefined;
let cleanup: (() => Promise<void>) | undefined;

afterEach(async () => {
  await tally?.stop();
  await proxy?.close();
  await sim?.close();
  await cleanup?.();
  tally = undefined;
  proxy = undefined;
  sim = undefined;
});

/** The simulator's answer to `req` with {@link MASS} scheduled sessions more on its first page. */
function inflated(s: Simulator, channel: string): Breakage {
  return (req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const answer = await fetch(`${s.url}${req.url}`, {
        headers: { authorization: String(req.headers.authorization) },
      });
      const body = (await answer.json()) as { data: Record<string, unknown>[] };
      const first = !['page', 'offset', 'cursor'].some((k) => {
        const v = url.searchParams.get(k);
        return v !== null && v !== '' && v !== '0' && v !== '1';
      });
      if (first) {
        const at = new Date(Date.now() + 3_600_000).toISOString();
        for (let i = 0; i < MASS; i++) {
          body.data.push({
            id: `ses_mass_${i}`,
            channel_id: channel,
            title: `Mass ${i}`,
            status: 'scheduled',
            scheduled_at: at,
            started_at: null,
            ended_at: null,
          });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    })();
  };
}

describe('a session list that suddenly adds a mass of sessions', () => {
  it.each([
    ['once only', 1, 0],
    ['to every read from then on', Number.POSITIVE_INFINITY, 1],
  ])(
    '%s',
    async (_name, reads, bulkEvents) => {
      const tmp = await tempDir('mass');
      cleanup = tmp.remove;
      sim = await startSimulator({ seed: 8, channels: 3, sessionsPerChannel: 2, frozen: true });
      const s = sim;
      const channel = String(s.view('demo').channels[1]!['id']);
      let left = 0;
      const path = `/channels/${channel}/sessions`;
      proxy = await startProxy(s, (req: IncomingMessage) => {
        if (!(req.url ?? '').includes(path) || left <= 0) return undefined;
        left -= 1;
        return inflated(s, channel);
      });
      tally = await startTally({ sim: { ...s, url: proxy.url } as Simulator, stateDir: tmp.dir });
      const t = tally;
      await until(() => baselineDone(t), 'the baseline', 15_000);
      await sleep(1000);
      expect(dataEvents(t.events)).toEqual([]);

      left = reads;
      // The sweep reads every channel's sessions within a few seconds in these tests.
      await sleep(8000);
      left = 0;
      await sleep(4000);
      const events = dataEvents(t.events);
      expect(events.filter((e) => e.kind === 'session.added')).toEqual([]);
      const bulk = events.filter((e) => e.kind === 'session.added_bulk');
      expect(bulk).toHaveLength(bulkEvents);
      if (bulkEvents > 0) {
        expect(bulk[0]).toMatchObject({ entity: { kind: 'channel', id: channel }, to: MASS });
        expect(bulk[0]!.labels['count']).toBe(String(MASS));
      }
      expect(
        t.logs.some(
          (l) => l['msg'] === 'suspect read: a mass of additions held until a later read confirms it',
        ),
      ).toBe(true);
    },
    45_000,
  );
});
