/**
 * The sinks tally delivers to, one row each: the config key and its schema, how the
 * notifier is built, whether the receiver keeps incidents open until told, and where the
 * docs describe it. The receiver config union (./schema.ts), the registry (./registry.ts)
 * and the alerting half's `keepsTold` (src/app/alerting.ts) all follow from this table
 * (docs/architecture.md, "Recipe: add a sink").
 *
 * The table is typed by {@link SinkType}: a sink named there without a row here, or a row
 * whose `type` is not its key, fails to compile (test/notify/sinks.test.ts shows it).
 */
import type { Writable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import type { Clock } from '../core/clock.js';
import { AlertmanagerNotifier } from './alertmanager/alertmanager.js';
import { alertmanagerSchema } from './alertmanager/schema.js';
import { EmailNotifier } from './email/email.js';
import { emailSchema } from './email/schema.js';
import { LogNotifier } from './log/log.js';
import { logSinkSchema } from './log/schema.js';
import type { Notifier, SinkType } from './notifier.js';
import { WebhookNotifier } from './webhook/webhook.js';
import { webhookSchema } from './webhook/schema.js';

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

/** One sink: everything tally needs to know of it, in one place. */
export interface SinkDescriptor<T extends SinkType, S extends z.ZodType> {
  /** The receiver's config key and the `sink` label of delivery metrics. */
  readonly type: T;
  /** The schema of the receiver's `<type>:` section. */
  readonly schema: S;
  /** Builds the notifier of receiver `name`. */
  readonly create: (name: string, config: z.output<S>, deps: NotifierDeps) => Notifier;
  /**
   * Whether the receiver keeps what it was told firing until told it resolved
   * (Alertmanager): an alert held for it (told, then muted) that resolves is sent
   * resolved, not left to expire (src/alerts/grouper.ts).
   */
  readonly keepsTold: boolean;
  /** Where the docs describe it: a file and heading as comments cite them (test/house/rules.test.ts checks it). */
  readonly docs: string;
}

/**
 * A table with one row per {@link SinkType}, each keyed by its own type. (`create` takes
 * `never` here so that every row's own config type fits; {@link sink} checks each row's
 * `create` against its `schema`.)
 */
export type SinkTable = {
  readonly [K in SinkType]: Omit<SinkDescriptor<K, z.ZodType>, 'create'> & {
    readonly create: (name: string, config: never, deps: NotifierDeps) => Notifier;
  };
};

/** One row, its `create` checked against its `schema`. */
function sink<T extends SinkType, S extends z.ZodType>(row: SinkDescriptor<T, S>): SinkDescriptor<T, S> {
  return row;
}

function httpDeps(deps: NotifierDeps) {
  return { clock: deps.clock, ...(deps.httpDispatcher ? { dispatcher: deps.httpDispatcher } : {}) };
}

/** Every sink, in the order the docs list them. */
export const SINKS = {
  email: sink({
    type: 'email',
    schema: emailSchema,
    create: (name, config) => new EmailNotifier(name, config),
    keepsTold: false,
    docs: 'docs/notifications.md, "E-mail"',
  }),
  webhook: sink({
    type: 'webhook',
    schema: webhookSchema,
    create: (name, config, deps) => new WebhookNotifier(name, config, httpDeps(deps)),
    keepsTold: false,
    docs: 'docs/notifications.md, "Webhook"',
  }),
  alertmanager: sink({
    type: 'alertmanager',
    schema: alertmanagerSchema,
    create: (name, config, deps) => new AlertmanagerNotifier(name, config, httpDeps(deps)),
    keepsTold: true,
    docs: 'docs/notifications.md, "Alertmanager"',
  }),
  log: sink({
    type: 'log',
    schema: logSinkSchema,
    create: (name, config, deps) =>
      new LogNotifier(name, config, deps.console, {
        clock: deps.clock,
        streamFormat: deps.consoleFormat ?? 'json',
      }),
    keepsTold: false,
    docs: 'docs/notifications.md, "Console"',
  }),
} as const satisfies SinkTable;

/** The sink keys, in table order. */
export const SINK_TYPES = Object.keys(SINKS) as SinkType[];

/** The validated config of one sink's section. */
export type SinkConfig<K extends SinkType> = z.output<(typeof SINKS)[K]['schema']>;
