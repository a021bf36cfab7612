import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import { deliverySchema, deliveryOptions, receiversSchema } from '../../src/notify/schema.js';

const EXAMPLE = `
- name: ops-mail
  email:
    to: [oncall@example.com]
    from: tally@example.com
    smtp: { host: smtp.example.com, port: 587, username: tally, password: pw }
- name: chat
  timeout: 30s
  webhook:
    url: https://hooks.example.com/tally
    secret: whsec_c2VjcmV0
    preset: slack
- name: am
  alertmanager:
    urls: [http://alertmanager:9093]
- name: console
  log: {}
`;

function problems(yaml: string): string[] {
  const r = receiversSchema.safeParse(parse(yaml));
  expect(r.success).toBe(false);
  return r.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

describe('receivers config', () => {
  it('parses the documented example into typed receivers with defaults', () => {
    const receivers = receiversSchema.parse(parse(EXAMPLE));
    expect(receivers.map((r) => [r.name, r.type])).toEqual([
      ['ops-mail', 'email'],
      ['chat', 'webhook'],
      ['am', 'alertmanager'],
      ['console', 'log'],
    ]);
    const mail = receivers[0]!;
    if (mail.type !== 'email') throw new Error('not email');
    expect(mail.email.smtp).toMatchObject({ tls: 'starttls', reject_unauthorized: true, port: 587 });
    const am = receivers[2]!;
    if (am.type !== 'alertmanager') throw new Error('not alertmanager');
    expect(am.alertmanager.resend_interval).toBe(60_000);
    expect(deliveryOptions(deliverySchema.parse({}), receivers)).toEqual({
      timeoutMs: 10_000,
      receiverTimeoutsMs: { chat: 30_000 },
      concurrency: 4,
      maxAgeMs: 86_400_000,
      maxAttempts: 0,
      backoff: { baseMs: 1000, maxMs: 300_000 },
      deadLetterLimit: 100,
    });
  });

  it.each([
    ['no sink', '- name: x', ': one of email, webhook, alertmanager, log is required'],
    [
      'two sinks',
      '- name: x\n  log: {}\n  webhook: { url: "https://a.example" }',
      '0.log: only one of webhook, log per receiver',
    ],
    [
      'duplicate names',
      '- name: x\n  log: {}\n- name: x\n  log: {}',
      '1.name: duplicate of receivers[0].name',
    ],
    ['unknown key', '- name: x\n  log: {}\n  colour: red', ': Unrecognized key: "colour"'],
    [
      'username without password',
      '- name: m\n  email: { to: [a@b.c], from: a@b.c, smtp: { host: h, username: u } }',
      'email.smtp.password: password or password_file is required with username',
    ],
    [
      'bad address',
      '- name: m\n  email: { to: [nobody], from: a@b.c, smtp: { host: h } }',
      'email.to.0: an e-mail address',
    ],
    [
      'bad tls mode',
      '- name: m\n  email: { to: [a@b.c], from: a@b.c, smtp: { host: h, tls: ssl } }',
      'email.smtp.tls: Invalid option',
    ],
    [
      'broken template',
      '- name: m\n  email: { to: [a@b.c], from: a@b.c, smtp: { host: h }, subject: "{% if %}" }',
      'email.subject: invalid template',
    ],
    ['no alertmanager url', '- name: a\n  alertmanager: { urls: [] }', 'alertmanager.urls: Too small'],
    [
      'credentials in an Alertmanager URL',
      '- name: a\n  alertmanager: { urls: ["http://bob:pw@am:9093"] }',
      'alertmanager.urls.0: must not carry a user or password: give them as basic_auth or bearer_token',
    ],
    [
      'credentials in a webhook URL',
      '- name: w\n  webhook: { url: "https://hook:pw@hooks.example/x" }',
      'webhook.url: must not carry a user or password: send them in headers',
    ],
  ])('reports %s', (_name, yaml, expected) => {
    expect(problems(yaml).join('\n')).toContain(expected);
  });

  it('has a JSON Schema for editors', () => {
    const schema = z.toJSONSchema(receiversSchema, { io: 'input', unrepresentable: 'any' }) as {
      items: { properties: Record<string, unknown> };
    };
    expect(Object.keys(schema.items.properties)).toEqual([
      'name',
      'timeout',
      'email',
      'webhook',
      'alertmanager',
      'log',
    ]);
  });
});
