/**
 * The registry of sinks: builds the {@link Notifier} of each configured receiver from its
 * row of the sink table (./sinks.ts), so a sink with a schema has a notifier.
 */
import type { Notifier, SinkType } from './notifier.js';
import type { ReceiverConfig } from './schema.js';
import { type NotifierDeps, SINKS, type SinkConfig, type SinkDescriptor } from './sinks.js';

export type { NotifierDeps };

/** Builds the notifier of one receiver. */
export function createNotifier(r: ReceiverConfig, deps: NotifierDeps): Notifier {
  return build(r.type, r.name, (r as unknown as Record<SinkType, SinkConfig<SinkType>>)[r.type], deps);
}

function build<K extends SinkType>(
  type: K,
  name: string,
  config: SinkConfig<K>,
  deps: NotifierDeps,
): Notifier {
  // A row's `create` takes its own schema's output; the table's type ties the two together.
  const sink = SINKS[type] as unknown as SinkDescriptor<K, (typeof SINKS)[K]['schema']>;
  return sink.create(name, config, deps);
}

/** Whether receiver `r` keeps what it was told firing until told it resolved (its row's `keepsTold`). */
export function keepsTold(r: ReceiverConfig): boolean {
  return SINKS[r.type].keepsTold;
}

/** Builds the notifiers of every receiver, in config order. */
export function createNotifiers(receivers: readonly ReceiverConfig[], deps: NotifierDeps): Notifier[] {
  return receivers.map((r) => createNotifier(r, deps));
}

/** Closes every notifier's connections. */
export async function closeNotifiers(notifiers: Iterable<Notifier>): Promise<void> {
  await Promise.allSettled([...notifiers].map((n) => n.close?.()));
}
