/**
 * The alert layer's persisted state: alerts with their lifecycle times, groups with what
 * they last sent (so a restart neither re-sends early nor forgets), silences made through
 * the API, and wallet balance history. One JSON document with a format version.
 */
import { z } from 'zod';
import type { GroupState } from './grouper.js';
import type { Silence } from './silences.js';
import type { TrackedAlert } from './tracker.js';
import type { BalanceSample } from './wallet.js';

/** Version of {@link AlertStateFile}; bumped on incompatible changes. */
export const ALERT_STATE_VERSION = 1;

/** The persisted state of the alert layer (JSON-serializable). */
export interface AlertStateFile {
  format: 'tally-alert-state';
  version: typeof ALERT_STATE_VERSION;
  savedAt: number;
  alerts: TrackedAlert[];
  groups: GroupState[];
  silences: Silence[];
  wallets: Record<string, BalanceSample[]>;
  /** Orgs whose upstream was down, so inhibition holds until their health is known again. */
  upstream?: Record<string, 'unreachable' | 'auth_failed'>;
  /**
   * The event log's sequence number of the last event applied, committed with the rest of
   * this state: at start, the events after it are applied again (docs/reliability.md).
   */
  cursor?: number;
  /**
   * The highest sequence number the event log had handed out when this was saved: a log
   * that lost its files numbers on after it, so the cursor never stands ahead of new events.
   */
  logSeq?: number;
}

/** Where the alert state is kept; the app backs it with an atomic JSON file in the state directory. */
export interface AlertStore {
  /** The last saved state, or undefined when there is none. */
  load(): Promise<AlertStateFile | undefined>;
  /** Replaces the saved state (atomically). */
  save(state: AlertStateFile): Promise<void>;
}

/** An in-memory store, for tests and `tally replay`. */
export class MemoryAlertStore implements AlertStore {
  /** The last saved state, as JSON text (so a test restart sees exactly what a file would hold). */
  text: string | undefined;
  saves = 0;

  async load(): Promise<AlertStateFile | undefined> {
    return this.text === undefined ? undefined : (JSON.parse(this.text) as AlertStateFile);
  }

  async save(state: AlertStateFile): Promise<void> {
    this.text = JSON.stringify(state);
    this.saves++;
  }
}

const record = z.record(z.string(), z.string());
const alertSchema = z.looseObject({
  fingerprint: z.string(),
  labels: record,
  annotations: record,
  state: z.enum(['pending', 'firing', 'resolved']),
  activeAt: z.number(),
  startsAt: z.number().optional(),
  endsAt: z.number().optional(),
  generatorURL: z.string().optional(),
  rule: z.string(),
  kind: z.enum(['condition', 'event']),
  org: z.string(),
  entity: z.string(),
  lastTrueAt: z.number().optional(),
  keepFiringSince: z.number().optional(),
  resolveAt: z.number().optional(),
  eventEntity: z.string().optional(),
  updatedAt: z.number().optional(),
});
const groupSchema = z.looseObject({
  receiver: z.string(),
  routeId: z.string(),
  key: z.string(),
  labels: record,
  createdAt: z.number(),
  alerts: z.array(z.string()),
  nextFlushAt: z.number(),
  seq: z.number().int().min(0),
  lastSent: z
    .object({
      at: z.number(),
      firing: z.array(z.string()),
      resolved: z.array(z.string()),
      held: z.array(z.string()).optional(),
    })
    .optional(),
});
const silenceSchema = z.looseObject({
  id: z.string(),
  matchers: z.array(z.string()),
  starts_at: z.number(),
  ends_at: z.number(),
  created_by: z.string(),
  comment: z.string(),
  created_at: z.number(),
  updated_at: z.number(),
  source: z.enum(['config', 'api']),
});
const stateSchema = z.looseObject({
  format: z.literal('tally-alert-state'),
  version: z.literal(ALERT_STATE_VERSION),
  savedAt: z.number(),
  alerts: z.array(alertSchema),
  groups: z.array(groupSchema),
  silences: z.array(silenceSchema),
  wallets: z.record(z.string(), z.array(z.tuple([z.number(), z.number()]))),
  upstream: z.record(z.string(), z.enum(['unreachable', 'auth_failed'])).optional(),
  cursor: z.int().min(0).optional(),
  logSeq: z.int().min(0).optional(),
});

/** Checks a loaded state document; returns it or why it cannot be used. */
export function checkState(data: unknown): { state: AlertStateFile } | { problem: string } {
  const r = stateSchema.safeParse(data);
  if (r.success) return { state: r.data as unknown as AlertStateFile };
  const issue = r.error.issues[0]!;
  return { problem: `${issue.path.join('.') || '(root)'}: ${issue.message}` };
}

/** Validation for a JSON state file wrapper: returns the state typed, or throws saying what is wrong. */
export function validateAlertState(value: unknown): AlertStateFile {
  const r = checkState(value);
  if ('problem' in r) throw new Error(r.problem);
  return r.state;
}
