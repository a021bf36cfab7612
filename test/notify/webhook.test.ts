// biome-ignore-all lint/suspicious/noExplicitAny: chat bodies are third-party JSON, checked field by field below
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { DeliveryError } from '../../src/notify/notifier.js';
import { type WebhookConfig, webhookSchema } from '../../src/notify/webhook/schema.js';
import { WebhookNotifier } from '../../src/notify/webhook/webhook.js';
import { runNotifierContract } from './contract.js';
import { firingNotification, resolvedNotification } from './helpers/fixtures.js';
import { type HttpReceiver, startHttpReceiver } from './helpers/http-receiver.js';
import { closedPort } from './helpers/smtp.js';

const PATH_TOKEN = 'T0001/B0002/pathsecretXYZ123';
const HEADER_TOKEN = 'hdr-secret-token-456';
const SIGNING = `whsec_${Buffer.from('signing-key-bytes-0123456789').toString('base64')}`;

function config(url: string, over: Record<string, unknown> = {}): WebhookConfig {
  return webhookSchema.parse({ url, ...over });
}

runNotifierContract('webhook', {
  secrets: [PATH_TOKEN, HEADER_TOKEN, SIGNING],
  reasons: { permanent: 'http_4xx', transient: 'http_5xx' },
  async setup(mode) {
    const rx = await startHttpReceiver();
    rx.respond((req) => {
      // A careless server echoes what it got; the error must still not show it.
      const echo = `bad request to ${req.url} with ${req.headers['authorization']}`;
      if (mode === 'permanent') return { status: 400, body: echo };
      if (mode === 'transient') return { status: 503, body: echo };
      if (mode === 'hang') return { hang: true };
      return { status: 204 };
    });
    const notifier = new WebhookNotifier(
      'chat',
      config(`${rx.url}/hooks/${PATH_TOKEN}`, {
        secret: SIGNING,
        headers: { Authorization: `Bearer ${HEADER_TOKEN}` },
      }),
      { clock: systemClock },
    );
    return { notifier, delivered: () => (mode === 'ok' ? rx.requests.length : 0), close: () => rx.close() };
  },
});

