/**
 * The registry of sinks: builds the {@link Notifier} of each configured receiver. The
 * `switch` is exhaustive over the receiver's type, so a sink added to the schema but not
 * wired here fails to compile.
 */
import type { Writable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { Clock } from '../core/clock.js';
import { AlertmanagerNotifier } from './alertmanager/alertmanager.js';
import { EmailNotifier } from './email/email.js';
import { LogNotifier } from './log/log.js';
import type { Notifier } from './notifier.js';
import type { ReceiverConfig } from './schema.js';
import { WebhookNotifier } from './webhook/webhook.js';

/** What sinks are built with. */
export interface NotifierDeps {
  clock: Clock;
  /** Where the console sink writes (stdout). */
  console: Writable;
  /**
   * How tally's own log on that stream is written: the console sink's `auto` format
   * writes a JSON record into a JSON stream and a readable block next to pretty lines.
   * Default `json`.
   */
  consoleFormat?: 'json' | 'pretty';
  /** undici dispatcher for the HTTP sinks; each makes its own when absent. */
  httpDispatcher?: Dispatcher;
}

/** Builds the notifier of one receiver. */
export function createNotifier(r: ReceiverConfig, deps: NotifierDeps): Notifier {
  const http = { clock: deps.clock, ...(deps.httpDispatcher ? { dispatcher: deps.httpDispatcher } : {}) };
  switch (r.type) {
    case 'email':
      return new EmailNotifier(r.name, r.email);
    case 'webhook':
      return new WebhookNotifier(r.name, r.webhook, http);
    case 'alertmanager':
      return new AlertmanagerNotifier(r.name, r.alertmanager, http);
    case 'log':
      return new LogNotifier(r.name, r.log, deps.console, {
        clock: deps.clock,
        streamFormat: deps.consoleFormat ?? 'json',
      });
    default:
      return unreachable(r);
  }
}

/** Builds the notifiers of every receiver, in config order. */
export function createNotifiers(receivers: readonly ReceiverConfig[], deps: NotifierDeps): Notifier[] {
  return receivers.map((r) => createNotifier(r, deps));
}

/** Closes every notifier's connections. */
export async function closeNotifiers(notifiers: Iterable<Notifier>): Promise<void> {
  await Promise.allSettled([...notifiers].map((n) => n.close?.()));
}

function unreachable(r: never): never {
  throw new Error(`unknown receiver type: ${JSON.stringify(r)}`);
}
