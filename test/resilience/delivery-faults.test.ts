/**
 * Delivery faults through the App: a channel goes offline, the `channel_offline` rule
 * fires, and the notification goes through the outbox to a real SMTP server and a real
 * webhook receiver that are down (connection refused) and come up later, or that answer
 * 503 for a while. Each receiver gets the notification once, with a stable id, and the
 * outbox is empty afterwards.
 */
import { readdir } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { type HttpReceiver, startHttpReceiver } from '../notify/helpers/http-receiver.js';
import { closedPort } from '../notify/helpers/smtp.js';
import { baselineDone, sleep, startTally, type Tally, tempDir, until } from './helpers.js';

let sim: Simulator | undefined;
let tally: Tally | undefined;
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  await tally?.stop();
  await sim?.close();
  for (const close of closers.splice(0).reverse()) await close();
  tally = undefined;
  sim = undefined;
});

function alerting(smtpPort: number, hookUrl: string): string {
  return `rules:
  - name: channel_offline
    on: channel.status_changed
    when: 'has(event.from) && is_live(string(event.from)) && !(has(event.to) && is_live(string(event.to)))'
route:
  receiver: mail
  group_wait: 0s
  group_interval: 1s
  routes:
    - { matchers: ['alertname = "channel_offline"'], receiver: mail, continue: true }
    - { matchers: ['alertname = "channel_offline"'], receiver: hook }
receivers:
  - name: mail
    email: { to: [oncall@example.com], from: tally@example.com, smtp: { host: 127.0.0.1, port: ${smtpPort}, tls: none } }
  - name: hook
    webhook: { url: ${hookUrl} }
delivery:
  timeout: 1s
  backoff: { base: 100ms, max: 300ms }
`;
}

/** An SMTP server on a given port, recording Message-IDs. */
async function smtpOn(port: number): Promise<{ ids: string[]; close: () => Promise<void> }> {
  const ids: string[] = [];
  const server = new SMTPServer({
    logger: false,
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    closeTimeout: 100,
    onData(stream, _s, cb) {
      let raw = '';
      stream.on('data', (c: Buffer) => {
        raw += c.toString();
      });
      stream.on('end', () => {
        ids.push(/^Message-ID: (.*)$/im.exec(raw)?.[1]?.trim() ?? '?');
        cb();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return { ids, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** A webhook receiver on a given port, recording the webhook-id of each POST. */
async function webhookOn(port: number): Promise<{ ids: string[]; close: () => Promise<void> }> {
  const ids: string[] = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      ids.push(String((req.headers as IncomingHttpHeaders)['webhook-id']));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    ids,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A frozen world with one live channel, and tally past its baseline. */
async function liveChannelAndTally(extra: string, stateDir: string): Promise<string> {
  sim = await startSimulator({ seed: 13, channels: 4, sessionsPerChannel: 2, frozen: true });
  const id = String(sim.view('demo').channels[0]!['id']);
  sim.trigger.channelStatus({ channel: id, status: 'live' });
  tally = await startTally({ sim, stateDir, extra });
  const t = tally;
  await until(() => baselineDone(t), 'the baseline');
  return id;
}

async function outboxFiles(stateDir: string): Promise<string[]> {
  return (await readdir(path.join(stateDir, 'outbox')).catch(() => [])).filter((f) => f.endsWith('.json'));
}

describe('receivers down, then up', () => {
  it('delivers to SMTP and the webhook once each, after they come up', async () => {
    const tmp = await tempDir('delivery');
    closers.push(tmp.remove);
    const [smtpPort, hookPort] = [await closedPort(), await closedPort()];
    const channel = await liveChannelAndTally(
      alerting(smtpPort, `http://127.0.0.1:${hookPort}/hook`),
      tmp.dir,
    );
    sim!.trigger.channelStatus({ channel, status: 'offline' });
    await until(() => tally!.events.some((e) => e.entity.id === channel), 'the change');
    await sleep(1200); // several refused attempts
    expect((await outboxFiles(tmp.dir)).length).toBeGreaterThan(0);

    const mail = await smtpOn(smtpPort);
    closers.push(mail.close);
    const hook = await webhookOn(hookPort);
    closers.push(hook.close);
    await until(
      async () => mail.ids.length > 0 && hook.ids.length > 0 && (await outboxFiles(tmp.dir)).length === 0,
      'delivery',
    );
    await sleep(1000); // room for a duplicate
    expect(mail.ids).toHaveLength(1);
    expect(hook.ids).toHaveLength(1);
  });
});

describe('a webhook that answers 503 for a while', () => {
  let rx: HttpReceiver;
  it('is retried with the same id until it takes the notification, then not again', async () => {
    const tmp = await tempDir('delivery');
    closers.push(tmp.remove);
    rx = await startHttpReceiver();
    closers.push(() => rx.close());
    rx.respond((_req, i) => ({ status: i < 3 ? 503 : 200 }));
    const channel = await liveChannelAndTally(alerting(await closedPort(), `${rx.url}/hook`), tmp.dir);
    sim!.trigger.channelStatus({ channel, status: 'offline' });
    await rx.waitFor(4, 15_000);
    await sleep(1000);
    expect(rx.requests).toHaveLength(4);
    const ids = new Set(rx.requests.map((r) => r.headers['webhook-id']));
    expect(ids.size).toBe(1);
    const body = JSON.parse(rx.requests[3]!.body) as { alerts: { labels: Record<string, string> }[] };
    expect(body.alerts.map((a) => a.labels['alertname'])).toEqual(['channel_offline']);
  });
});
