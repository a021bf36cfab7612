/**
 * The config fragments of notification delivery: `receivers` (where notifications go) and
 * `delivery` (timeouts, retries, how long an undelivered notification is kept). The
 * config schema plugs both in at the top level.
 *
 * A receiver has a `name` and exactly one sink key, one per row of the sink table
 * (./sinks.ts: `email`, `webhook`, `alertmanager`, `log`); after validation it becomes a
 * union tagged by `type`, from which the registry builds the row's notifier.
 */
import { z } from 'zod';
import { duration } from '../core/zod-units.js';
import type { DeliveryOptions } from './delivery.js';
import type { SinkType } from './notifier.js';
import { SINK_TYPES, SINKS, type SinkConfig } from './sinks.js';

export { SINK_TYPES };

/** A validated receiver, tagged by its sink type: one member per row of the sink table. */
export type ReceiverConfig = {
  name: string /** Attempt timeout (ms) overriding `delivery.timeout`. */;
  timeout?: number | undefined;
} & { [K in SinkType]: { type: K } & { [P in K]: SinkConfig<K> } }[SinkType];

/** Each sink's key, optional, in table order. */
type SinkKeys = { [K in SinkType]: z.ZodOptional<(typeof SINKS)[K]['schema']> };
const sinkKeys = Object.fromEntries(SINK_TYPES.map((t) => [t, SINKS[t].schema.optional()])) as SinkKeys;

/** One receiver as written in config. */
export const receiverSchema = z
  .strictObject({
    name: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'a name of letters, digits, dot, dash or underscore')
      .meta({ description: 'Name that routes refer to; also the `receiver` label of delivery metrics.' }),
    timeout: duration({ min: '100ms' })
      .optional()
      .meta({ description: 'Attempt timeout for this receiver (default: delivery.timeout).' }),
    ...sinkKeys,
  })
  .superRefine((r, ctx) => {
    const set = SINK_TYPES.filter((k) => r[k] !== undefined);
    if (set.length === 0)
      ctx.addIssue({ code: 'custom', path: [], message: `one of ${SINK_TYPES.join(', ')} is required` });
    if (set.length > 1)
      ctx.addIssue({
        code: 'custom',
        path: [set[1]!],
        message: `only one of ${set.join(', ')} per receiver`,
      });
  })
  .transform((r): ReceiverConfig => {
    // The refinement above has made sure exactly one sink key is set.
    const type = SINK_TYPES.find((k) => r[k] !== undefined) ?? SINK_TYPES[0]!;
    return { name: r.name, timeout: r.timeout, type, [type]: r[type] } as ReceiverConfig;
  });

/** The `receivers` section: a list with unique names. */
export const receiversSchema = z
  .array(receiverSchema)
  .superRefine((list, ctx) => {
    const seen = new Map<string, number>();
    list.forEach((r, i) => {
      const prev = seen.get(r.name);
      if (prev !== undefined)
        ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `duplicate of receivers[${prev}].name` });
      else seen.set(r.name, i);
    });
  })
  .meta({ description: 'Where notifications go: e-mail, webhooks, Alertmanager, the console.' });

/** The `delivery` section: how the delivery worker retries and for how long. */
export const deliverySchema = z
  .strictObject({
    timeout: duration({ min: '100ms' })
      .prefault('10s')
      .meta({ description: 'Longest one delivery attempt may take.' }),
    concurrency: z.int().min(1).max(64).default(4).meta({ description: 'Attempts in flight at once.' }),
    max_age: duration({ min: '1s' }).prefault('24h').meta({
      description: 'A notification not delivered within this time is dropped (logged and counted).',
    }),
    max_attempts: z.int().min(0).default(0).meta({
      description: 'Failed attempts after which a notification is dropped; 0: no limit but max_age.',
    }),
    backoff: z
      .strictObject({
        base: duration({ min: '10ms' }).prefault('1s'),
        max: duration({ min: '10ms' }).prefault('5m'),
      })
      .prefault({})
      .meta({
        description: 'Exponential backoff with full jitter between attempts; Retry-After is honoured.',
      }),
    dead_letters: z
      .int()
      .min(0)
      .max(10_000)
      .default(100)
      .meta({ description: 'Dropped notifications remembered for the status API.' }),
  })
  .meta({ description: 'Delivery of notifications: timeouts, retries and the outbox.' });

/** A validated `delivery` section. */
export type DeliveryConfig = z.output<typeof deliverySchema>;

/** The delivery worker's options from the `delivery` section and each receiver's own timeout. */
export function deliveryOptions(
  delivery: DeliveryConfig,
  receivers: readonly ReceiverConfig[],
): DeliveryOptions {
  const receiverTimeoutsMs: Record<string, number> = {};
  for (const r of receivers) if (r.timeout !== undefined) receiverTimeoutsMs[r.name] = r.timeout;
  return {
    timeoutMs: delivery.timeout,
    receiverTimeoutsMs,
    concurrency: delivery.concurrency,
    maxAgeMs: delivery.max_age,
    maxAttempts: delivery.max_attempts,
    backoff: { baseMs: delivery.backoff.base, maxMs: delivery.backoff.max },
    deadLetterLimit: delivery.dead_letters,
  };
}
