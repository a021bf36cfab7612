import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EmailNotifier, messageIdOf } from '../../src/notify/email/email.js';
import { deliveryId } from '../../src/notify/outbox.js';
import { type EmailConfig, emailSchema } from '../../src/notify/email/schema.js';
import { DeliveryError } from '../../src/notify/notifier.js';
import { testNotification } from '../../src/notify/test-notification.js';
import { runNotifierContract } from './contract.js';
import { firingNotification, resolvedNotification } from './helpers/fixtures.js';
import { closedPort, type SmtpBehaviour, type SmtpSink, selfSignedCert, startSmtp } from './helpers/smtp.js';

const PASSWORD = 'smtp-pa55word-xyz';

function emailConfig(
  port: number,
  over: Record<string, unknown> = {},
  smtp: Record<string, unknown> = {},
): EmailConfig {
  return emailSchema.parse({
    to: ['oncall@example.com', 'Second Person <second@example.com>'],
    from: 'tally@example.com',
    smtp: { host: '127.0.0.1', port, tls: 'none', ...smtp },
    ...over,
  });
}

runNotifierContract('email', {
  secrets: [PASSWORD, Buffer.from(PASSWORD).toString('base64')],
  reasons: { permanent: 'smtp_5xx', transient: 'smtp_4xx' },
  async setup(mode) {
    const behaviour: SmtpBehaviour = { auth: { user: 'tally', pass: PASSWORD } };
    if (mode === 'permanent') behaviour.rejectData = { code: 550, message: '5.7.1 rejected by policy' };
    if (mode === 'transient') behaviour.rejectData = { code: 451, message: '4.3.0 try again later' };
    if (mode === 'hang') behaviour.dataDelayMs = 10_000;
    const smtp = await startSmtp(behaviour);
    const notifier = new EmailNotifier(
      'ops-mail',
      emailConfig(smtp.port, {}, { username: 'tally', password: PASSWORD }),
    );
    return { notifier, delivered: () => smtp.mails.length, close: () => smtp.close() };
  },
});

