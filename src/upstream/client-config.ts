/**
 * The upstream client's options from the `upstream` config section (docs/upstream-client.md,
 * "Config knobs").
 */
import type { Config } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import type { QueryMemory } from './query/adapt.js';
import type { UpstreamClientOptions } from './client.js';
import type { UpstreamObserver } from './observer.js';
import type { ShapeOptions, ShapeTrace } from './shape/index.js';

/** What the client takes besides the config. */
export interface ClientDeps {
  clock: Clock;
  logger: Logger;
  observer?: UpstreamObserver | undefined;
  rng?: () => number;
  memory?: QueryMemory | undefined;
  /** Told where each value was found (`tally once --explain`). */
  trace?: ShapeTrace | undefined;
}

/** The client's options from the config and its dependencies. */
export function clientOptions(config: Config, deps: ClientDeps): UpstreamClientOptions {
  const u = config.upstream;
  return {
    baseUrl: u.base_url,
    budgetPerMinute: u.budget_per_minute,
    burst: u.burst,
    concurrency: u.concurrency,
    timeouts: { connectMs: u.timeouts.connect, headersMs: u.timeouts.headers, bodyMs: u.timeouts.body },
    maxBodyBytes: u.max_body_bytes,
    maxPages: u.max_pages,
    retries: {
      attempts: u.retries.attempts,
      baseDelayMs: u.retries.base_delay,
      maxDelayMs: u.retries.max_delay,
      deadlineMs: u.retries.deadline,
    },
    shape: { ...shapeFromConfig(u.shape), trace: deps.trace },
    fixedPerPage: u.shape.per_page !== undefined,
    memory: deps.memory,
    filters: u.filters,
    window: { pastMs: u.window.past, futureMs: u.window.future },
    userAgent: u.user_agent,
    clock: deps.clock,
    logger: deps.logger,
    observer: deps.observer,
    rng: deps.rng,
  };
}

/** The shape options from the `upstream.shape` config section. */
export function shapeFromConfig(s: Config['upstream']['shape']): ShapeOptions {
  return {
    ...(s.envelope === undefined ? {} : { envelope: s.envelope }),
    paging: s.paging,
    cursorParam: s.cursor_param,
    pageParam: s.page_param,
    perPageParam: s.per_page_param,
    ...(s.per_page === undefined ? {} : { perPage: s.per_page }),
    ...(s.fields === undefined ? {} : { fields: s.fields as NonNullable<ShapeOptions['fields']> }),
  };
}
