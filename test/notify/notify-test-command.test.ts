import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notifyTestCommand } from '../../src/cli/notify-test.js';
import { captureIO } from '../helpers/io.js';
import { type HttpReceiver, startHttpReceiver } from './helpers/http-receiver.js';
import { type SmtpSink, startSmtp } from './helpers/smtp.js';

describe('tally notify-test', () => {
  let dir: string;
  let rx: HttpReceiver;
  let smtp: SmtpSink;
  let file: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'tally-notify-test-'));
    rx = await startHttpReceiver();
    rx.respond((q) => (q.url === '/gone' ? { status: 410, body: 'hook deleted' } : { status: 200 }));
    smtp = await startSmtp({ auth: { user: 'tally', pass: 'smtp-secret-pw' } });
    await writeFile(path.join(dir, 'smtp-password'), 'smtp-secret-pw\n');
    file = path.join(dir, 'tally.yaml');
    await writeFile(
      file,
      `upstream: { base_url: http://127.0.0.1:1 }
orgs: [{ slug: demo, token: t }]
server: { external_url: https://tally.example.com }
receivers:
  - name: ops-mail
    email:
      to: [oncall@example.com]
      from: tally@example.com
      smtp: { host: 127.0.0.1, port: ${smtp.port}, tls: none, username: tally, password_file: smtp-password }
  - name: chat
    webhook: { url: "\${HOOK_URL}/ok", secret: plain-secret }
  - name: gone
    webhook: { url: ${rx.url}/gone }
delivery: { timeout: 5s }
`,
    );
  });
  afterAll(async () => {
    await rx.close();
    await smtp.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('sends a [TEST] notification to every receiver and reports each; exit 1 when one failed', async () => {
    const io = captureIO({ HOOK_URL: rx.url });
    const code = await notifyTestCommand(['--config', file], io);
    expect(code).toBe(1);
    const out = io.out();
    expect(out).toContain('sending a test notification to 3 receivers');
    expect(out).toMatch(/^ {2}ok {4}ops-mail \(email\) {2}delivered in \d+ms$/m);
    expect(out).toMatch(/^ {2}ok {4}chat \(webhook\) {4}delivered in \d+ms$/m);
    expect(out).toContain(
      `FAIL  gone (webhook)    webhook gone: POST ${rx.url}: HTTP 410: hook deleted [http_410, not retryable]`,
    );
    expect(out).toContain('1 of 3 failed');
    expect(smtp.mails[0]!.parsed.subject).toBe('[TEST] [FIRING:1] Test notification from tally');
    const body = JSON.parse(rx.requests.find((q) => q.url === '/ok')!.body);
    expect(body).toMatchObject({ test: true, externalURL: 'https://tally.example.com' });
    expect(out + io.err()).not.toContain('smtp-secret-pw');
  });

  it('sends to one receiver with --receiver and exits 0', async () => {
    const io = captureIO({ HOOK_URL: rx.url });
    expect(await notifyTestCommand(['--config', file, '--receiver', 'chat'], io)).toBe(0);
    expect(io.out()).toContain('all receivers accepted the test notification');
    expect(io.out()).not.toContain('ops-mail');
  });

  it('names the receivers when --receiver matches none (exit 2)', async () => {
    const io = captureIO({ HOOK_URL: rx.url });
    expect(await notifyTestCommand(['--config', file, '--receiver', 'nope'], io)).toBe(2);
    expect(io.err()).toContain("no receiver named 'nope' (receivers: ops-mail, chat, gone)");
  });

  it('reports config problems with their path (exit 1)', async () => {
    const bad = path.join(dir, 'bad.yaml');
    await writeFile(bad, 'receivers:\n  - name: x\n    webhook: { url: nope }\n');
    const io = captureIO();
    expect(await notifyTestCommand(['--config', bad], io)).toBe(1);
    expect(io.err()).toContain('receivers[0].webhook.url: an http:// or https:// URL');
  });
});
