/**
 * The upstream client's tests on loopback servers (test/helpers/loopback.ts): a client of
 * test options per server, closed after each test.
 */
import type { Learned } from '../../src/upstream/query/adapt.js';
import { DEFAULT_FILTERS } from '../../src/upstream/query/filters.js';
import { UpstreamClient, type UpstreamClientOptions } from '../../src/upstream/client.js';
import { systemClock } from '../../src/core/clock.js';
import type { Logger } from '../../src/core/log.js';

import {
  captureLogger,
  json,
  type Loopback,
  type LoopbackSuite as ServerSuite,
  type Received,
  loopbackSuite as serverSuite,
  startServer,
  watchUnhandled,
} from '../helpers/loopback.js';

export { captureLogger, json, type Loopback, type Received, startServer, watchUnhandled };

/**
 * The requests of `received` but those asking for a page the list did not show
 * (`page=`, `offset=` or after the last record's id: a list that shows no paging is
 * checked once for a page after it, lists/silent-pages.ts).
 */
export function withoutProbes(received: readonly Received[]): Received[] {
  return received.filter((r) => !/[?&](page|offset|starting_after|after|after_id|since_id)=/.test(r.url));
}

/** Options of a client for tests: short timeouts, quick retries, a generous budget. */
export function clientOptions(
  baseUrl: string,
  logger: Logger,
  over: Partial<UpstreamClientOptions> = {},
): UpstreamClientOptions {
  return {
    baseUrl,
    budgetPerMinute: 300,
    concurrency: 4,
    timeouts: { connectMs: 1000, headersMs: 1000, bodyMs: 1000 },
    maxBodyBytes: 64 * 1024,
    maxPages: 20,
    retries: { attempts: 3, baseDelayMs: 5, maxDelayMs: 20, deadlineMs: 10_000 },
    shape: {},
    filters: DEFAULT_FILTERS,
    window: { pastMs: 86_400_000, futureMs: 7 * 86_400_000 },
    clock: systemClock,
    logger,
    rng: () => 0.5,
    ...over,
  };
}

/** What {@link loopbackSuite} gives a test file of the upstream client. */
export interface LoopbackSuite extends ServerSuite {
  /** A client of {@link clientOptions} logging to `logs`, closed after the test. */
  client(baseUrl: string, over?: Partial<UpstreamClientOptions>): UpstreamClient;
}

/**
 * The loopback set-up of test/helpers/loopback.ts with clients of {@link clientOptions}.
 * Call it at the top level of a test file.
 */
export function loopbackSuite(opts: { secret?: string } = {}): LoopbackSuite {
  const suite = serverSuite(opts);
  return {
    ...suite,
    client: (baseUrl, over = {}) =>
      suite.closeAfter(new UpstreamClient(clientOptions(baseUrl, suite.logs.logger, over))),
  };
}

/** What `memory` learned of `org`'s `endpoint`, without when it was learned and confirmed. */
export function known(
  memory: { get(org: string, endpoint: string): Learned | undefined },
  org: string,
  endpoint: string,
): Learned | undefined {
  const l = memory.get(org, endpoint);
  return l === undefined ? undefined : untimedOne(l);
}

/** Every entry of a saved learned-queries file without `learnedAt` and `confirmedAt`. */
export function untimed(all: unknown): unknown {
  if (all === null || typeof all !== 'object') return all;
  return Object.fromEntries(Object.entries(all).map(([k, v]) => [k, untimedOne(v as Learned)]));
}

/** `l` without `learnedAt` and `confirmedAt`. */
export function untimedOne(l: Learned): Learned {
  const { learnedAt: _l, confirmedAt: _c, ...rest } = l;
  return rest;
}