describe('email sink against a real SMTP server', () => {
  let smtp: SmtpSink | undefined;
  let notifier: EmailNotifier | undefined;
  afterEach(async () => {
    await notifier?.close();
    await smtp?.close();
    smtp = undefined;
    notifier = undefined;
  });
  const send = (n = firingNotification(), key = 'msg_0123456789abcdef') =>
    notifier!.send(n, { signal: AbortSignal.timeout(5000), idempotencyKey: key });

  it('sends one message to every recipient with subject, text and HTML listing every alert', async () => {
    smtp = await startSmtp({ auth: { user: 'tally', pass: PASSWORD } });
    notifier = new EmailNotifier(
      'ops-mail',
      emailConfig(smtp.port, {}, { username: 'tally', password: PASSWORD }),
    );
    await send();
    expect(smtp.mails).toHaveLength(1);
    const mail = smtp.mails[0]!;
    expect(mail.user).toBe('tally');
    expect(mail.envelopeTo).toEqual(['oncall@example.com', 'second@example.com']);
    expect(mail.parsed.to?.map((a) => a.address)).toEqual(['oncall@example.com', 'second@example.com']);
    expect(mail.parsed.subject).toBe('[FIRING:3] ChannelOffline (org=acme)');
    expect(mail.parsed.messageId).toBe('<msg_0123456789abcdef@example.com>');
    for (const ch of ['news-1', 'news-2', 'news-3']) {
      expect(mail.parsed.text).toContain(`Channel ${ch} went offline`);
      expect(mail.parsed.html).toContain(`Channel ${ch} went offline`);
      expect(mail.parsed.html).toContain(`href="https://tally.example.com/orgs/acme/channels/${ch}"`);
    }
    expect(mail.parsed.text).toContain('Firing (3):');
    expect(mail.parsed.text).toContain('since 2025-03-01 14:05:09 UTC');
    expect(mail.parsed.html).toContain('#c62828');
    expect(mail.parsed.html).toContain('href="https://tally.example.com"');
    expect(mail.parsed.headers.find((h) => h.key === 'x-tally-notification-id')?.value).toBe(
      'grp-acme-offline:1',
    );
  });

  it('makes resolved look different: [RESOLVED] subject, green, no red', async () => {
    smtp = await startSmtp();
    notifier = new EmailNotifier('ops-mail', emailConfig(smtp.port));
    await send(resolvedNotification());
    const mail = smtp.mails[0]!;
    expect(mail.parsed.subject).toBe('[RESOLVED] ChannelOffline (org=acme)');
    expect(mail.parsed.html).toContain('#2e7d32');
    expect(mail.parsed.html).not.toContain('#c62828');
    expect(mail.parsed.text).toContain('Resolved (2):');
  });

  it('threads every mail of one alert group: Message-ID, In-Reply-To, References', async () => {
    smtp = await startSmtp();
    notifier = new EmailNotifier('ops-mail', emailConfig(smtp.port));
    // Notification ids as the alert dispatcher makes them: <group>-<sequence>.
    const group = [
      firingNotification({ id: 'a1b2c3-1' }, 1),
      firingNotification({ id: 'a1b2c3-2' }, 3),
      resolvedNotification({ id: 'a1b2c3-3' }, 3),
    ];
    for (const n of group) await send(n, deliveryId(n.id, n.receiver));
    await send(firingNotification({ id: 'ffee99-1' }, 1), deliveryId('ffee99-1', 'ops'));
    const [first, second, third, other] = smtp.mails.map((m) => m.parsed);
    const id = (nid: string) => messageIdOf(nid, 'ops', 'example.com');
    expect(first!.messageId).toBe(id('a1b2c3-1'));
    expect(first!.inReplyTo).toBeUndefined();
    expect(first!.references).toBeUndefined();
    expect(second!.messageId).toBe(id('a1b2c3-2'));
    expect(second!.inReplyTo).toBe(id('a1b2c3-1'));
    expect(second!.references).toBe(id('a1b2c3-1'));
    expect(third!.inReplyTo).toBe(id('a1b2c3-2'));
    expect(String(third!.references).split(/\s+/)).toEqual([id('a1b2c3-1'), id('a1b2c3-2')]);
    // Another group starts its own thread.
    expect(other!.inReplyTo).toBeUndefined();
  });

  it('says what resolved, and shows the labels every alert shares once', async () => {
    smtp = await startSmtp();
    notifier = new EmailNotifier('ops-mail', emailConfig(smtp.port));
    await send(resolvedNotification({}, 2));
    const text = smtp.mails[0]!.parsed.text ?? '';
    const html = String(smtp.mails[0]!.parsed.html || '');
    // Not the firing summary again: what resolved, and how long it lasted.
    expect(text).not.toContain('went offline');
    expect(html).not.toContain('went offline');
    expect(text).toContain('- ChannelOffline resolved for channel=news-1');
    expect(text).toContain('lasted 15m: 2025-03-01 14:05:09 UTC to 2025-03-01 14:20:09 UTC');
    expect(html).toContain('ChannelOffline resolved for channel=news-2');
    expect(html).toContain('after 15m');
    // org and severity are common: once per mail, not in every alert.
    // (the subject line on top names the group: org=acme is there once more)
    expect(
      text
        .split('\n')
        .slice(1)
        .join('\n')
        .match(/org=acme/g),
    ).toHaveLength(1);
    expect(text).toContain('Labels of every alert: org=acme, severity=critical');
    expect(html.match(/severity=critical/g)).toHaveLength(1);
    // A rule's own wording wins.
    smtp.mails.length = 0;
    const custom = resolvedNotification({}, 1);
    custom.alerts[0]!.annotations['resolved_summary'] = 'Channel news-1 is back on air';
    await send(custom);
    expect(smtp.mails[0]!.parsed.text).toContain('- Channel news-1 is back on air');
  });

  it('keeps the HTML self-contained: inline styles, no external assets or scripts', async () => {
    smtp = await startSmtp();
    notifier = new EmailNotifier('ops-mail', emailConfig(smtp.port));
    await send();
    const html = smtp.mails[0]!.parsed.html ?? '';
    expect(html).toMatch(/style="/);
    for (const bad of [/<link\b/i, /<script\b/i, /\bsrc=/i, /url\(/i, /<style\b/i])
      expect(html).not.toMatch(bad);
  });

  it('escapes alert text in the HTML body', async () => {
    smtp = await startSmtp();
    notifier = new EmailNotifier('ops-mail', emailConfig(smtp.port));
    const n = firingNotification({}, 1);
    n.alerts[0]!.annotations['summary'] = '<img src=x onerror=alert(1)> & more';
    await send(n);
    const html = smtp.mails[0]!.parsed.html ?? '';
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt; &amp; more');
    expect(html).not.toContain('<img');
  });

  it('uses subject, text and HTML templates from config', async () => {
    smtp = await startSmtp();
    notifier = new EmailNotifier(
      'ops-mail',
      emailConfig(smtp.port, {
        subject: '{{ commonLabels.org | upcase }}: {{ alerts.size }} alerts ({{ status }})',
        text: '{% for a in alerts %}{{ a.labels.channel }};{% endfor %}',
        html: '<p>{{ title }}</p>',
      }),
    );
    await send();
    const mail = smtp.mails[0]!;
    expect(mail.parsed.subject).toBe('ACME: 3 alerts (firing)');
    expect(mail.parsed.text?.trim()).toBe('news-1;news-2;news-3;');
    expect(mail.parsed.html?.trim()).toBe('<p>ChannelOffline (org=acme)</p>');
  });

  it('marks a test notification [TEST]', async () => {
    smtp = await startSmtp();
    notifier = new EmailNotifier('ops-mail', emailConfig(smtp.port));
    await send(testNotification('ops-mail', Date.now()));
    expect(smtp.mails[0]!.parsed.subject).toBe('[TEST] [FIRING:1] Test notification from tally');
    expect(smtp.mails[0]!.parsed.text).toContain('This is a test notification');
  });

  describe('TLS', () => {
    let cert: { key: string; cert: string } | undefined;
    beforeAll(async () => {
      cert = await selfSignedCert();
      if (!cert) console.warn('openssl not found: STARTTLS and implicit TLS tests are skipped');
    });

    it('upgrades with STARTTLS (self-signed certificate, verification off) and authenticates', async (ctx) => {
      if (!cert) return ctx.skip();
      smtp = await startSmtp({ tls: cert, auth: { user: 'tally', pass: PASSWORD } });
      notifier = new EmailNotifier(
        'ops-mail',
        emailConfig(
          smtp.port,
          {},
          { tls: 'starttls', reject_unauthorized: false, username: 'tally', password: PASSWORD },
        ),
      );
      await send();
      expect(smtp.mails[0]!.secure).toBe(true);
      expect(smtp.mails[0]!.user).toBe('tally');
    });

    it('refuses an untrusted certificate when verification is on (reason tls)', async (ctx) => {
      if (!cert) return ctx.skip();
      smtp = await startSmtp({ tls: cert });
      notifier = new EmailNotifier('ops-mail', emailConfig(smtp.port, {}, { tls: 'starttls' }));
      const err = await send().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DeliveryError);
      expect((err as DeliveryError).reason).toBe('tls');
      expect(smtp.mails).toHaveLength(0);
    });

    it('speaks implicit TLS from the first byte', async (ctx) => {
      if (!cert) return ctx.skip();
      smtp = await startSmtp({ tls: cert, secure: true });
      notifier = new EmailNotifier(
        'ops-mail',
        emailConfig(smtp.port, {}, { tls: 'implicit', reject_unauthorized: false }),
      );
      await send();
      expect(smtp.mails[0]!.secure).toBe(true);
    });

    it('fails when STARTTLS is required but not offered, sending nothing in clear text', async () => {
      smtp = await startSmtp({ starttls: false });
      notifier = new EmailNotifier('ops-mail', emailConfig(smtp.port, {}, { tls: 'starttls' }));
      const err = (await send().catch((e: unknown) => e)) as DeliveryError;
      expect(err).toBeInstanceOf(DeliveryError);
      expect(err.reason).toBe('tls');
      expect(smtp.mails).toHaveLength(0);
    });
  });

  describe('faults', () => {
    it('SMTP down: connection refused is retryable (connect)', async () => {
      notifier = new EmailNotifier('ops-mail', emailConfig(await closedPort()));
      const err = (await send().catch((e: unknown) => e)) as DeliveryError;
      expect(err.reason).toBe('connect');
      expect(err.retryable).toBe(true);
      expect(err.message).toMatch(/^email ops-mail: SMTP 127\.0\.0\.1:\d+: connection refused$/);
    });

    it('wrong password: smtp_auth, not retryable, password not in the message', async () => {
      smtp = await startSmtp({ auth: { user: 'tally', pass: 'right-password' } });
      notifier = new EmailNotifier(
        'ops-mail',
        emailConfig(smtp.port, {}, { username: 'tally', password: PASSWORD }),
      );
      const err = (await send().catch((e: unknown) => e)) as DeliveryError;
      expect(err.reason).toBe('smtp_auth');
      expect(err.retryable).toBe(false);
      expect(err.message).not.toContain(PASSWORD);
    });

    it.each([
      [451, '4.3.0 mailbox busy', 'smtp_4xx', true],
      [552, '5.3.4 message too big', 'smtp_5xx', false],
    ] as const)('reply %i to DATA → %s (retryable %s)', async (code, message, reason, retryable) => {
      smtp = await startSmtp({ rejectData: { code, message } });
      notifier = new EmailNotifier('ops-mail', emailConfig(smtp.port));
      const err = (await send().catch((e: unknown) => e)) as DeliveryError;
      expect(err.reason).toBe(reason);
      expect(err.retryable).toBe(retryable);
      expect(err.message).toContain(message);
    });

    it('a recipient refused for good fails the delivery, naming it, not retryable', async () => {
      smtp = await startSmtp({
        refuseRecipient: (a) =>
          a.startsWith('second') ? { code: 550, message: '5.1.1 User unknown' } : undefined,
      });
      notifier = new EmailNotifier('ops-mail', emailConfig(smtp.port));
      const err = (await send().catch((e: unknown) => e)) as DeliveryError;
      expect(err).toBeInstanceOf(DeliveryError);
      expect(err.reason).toBe('smtp_5xx');
      expect(err.retryable).toBe(false);
      expect(err.message).toContain('1 of 2 recipients refused the message');
      expect(err.message).toContain('second@example.com: 550 5.1.1 User unknown');
      // The one that took it has it; nothing was sent twice.
      expect(smtp.mails.map((m) => m.envelopeTo)).toEqual([['oncall@example.com']]);
    });

    it('a recipient refused for now is retried alone, and the retry delivers', async () => {
      let full = true;
      smtp = await startSmtp({
        refuseRecipient: (a) =>
          a.startsWith('second') && full ? { code: 452, message: '4.2.2 Mailbox full' } : undefined,
      });
      notifier = new EmailNotifier('ops-mail', emailConfig(smtp.port));
      const err = (await send().catch((e: unknown) => e)) as DeliveryError;
      expect(err.reason).toBe('smtp_4xx');
      expect(err.retryable).toBe(true);
      expect(err.message).toContain('second@example.com: 452 4.2.2 Mailbox full');
      full = false;
      await send(); // the same delivery, retried
      expect(smtp.mails.map((m) => m.envelopeTo)).toEqual([['oncall@example.com'], ['second@example.com']]);
      // Both copies are the same message.
      const ids = smtp.mails.map((m) => m.parsed.messageId);
      expect(ids[0]).toBe(ids[1]);
      // A later notification goes to everyone again.
      await send(firingNotification(), 'msg_other');
      expect(smtp.mails.at(-1)!.envelopeTo.sort()).toEqual(['oncall@example.com', 'second@example.com']);
    });

    it('slow SMTP: the signal ends the attempt as a timeout', async () => {
      smtp = await startSmtp({ dataDelayMs: 5000 });
      notifier = new EmailNotifier('ops-mail', emailConfig(smtp.port));
      const started = Date.now();
      const err = (await notifier
        .send(firingNotification(), { signal: AbortSignal.timeout(300), idempotencyKey: 'k' })
        .catch((e: unknown) => e)) as DeliveryError;
      expect(err.reason).toBe('timeout');
      expect(Date.now() - started).toBeLessThan(2000);
    });
  });
});
