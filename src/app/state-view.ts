/**
 * The state directory as the read side sees it (health, the event log's lost ranges, the
 * lock), and the replay of logged events the alert state has not seen (docs/reliability.md,
 * "Kill -9 matrix"; docs/state.md, "State health").
 */
import type { Clock, TimerHandle } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import type { StateView } from '../poll/status.js';
import type { AlertEngine } from '../alerts/engine.js';
import type { EventLog } from '../store/event-log.js';
import { encodeCursor } from '../store/event-query.js';
import type { StoreHealth } from '../store/health.js';
import type { StateLock } from '../store/lock.js';

/** What `/api/v1/status`, readiness and the status page show of the state directory. */
export function stateView(
  health: StoreHealth,
  eventLog: EventLog | undefined,
  lock: StateLock | undefined,
): StateView {
  const h = health.read();
  const stats = eventLog?.stats();
  const fenced = health.fencedBecause();
  const lockStatus = lock?.status() ?? { held: false };
  const view: StateView = {
    writable: !h.failing && fenced === undefined,
    failingPaths: h.failingPaths,
    failures: h.byPath as StateView['failures'],
    eventLog: {
      highestSeq: stats?.highestSeq ?? 0,
      missingEvents: stats?.missingEvents ?? 0,
      missing: stats?.gaps ?? [],
    },
    lock: fenced === undefined ? lockStatus : { ...lockStatus, held: false, problem: fenced },
  };
  if (h.lastError !== undefined) view.lastError = h.lastError;
  if (h.lastSuccessAt !== undefined) view.lastSuccessAt = h.lastSuccessAt;
  return view;
}

/**
 * The event log is the source of truth for alerts: the events logged after the alert
 * state's cursor (a kill between logging an event and saving the alert state) are applied
 * again, each once. A state without a cursor (a first start, or one saved before cursors
 * existed) starts it at the end of the log, saved at once, so that from then on nothing
 * logged is missed. A log that lost its files (events/ deleted, its newest segment gone)
 * numbers on after the highest sequence number the alert state knows was handed out: new
 * events never sit at or below the cursor, so a crash cannot make the replay skip them.
 */
export async function replayLogged(engine: AlertEngine, eventLog: EventLog, log: Logger): Promise<void> {
  await eventLog.continueAfter(engine.highestLoggedSeq());
  const cursor = engine.replayCursor();
  if (cursor === undefined) {
    engine.setCursor(eventLog.highestSeq());
    await engine.save();
    return;
  }
  let page = await eventLog.query({ limit: 1000, order: 'oldest', cursor: encodeCursor(cursor) });
  let applied = 0;
  for (;;) {
    applied += engine.replay(page.events);
    if (page.nextCursor === undefined) break;
    page = await eventLog.query({ limit: 1000, order: 'oldest', cursor: page.nextCursor });
  }
  if (applied > 0)
    log.info({ events: applied, after: cursor }, 'applied logged events the alert state had not seen');
}

/** How often the event log's files are checked for loss while nothing queries them. */
const VERIFY_EVERY_MS = 15_000;

/** Checks the event log's files now and then (a lost segment then shows without a query); returns the stop. */
export function watchEventLog(clock: Clock, eventLog: EventLog, log: Logger): () => void {
  let timer: TimerHandle | undefined;
  let stopped = false;
  const next = () => {
    if (stopped) return;
    timer = clock.setTimeout(() => {
      eventLog
        .verify()
        .catch((err: unknown) => log.warn({ err }, 'checking the event log files failed'))
        .finally(next);
    }, VERIFY_EVERY_MS);
  };
  next();
  return () => {
    stopped = true;
    timer?.cancel();
  };
}