describe('webhook sink against a real HTTP receiver', () => {
  let rx: HttpReceiver;
  let notifier: WebhookNotifier | undefined;
  afterEach(async () => {
    await notifier?.close();
    await rx?.close();
    notifier = undefined;
  });
  const send = (n = firingNotification()) =>
    notifier!.send(n, { signal: AbortSignal.timeout(5000), idempotencyKey: 'msg_abc123' });
  const fail = async (n = firingNotification()) => (await send(n).catch((e: unknown) => e)) as DeliveryError;

  it('posts tally JSON v1 with idempotency headers and custom headers', async () => {
    rx = await startHttpReceiver();
    notifier = new WebhookNotifier('chat', config(rx.url, { headers: { 'X-Team': 'broadcast' } }), {
      clock: systemClock,
    });
    await send();
    const req = rx.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['idempotency-key']).toBe('msg_abc123');
    expect(req.headers['webhook-id']).toBe('msg_abc123');
    expect(req.headers['x-team']).toBe('broadcast');
    expect(req.headers['user-agent']).toMatch(/^tally\//);
    expect(req.headers['webhook-signature']).toBeUndefined();
    const body = JSON.parse(req.body);
    expect(body).toMatchObject({
      version: '1',
      id: 'grp-acme-offline:1',
      receiver: 'ops',
      status: 'firing',
      groupLabels: { alertname: 'ChannelOffline', org: 'acme' },
      externalURL: 'https://tally.example.com',
      test: false,
      counts: { firing: 3, resolved: 0 },
      summary: '[FIRING:3] ChannelOffline (org=acme)',
    });
    expect(body.alerts).toHaveLength(3);
    expect(body.alerts[0]).toEqual({
      fingerprint: 'fp-news-1',
      status: 'firing',
      labels: { alertname: 'ChannelOffline', org: 'acme', channel: 'news-1', severity: 'critical' },
      annotations: expect.objectContaining({ summary: 'Channel news-1 went offline' }),
      activeAt: '2025-03-01T14:04:09.000Z',
      startsAt: '2025-03-01T14:05:09.000Z',
      endsAt: null,
      generatorURL: 'https://tally.example.com/orgs/acme/channels/news-1',
    });
  });

  it.each([
    ['whsec_ secret', SIGNING, new Webhook(SIGNING)],
    ['raw secret', 'plain shared secret', new Webhook(Buffer.from('plain shared secret'), { format: 'raw' })],
  ])(
    'signs with Standard Webhooks (%s); the standardwebhooks package verifies it',
    async (_name, secret, verifier) => {
      rx = await startHttpReceiver();
      notifier = new WebhookNotifier('chat', config(rx.url, { secret }), { clock: systemClock });
      await send();
      const req = rx.requests[0]!;
      const headers = {
        'webhook-id': String(req.headers['webhook-id']),
        'webhook-timestamp': String(req.headers['webhook-timestamp']),
        'webhook-signature': String(req.headers['webhook-signature']),
      };
      expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(Math.abs(Number(headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(10);
      expect(verifier.verify(req.body, headers)).toMatchObject({ version: '1' });
      expect(() => verifier.verify(req.body.replace('firing', 'resolved'), headers)).toThrow();
    },
  );

  it('posts the Alertmanager v4 shape with format: alertmanager', async () => {
    rx = await startHttpReceiver();
    notifier = new WebhookNotifier('am-compat', config(rx.url, { format: 'alertmanager' }), {
      clock: systemClock,
    });
    await send(resolvedNotification());
    const body = JSON.parse(rx.requests[0]!.body);
    expect(body).toMatchObject({ version: '4', status: 'resolved', truncatedAlerts: 0, receiver: 'ops' });
    expect(body.alerts[0]).toMatchObject({
      status: 'resolved',
      startsAt: '2025-03-01T14:05:09.000Z',
      endsAt: '2025-03-01T14:20:09.000Z',
      fingerprint: 'fp-news-1',
    });
  });

  it.each([
    [
      'slack',
      (b: any) => {
        expect(b.text).toContain('[FIRING:3] ChannelOffline (org=acme)');
        expect(b.blocks[0]).toMatchObject({ type: 'header' });
        expect(b.blocks.filter((x: any) => x.type === 'section')).toHaveLength(3);
        expect(b.blocks[1].text.text).toContain(
          '<https://tally.example.com/orgs/acme/channels/news-1|Channel news-1 went offline>',
        );
      },
    ],
    [
      'discord',
      (b: any) => {
        expect(b.embeds).toHaveLength(1);
        expect(b.embeds[0]).toMatchObject({ title: '[FIRING:3] ChannelOffline (org=acme)', color: 0xc62828 });
        expect(b.embeds[0].fields).toHaveLength(3);
        expect(b.allowed_mentions).toEqual({ parse: [] });
      },
    ],
    [
      'teams',
      (b: any) => {
        expect(b.type).toBe('message');
        expect(b.attachments[0].contentType).toBe('application/vnd.microsoft.card.adaptive');
        const card = b.attachments[0].content;
        expect(card).toMatchObject({ type: 'AdaptiveCard', version: '1.4' });
        expect(card.body[0]).toMatchObject({
          type: 'TextBlock',
          text: '[FIRING:3] ChannelOffline (org=acme)',
          color: 'Attention',
        });
        expect(card.body.filter((x: any) => x.type === 'Container')).toHaveLength(3);
        expect(card.actions[0]).toMatchObject({ type: 'Action.OpenUrl', url: 'https://tally.example.com' });
      },
    ],
  ] as const)('posts the %s preset', async (preset, check) => {
    rx = await startHttpReceiver();
    notifier = new WebhookNotifier('chat', config(rx.url, { preset }), { clock: systemClock });
    await send();
    check(JSON.parse(rx.requests[0]!.body));
  });

  it('renders a custom liquid body', async () => {
    rx = await startHttpReceiver();
    notifier = new WebhookNotifier(
      'chat',
      config(rx.url, {
        body_template: '{"msg": {{ subject | json }}, "n": {{ alerts.size }}}',
        content_type: 'application/vnd.example+json',
      }),
      { clock: systemClock },
    );
    await send();
    expect(rx.requests[0]!.headers['content-type']).toBe('application/vnd.example+json');
    expect(JSON.parse(rx.requests[0]!.body)).toEqual({ msg: '[FIRING:3] ChannelOffline (org=acme)', n: 3 });
  });

  it('does not follow a redirect: a 3xx is a non-retryable error naming only the target origin', async () => {
    rx = await startHttpReceiver();
    const other = await startHttpReceiver();
    try {
      rx.respond(() => ({ status: 302, headers: { location: `${other.url}/elsewhere?token=abc12345` } }));
      notifier = new WebhookNotifier('chat', config(rx.url), { clock: systemClock });
      const err = await fail();
      expect(err.reason).toBe('redirect');
      expect(err.retryable).toBe(false);
      expect(err.message).toContain(`redirect to ${other.url}`);
      expect(err.message).not.toContain('abc12345');
      expect(other.requests).toHaveLength(0);
    } finally {
      await other.close();
    }
  });

  it.each([
    [410, {}, 'http_410', false, undefined],
    [404, {}, 'http_4xx', false, undefined],
    [408, {}, 'http_4xx', true, undefined],
    [429, { 'retry-after': '7' }, 'http_429', true, 7000],
    [503, { 'retry-after': '2' }, 'http_5xx', true, 2000],
    [500, {}, 'http_5xx', true, undefined],
  ] as const)('HTTP %i → %s', async (status, headers, reason, retryable, retryAfterMs) => {
    rx = await startHttpReceiver();
    rx.respond(() => ({ status, headers }));
    notifier = new WebhookNotifier('chat', config(rx.url), { clock: systemClock });
    const err = await fail();
    expect(err).toBeInstanceOf(DeliveryError);
    expect([err.reason, err.retryable, err.retryAfterMs]).toEqual([reason, retryable, retryAfterMs]);
    expect(err.message).toContain(`webhook chat: POST ${rx.url}: HTTP ${status}`);
  });

  it('connection refused is retryable (connect)', async () => {
    rx = await startHttpReceiver();
    notifier = new WebhookNotifier('chat', config(`http://127.0.0.1:${await closedPort()}/x`), {
      clock: systemClock,
    });
    const err = await fail();
    expect([err.reason, err.retryable]).toEqual(['connect', true]);
  });
});

describe('webhook config', () => {
  it.each([
    [
      { url: 'https://h.example/x', preset: 'slack', format: 'alertmanager' },
      'set only one of preset, format',
    ],
    [{ url: 'https://h.example/x', body_template: '{{ x ' }, 'invalid template'],
    [
      { url: 'https://h.example/x', headers: { 'Webhook-Signature': 'x' } },
      'set by tally; cannot be overridden',
    ],
    [{ url: 'ftp://h.example/x' }, 'an http:// or https:// URL'],
    [{ url: 'https://h.example/x', preset: 'mattermost' }, 'Invalid option'],
  ])('rejects %j', (input, message) => {
    const r = webhookSchema.safeParse(input);
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.message).join('; ')).toContain(message);
  });
});
