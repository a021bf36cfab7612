/**
 * Rates of change per scenario, in simulated milliseconds. `calm` is a plausible working
 * day of a busy org; `lively` compresses it so that a demo shows something every few seconds.
 */
import type { Scenario } from './types.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

/** Means (exponential waits) and ranges (uniform) that drive the evolution. */
export interface Dynamics {
  /** Mean wait between an idle/offline flip of one channel. */
  presenceEvery: number;
  /** Share of flips of an idle channel that take it offline (an offline one always comes back). */
  offlineShare: number;
  visibilityEvery: number;
  /** Mean wait between two sessions planned on one channel. */
  planEvery: number;
  /** A channel plans no more sessions while it has this many scheduled. */
  maxScheduled: number;
  /** Lead time between planning a session and its scheduled start. */
  lead: [number, number];
  /** How late a session may start after its scheduled time. */
  startJitter: number;
  cancelShare: number;
  failShare: number;
  duration: [number, number];
  /**
   * Mean waits between audience activity on a live session; `Infinity` plays none (a run
   * that reads no session detail need not keep it).
   */
  questionEvery: number;
  reactionEvery: number;
  /** Reactions per burst, at most. */
  reactionBurst: number;
  announcementEvery: number;
  speakerEvery: number;
  /** At most this many speakers on a session at once. */
  maxSpeakers: number;
  aiStartAfter: [number, number];
  aiSummaryAfter: [number, number];
  aiFailShare: number;
  aiEnabledShare: number;
  memberEvery: number;
  planChangeEvery: number;
  fundingEvery: number;
  /** Period of the AI wallet's metering. */
  walletTick: number;
  /** Wallet cost of one minute of one live AI session. */
  aiCostPerMinute: number;
  topUpBelow: number;
  topUpChance: number;
  topUpAmount: number;
  /** Initial history spans this far back. */
  historyDays: number;
  /** Share of channels with a live session at start. */
  liveShare: number;
  /** The first scheduled session of a channel starts within this. */
  firstScheduledWithin: number;
}

const CALM: Dynamics = {
  presenceEvery: 3 * H,
  offlineShare: 0.5,
  visibilityEvery: 3 * D,
  planEvery: 4 * H,
  maxScheduled: 2,
  lead: [30 * M, 2 * D],
  startJitter: 3 * M,
  cancelShare: 0.04,
  failShare: 0.05,
  duration: [20 * M, 2 * H],
  questionEvery: 90 * S,
  reactionEvery: 20 * S,
  reactionBurst: 8,
  announcementEvery: 15 * M,
  speakerEvery: 12 * M,
  maxSpeakers: 6,
  aiStartAfter: [10 * S, 60 * S],
  aiSummaryAfter: [1 * M, 5 * M],
  aiFailShare: 0.05,
  aiEnabledShare: 0.7,
  memberEvery: 12 * H,
  planChangeEvery: 10 * D,
  fundingEvery: 7 * D,
  walletTick: 60 * S,
  aiCostPerMinute: 0.08,
  topUpBelow: 5,
  topUpChance: 0.02,
  topUpAmount: 50,
  historyDays: 14,
  liveShare: 0.12,
  firstScheduledWithin: 6 * H,
};

const LIVELY: Dynamics = {
  ...CALM,
  presenceEvery: 4 * M,
  visibilityEvery: 20 * M,
  planEvery: 3 * M,
  lead: [20 * S, 5 * M],
  startJitter: 20 * S,
  cancelShare: 0.08,
  failShare: 0.1,
  duration: [1 * M, 6 * M],
  questionEvery: 8 * S,
  reactionEvery: 3 * S,
  announcementEvery: 60 * S,
  speakerEvery: 45 * S,
  aiStartAfter: [5 * S, 20 * S],
  aiSummaryAfter: [15 * S, 60 * S],
  aiFailShare: 0.1,
  memberEvery: 45 * S,
  planChangeEvery: 6 * M,
  fundingEvery: 4 * M,
  walletTick: 15 * S,
  aiCostPerMinute: 0.5,
  topUpChance: 0.1,
  historyDays: 3,
  liveShare: 0.3,
  firstScheduledWithin: 3 * M,
};

/** The dynamics of a scenario. */
export function dynamicsFor(scenario: Scenario): Dynamics {
  return scenario === 'lively' ? LIVELY : CALM;
}
