/**
 * The sink table (src/notify/sinks.ts): the config union, the registry and `keepsTold`
 * follow from its rows, and a forgotten or mistyped row fails to compile (the
 * `@ts-expect-error` lines below are checked by `tsc -p tsconfig.json`: were the row
 * accepted, the directive itself would be an error).
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { systemClock } from '../../src/core/clock.js';
import type { SinkType } from '../../src/notify/notifier.js';
import { closeNotifiers, createNotifier, keepsTold } from '../../src/notify/registry.js';
import { type ReceiverConfig, receiversSchema } from '../../src/notify/schema.js';
import { SINK_TYPES, SINKS, type SinkTable } from '../../src/notify/sinks.js';

const ONE_OF_EACH = `
- name: mail
  email: { to: [a@example.com], from: t@example.com, smtp: { host: smtp.example.com, port: 587 } }
- name: hook
  webhook: { url: https://hooks.example.com/x }
- name: am
  alertmanager: { urls: ['http://alertmanager:9093'] }
- name: console
  log: {}
`;

describe('the sink table', () => {
  it('keys each row by its own type, in the order the docs list them', () => {
    expect(SINK_TYPES).toEqual(['email', 'webhook', 'alertmanager', 'log']);
    for (const t of SINK_TYPES) expect(SINKS[t].type).toBe(t);
    for (const t of SINK_TYPES) expect(SINKS[t].docs).toMatch(/^docs\/notifications\.md, "[^"]+"$/);
  });

  it('makes the config union: every row is a receiver key that yields its own type', () => {
    const receivers = receiversSchema.parse(parse(ONE_OF_EACH));
    expect(receivers.map((r) => r.type)).toEqual(SINK_TYPES);
    for (const r of receivers)
      expect(Object.keys(r).sort()).toEqual(['name', 'timeout', 'type', r.type].sort());
  });

  it('refuses a receiver with no sink key instead of making it a console sink', () => {
    const r = receiversSchema.safeParse([{ name: 'x' }]);
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.message).toBe('one of email, webhook, alertmanager, log is required');
  });

  it('builds each receiver from its row, and keepsTold is the row’s', async () => {
    const receivers = receiversSchema.parse(parse(ONE_OF_EACH));
    const notifiers = receivers.map((r) =>
      createNotifier(r, { clock: systemClock, console: new PassThrough() }),
    );
    expect(notifiers.map((n) => [n.name, n.type])).toEqual(receivers.map((r) => [r.name, r.type]));
    expect(receivers.filter(keepsTold).map((r) => r.name)).toEqual(['am']);
    await closeNotifiers(notifiers);
  });
});

describe('a forgotten or mistyped row fails to compile', () => {
  it('needs a row for every SinkType', () => {
    const { log: _log, ...withoutLog } = SINKS;
    // @ts-expect-error: the `log` row is missing
    const missing: SinkTable = withoutLog;
    expect(Object.keys(missing)).not.toContain('log');
  });

  it('needs each row keyed by its own type', () => {
    // @ts-expect-error: the row under `log` says it is an email sink
    const swapped: SinkTable = { ...SINKS, log: SINKS.email };
    expect(swapped.log.type).toBe('email');
  });

  it('types each receiver by its row: a log receiver has no email section', () => {
    const r = receiversSchema.parse([{ name: 'c', log: {} }])[0]!;
    const type: SinkType = r.type;
    if (r.type === 'log') {
      // @ts-expect-error: `email` belongs to another member of the union
      const other: ReceiverConfig['email' & keyof ReceiverConfig] = r.email;
      expect(other).toBeUndefined();
    }
    expect(type).toBe('log');
  });
});
