/** Messages between a bench and the tally it runs in a child process (see tally-child.ts). */
import type { BudgetStats } from '../../src/upstream/transport/budget.js';
import type { Plan } from '../../src/poll/planner.js';
import type { ChangeEvent } from '../../src/snapshot/events.js';

/** A change event without its labels (all a bench matches on). */
export type SlimEvent = Pick<ChangeEvent, 'id' | 'at' | 'kind' | 'entity' | 'field' | 'from' | 'to'>;

/** The child's state at one moment. */
export interface ChildSample {
  /** Clock time of the sample. */
  at: number;
  rssBytes: number;
  heapUsedBytes: number;
  heapTotalBytes: number;
  externalBytes: number;
  /** CPU seconds (user + system) since the child started. */
  cpuSeconds: number;
  /** 99th percentile of event-loop delay since the previous sample (real ms). */
  loopDelayP99Ms: number;
  plan?: Plan | undefined;
  /** The sweep bound tally stated, every clock second since the previous sample (tally only). */
  bounds?: { at: number; boundMs: number }[] | undefined;
  budget?: BudgetStats | undefined;
  /** Naive poller only: full rounds done and their clock durations. */
  rounds?: number[] | undefined;
}

/** From the child. */
export type ChildMessage =
  | { type: 'started'; url: string | undefined }
  | { type: 'events'; noticedAt: number; events: SlimEvent[] }
  | { type: 'sample'; sample: ChildSample }
  | { type: 'stopped' }
  | { type: 'failed'; message: string };

/** To the child. */
export type ParentMessage = { type: 'sample' } | { type: 'stop' };

/** Drops what a bench does not need from an event. */
export function slim(e: ChangeEvent): SlimEvent {
  const out: SlimEvent = { id: e.id, at: e.at, kind: e.kind, entity: e.entity };
  if (e.field !== undefined) out.field = e.field;
  if (e.from !== undefined) out.from = e.from;
  if (e.to !== undefined) out.to = e.to;
  return out;
}
