/**
 * Incidents the evolution plays (SimOptions.incidents): what becomes of a planned session
 * that is not routine, and the ground truth of each, so a client's alerts can be checked
 * against what really happened (`GET /_sim/incidents`, bench/alert-quality.ts).
 */
import type { SimSession } from './model.js';
import type { Rng } from './rng.js';

/** The kinds of incident the world plays. */
export const INCIDENT_KINDS = ['no_show', 'drop', 'early_end', 'overrun', 'failure'] as const;
export type IncidentKind = (typeof INCIDENT_KINDS)[number];

/** One incident as it happened (simulated ms). */
export interface SimIncident {
  kind: IncidentKind;
  org: string;
  channel: string;
  session: string;
  title: string;
  /** Planned start and end of the session. */
  scheduledAt: number;
  scheduledEndAt: number;
  /**
   * When it happened: the planned start (no-show), the drop or early end, the planned end
   * (overrun: the show went on past it), the failure.
   */
  at: number;
}

/** How an incident plays out, decided when the session is due to start. */
export interface IncidentPlan {
  kind: IncidentKind;
  /** For drops, early ends and failures: the share of the planned length it runs. */
  runs: number;
  /** For overruns: how long past its planned end it runs (ms). */
  over: number;
}

/** A no-show stays scheduled at least this long after its planned start (then it is cancelled). */
export const NO_SHOW_STAYS_MS = 20 * 60_000;

/** How far past its planned end an overrun runs: beyond any sensible margin (docs/alerts.md). */
export const OVERRUN_MS: [number, number] = [15 * 60_000, 30 * 60_000];

/**
 * How long before its planned end a drop or an early end comes at the latest: a drop's
 * session ends a minute after its channel goes off air, still inside the planned time; an
 * early end is more than the 5-minute margin of the shipped `session_dropped` before it
 * (docs/alerts.md). A show that started too late for that is not cut (sim/evolve.ts).
 */
export const CUT_BEFORE_END_MS: Partial<Record<IncidentKind, number>> = {
  drop: 2 * 60_000,
  early_end: 6 * 60_000,
};

/** Draws whether `s` becomes an incident (share `rate`), and which. */
export function planIncident(rng: Rng, rate: number): IncidentPlan | undefined {
  if (rate <= 0 || !rng.chance(rate)) return undefined;
  return {
    kind: rng.pick(INCIDENT_KINDS),
    runs: rng.between(0.1, 0.5),
    over: rng.between(OVERRUN_MS[0], OVERRUN_MS[1]),
  };
}

/** The ground truth of `s` becoming `kind` at `at`. */
export function incidentOf(s: SimSession, kind: IncidentKind, at: number): SimIncident {
  return {
    kind,
    org: s.channel.org.slug,
    channel: s.channel.id,
    session: s.id,
    title: s.title,
    scheduledAt: s.scheduledAt,
    scheduledEndAt: s.scheduledEndAt,
    at,
  };
}
