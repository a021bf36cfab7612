/** The upstream client the poll tests read the simulator with: fast retries, generous timeouts. */
import { silentLogger } from '../../src/core/log.js';
import type { Simulator } from '../../src/sim/index.js';
import { UpstreamClient } from '../../src/upstream/client.js';
import type { ManualClock } from '../helpers/clock.js';

/** A client for `sim` on `clock`, with the given budget. */
export function testClient(sim: Simulator, clock: ManualClock, budgetPerMinute = 240): UpstreamClient {
  return new UpstreamClient({
    baseUrl: sim.url,
    budgetPerMinute,
    concurrency: 4,
    timeouts: { connectMs: 2000, headersMs: 2000, bodyMs: 2000 },
    maxBodyBytes: 4 * 1024 * 1024,
    maxPages: 100,
    retries: { attempts: 1, baseDelayMs: 10, maxDelayMs: 10, deadlineMs: 1000 },
    shape: {},
    filters: {
      status_param: 'status',
      from_param: 'from',
      to_param: 'to',
      time_format: 'iso',
      status_separator: ',',
      send_status: false,
    },
    window: { pastMs: 86_400_000, futureMs: 7 * 86_400_000 },
    clock,
    logger: silentLogger(),
  });
}
