/**
 * Errors on the wire, end to end through the App: a proxy in front of the simulator
 * answers every request with one kind of broken response (an unknown or lying
 * Content-Encoding, a corrupt compressed body, a connection cut mid-body, a Content-Length
 * that lies, a status line that is not HTTP). Each is a failed read naming its endpoint:
 * the daemon keeps running and polling (an unhandled `'error'` would fail this file), no
 * data event appears, and once the server answers properly again the next real change is
 * reported exactly once.
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

const json = { 'content-type': 'application/json' };

const ROWS: [name: string, breakage: Breakage][] = [
  [
    'an unknown Content-Encoding',
    (_q, res) => res.writeHead(200, { ...json, 'content-encoding': 'x-weird' }).end('{}'),
  ],
  [
    'a coding list with an unknown member',
    (_q, res) => res.writeHead(200, { ...json, 'content-encoding': 'identity, compress' }).end('{}'),
  ],
  [
    'a gzip body that is not gzip',
    (_q, res) => res.writeHead(200, { ...json, 'content-encoding': 'gzip' }).end('{"a":1}'),
  ],
  [
    'a brotli body that is corrupt',
    (_q, res) =>
      res
        .writeHead(200, { ...json, 'content-encoding': 'br' })
        .end(Buffer.from([0xff, 0xff, 0xff, 0xff, 1, 2])),
  ],
  [
    'a connection cut in the middle of the body',
    (_q, res) => {
      res.writeHead(200, { ...json, 'content-length': '4000' });
      res.write('{"data": [');
      setTimeout(() => res.socket?.destroy(), 10);
    },
  ],
  [
    'a Content-Length longer than the body',
    (_q, res) => {
      res.writeHead(200, { ...json, 'content-length': '50' });
      res.end('{}');
      res.socket?.end();
    },
  ],
  [
    'a status line that is not HTTP',
    (q) => {
      q.socket.end('SPDY/9 banana\r\n\r\n');
    },
  ],
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

describe.each(ROWS)('a response with %s', (_name, breakage) => {
  it('is a failed read; tally keeps polling and reports the next real change once', async () => {
    const tmp = await tempDir('wire');
    cleanup = tmp.remove;
    sim = await startSimulator({ seed: 4, channels: 4, sessionsPerChannel: 2, frozen: true });
    let breaking = false;
    proxy = await startProxy(sim, () => (breaking ? breakage : undefined));
    const url = proxy.url;
    const s = sim;
    // The proxy stands where the API is: the config's base_url points at it.
    const viaProxy = { ...s, url } as Simulator;
    tally = await startTally({ sim: viaProxy, stateDir: tmp.dir });
    const t = tally;
    await until(() => baselineDone(t), 'the baseline', 15_000);
    expect(dataEvents(t.events)).toEqual([]);

    breaking = true;
    const failed = () => [...(t.app.orgs()[0]?.attempts.values() ?? [])].some((a) => a.state === 'failed');
    await until(failed, 'a failed read');
    await sleep(2500);
    expect(dataEvents(t.events)).toEqual([]);
    // The daemon still serves and still reads.
    expect((await fetch(`${t.app.url()}/-/healthy`)).status).toBe(200);

    breaking = false;
    const channel = s.view('demo').channels[1]!;
    const to = otherStatus(channel['status']);
    s.trigger.channelStatus({ channel: String(channel['id']), status: to });
    await until(() => dataEvents(t.events).length > 0, 'the real change', 15_000);
    await sleep(1500); // room for a duplicate or a phantom to show up
    expect(dataEvents(t.events).map((e) => [e.kind, e.entity.id, e.to])).toEqual([
      ['channel.status_changed', channel['id'], to],
    ]);
  });
});
