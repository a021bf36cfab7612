/**
 * Bodies that read fine but say too little, end to end through the App: a channel list or
 * team that comes back empty or `{"data": null}`, a subscription or profile body with
 * none of the fields tally reads. None of them may become events: the empty lists are
 * suspect reads whose removals wait for evidence (and are never confirmed here, since the
 * lists come back), the bodies are failed reads. When the server is well again, nothing
 * spurious follows (no re-adds, no session events), and a real change is reported once.
 * The other direction, a genuine mass deletion confirmed and reported once, is checked by
 * test/poll/removals.test.ts on a manual clock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import {
  type Breakage,
  baselineDone,
  dataEvents,
  otherStatus,
  type BreakingProxy,
  sleep,
  startProxy,
  startTally,
  type Tally,
  tempDir,
  until,
} from './helpers.js';

const json =
  (body: unknown): Breakage =>
  (_q, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));

/** Which requests break, and how. */
const ROWS: [name: string, path: RegExp, breakage: Breakage][] = [
  ['an empty channel list', /\/channels(\?|$)/, json({ data: [] })],
  ['a channel list of null', /\/channels(\?|$)/, json({ data: null })],
  ['an empty team', /\/team(\?|$)/, json({ data: [] })],
  [
    'a subscription with none of the fields tally reads',
    /\/subscription(\?|$)/,
    json({ unrelated: { x: 1 } }),
  ],
  ['a profile that is an empty object', /\/v1\/demo(\?|$)/, json({})],
];

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

describe.each(ROWS)('a server answering %s', (_name, path, breakage) => {
  it('gives no event while it lasts and none spurious after it', async () => {
    const tmp = await tempDir('suspect');
    cleanup = tmp.remove;
    sim = await startSimulator({ seed: 6, channels: 4, sessionsPerChannel: 2, frozen: true });
    let breaking = false;
    proxy = await startProxy(sim, (req) => (breaking && path.test(req.url ?? '') ? breakage : undefined));
    const s = sim;
    tally = await startTally({ sim: { ...s, url: proxy.url } as Simulator, stateDir: tmp.dir });
    const t = tally;
    await until(() => baselineDone(t), 'the baseline', 15_000);
    expect(dataEvents(t.events)).toEqual([]);

    breaking = true;
    // The org-level parts are read every 10 s in these tests, the channels every 2 s.
    await sleep(path.source.includes('channels') ? 5000 : 11_000);
    expect(dataEvents(t.events)).toEqual([]);

    breaking = false;
    await sleep(path.source.includes('channels') ? 4000 : 11_000);
    expect(dataEvents(t.events)).toEqual([]);

    const channel = s.view('demo').channels[0]!;
    const to = otherStatus(channel['status']);
    s.trigger.channelStatus({ channel: String(channel['id']), status: to });
    await until(() => dataEvents(t.events).length > 0, 'the real change', 15_000);
    await sleep(1500);
    expect(dataEvents(t.events).map((e) => [e.kind, e.entity.id, e.to])).toEqual([
      ['channel.status_changed', channel['id'], to],
    ]);
  });
});
