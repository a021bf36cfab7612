import { afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/clock.js';
import { systemClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/log.js';
import { AlertmanagerNotifier, toPostableAlerts } from '../../src/notify/alertmanager/alertmanager.js';
import { AlertmanagerResender } from '../../src/notify/alertmanager/resender.js';
import { alertmanagerSchema } from '../../src/notify/alertmanager/schema.js';
import type { DeliveryError } from '../../src/notify/notifier.js';
import { runNotifierContract } from './contract.js';
import {
  firingAlert,
  firingNotification,
  recordingMetrics,
  resolvedNotification,
} from './helpers/fixtures.js';
import { type HttpReceiver, startHttpReceiver } from './helpers/http-receiver.js';
import { closedPort } from './helpers/smtp.js';

const TOKEN = 'am-bearer-token-789';
const NOW = Date.parse('2025-03-01T15:00:00Z');
const fixedClock: Clock = { ...systemClock, now: () => NOW };

/** An Alertmanager notifier; `resendMs` sets a resend interval shorter than the config's 1 s least, for tests on real time. */
function notifier(
  urls: string[],
  over: Record<string, unknown> = {},
  clock: Clock = fixedClock,
  resendMs?: number,
) {
  const cfg = alertmanagerSchema.parse({ urls, ...over });
  return new AlertmanagerNotifier(
    'am',
    resendMs === undefined ? cfg : { ...cfg, resend_interval: resendMs },
    { clock },
  );
}

const BASIC_PASSWORD = 'AmBasicPassw0rd';

// The same, with basic_auth: a server that echoes the header shows the credentials encoded.
runNotifierContract('alertmanager (basic_auth)', {
  secrets: [BASIC_PASSWORD, Buffer.from(`bob:${BASIC_PASSWORD}`).toString('base64')],
  reasons: { permanent: 'http_4xx', transient: 'http_5xx' },
  async setup(mode) {
    const rx = await startHttpReceiver();
    rx.respond((req) => {
      if (mode === 'permanent')
        return { status: 401, body: `bad credentials: ${req.headers['authorization']}` };
      if (mode === 'transient')
        return { status: 503, body: `busy; you sent ${req.headers['authorization']}` };
      if (mode === 'hang') return { hang: true };
      return { status: 200 };
    });
    return {
      notifier: notifier([rx.url], { basic_auth: { username: 'bob', password: BASIC_PASSWORD } }),
      delivered: () => (mode === 'ok' ? rx.requests.length : 0),
      close: () => rx.close(),
    };
  },
});

runNotifierContract('alertmanager', {
  secrets: [TOKEN],
  reasons: { permanent: 'http_4xx', transient: 'http_5xx' },
  async setup(mode) {
    const rx = await startHttpReceiver();
    rx.respond((req) => {
      if (mode === 'permanent')
        return { status: 400, body: `invalid alert; auth was ${req.headers['authorization']}` };
      if (mode === 'transient') return { status: 500, body: 'internal' };
      if (mode === 'hang') return { hang: true };
      return { status: 200 };
    });
    return {
      notifier: notifier([rx.url], { bearer_token: TOKEN }),
      delivered: () => (mode === 'ok' ? rx.requests.length : 0),
      close: () => rx.close(),
    };
  },
});

describe('alertmanager sink', () => {
  const receivers: HttpReceiver[] = [];
  let am: AlertmanagerNotifier | undefined;
  afterEach(async () => {
    await am?.close();
    am = undefined;
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });
  const rx = async () => {
    const r = await startHttpReceiver();
    receivers.push(r);
    return r;
  };
  const send = (n = firingNotification()) =>
    am!.send(n, { signal: AbortSignal.timeout(5000), idempotencyKey: 'k' });

  it('posts API v2 alerts: firing ones valid for 4 × resend_interval, resolved ones with their endsAt', async () => {
    const r = await rx();
    am = notifier([`${r.url}/prefix/`], { resend_interval: '1m', bearer_token: TOKEN });
    await send();
    await send(resolvedNotification());
    expect(r.requests.map((q) => q.url)).toEqual(['/prefix/api/v2/alerts', '/prefix/api/v2/alerts']);
    expect(r.requests[0]!.headers['authorization']).toBe(`Bearer ${TOKEN}`);
    const firing = JSON.parse(r.requests[0]!.body);
    expect(firing).toHaveLength(3);
    expect(firing[0]).toEqual({
      labels: { alertname: 'ChannelOffline', org: 'acme', channel: 'news-1', severity: 'critical' },
      annotations: expect.objectContaining({ summary: 'Channel news-1 went offline' }),
      startsAt: '2025-03-01T14:05:09.000Z',
      endsAt: '2025-03-01T15:04:00.000Z',
      generatorURL: 'https://tally.example.com/orgs/acme/channels/news-1',
    });
    const resolved = JSON.parse(r.requests[1]!.body);
    expect(resolved[0].endsAt).toBe('2025-03-01T14:20:09.000Z');
  });

  it.each([
    [
      { 'org.name': 'a', '1st': 'b', empty: '' },
      { org_name: 'a', _1st: 'b' },
    ],
    [
      { alertname: 'X', 'team-name': 'y' },
      { alertname: 'X', team_name: 'y' },
    ],
  ])('cleans labels for Alertmanager: %j', (labels, expected) => {
    const a = { ...firingAlert('c'), labels };
    expect(toPostableAlerts([a], NOW, 1000)[0]!.labels).toEqual(expected);
  });

  it('gives a firing event alert its own end as endsAt, when sooner than the validity', () => {
    const soon = { ...firingAlert('c'), expiresAt: NOW + 60_000 };
    const late = { ...firingAlert('d'), expiresAt: NOW + 10 * 60 * 60_000 };
    const [a, b] = toPostableAlerts([soon, late], NOW, 4 * 60_000);
    expect(a!.endsAt).toBe(new Date(NOW + 60_000).toISOString());
    expect(b!.endsAt).toBe(new Date(NOW + 4 * 60_000).toISOString());
  });

  it('succeeds when at least one Alertmanager accepts', async () => {
    const up = await rx();
    am = notifier([`http://127.0.0.1:${await closedPort()}`, up.url]);
    await send();
    expect(up.requests).toHaveLength(1);
  });

  it('fails retryably when all fail and one failure is retryable, naming each', async () => {
    const bad = await rx();
    bad.respond(() => ({ status: 400 }));
    const down = await rx();
    down.respond(() => ({ status: 503, headers: { 'retry-after': '3' } }));
    am = notifier([bad.url, down.url]);
    const err = (await send().catch((e: unknown) => e)) as DeliveryError;
    expect(err.retryable).toBe(true);
    expect(err.reason).toBe('http_5xx');
    expect(err.retryAfterMs).toBe(3000);
    expect(err.message).toContain(`${bad.url}: HTTP 400`);
    expect(err.message).toContain(`${down.url}: HTTP 503`);
  });

  it('marks a test notification with tally_test="true"', async () => {
    const r = await rx();
    am = notifier([r.url]);
    await send(firingNotification({ test: true }, 1));
    expect(JSON.parse(r.requests[0]!.body)[0].labels.tally_test).toBe('true');
  });

  it('the resender pushes every firing alert again each resend_interval, until stopped', async () => {
    const r = await rx();
    am = notifier([r.url], {}, systemClock, 50);
    const metrics = recordingMetrics();
    const firing = [firingAlert('a'), firingAlert('b'), { ...firingAlert('c'), state: 'resolved' as const }];
    const resender = new AlertmanagerResender({
      notifiers: [am],
      firingAlerts: (name) => (name === 'am' ? firing : []),
      clock: systemClock,
      logger: silentLogger(),
      metrics,
      timeoutMs: 1000,
    });
    resender.start();
    await r.waitFor(2, 3000);
    await resender.stop();
    const seen = r.requests.length;
    const body = JSON.parse(r.requests[0]!.body);
    expect(body.map((a: { labels: { channel: string } }) => a.labels.channel)).toEqual(['a', 'b']);
    await new Promise((res) => setTimeout(res, 150));
    expect(r.requests.length).toBe(seen);
    expect(metrics.count('failed')).toBe(0);
  });

  it('a failed resend is counted and retried on the next tick', async () => {
    const r = await rx();
    r.respond((_q, i) => ({ status: i === 0 ? 500 : 200 }));
    am = notifier([r.url], {}, systemClock, 50);
    const metrics = recordingMetrics();
    const resender = new AlertmanagerResender({
      notifiers: [am],
      firingAlerts: () => [firingAlert('a')],
      clock: systemClock,
      logger: silentLogger(),
      metrics,
      timeoutMs: 1000,
    });
    resender.start();
    await r.waitFor(2, 3000);
    await resender.stop();
    expect(metrics.count('failed', 'am', 'alertmanager', 'http_5xx')).toBe(1);
  });
});
