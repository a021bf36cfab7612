/**
 * Wallet balance history per org, for the burn rate and the days the wallet has left.
 * The burn rate counts only decreases, so a top-up in the window does not read as
 * negative spending: burn per day = sum of drops / time covered by the samples.
 */

const DAY_MS = 86_400_000;
/** Less history than this says too little about the burn rate. */
const MIN_SPAN_MS = 30 * 60_000;
const MAX_SAMPLES = 500;

/** One balance sample: [time (ms), balance]. */
export type BalanceSample = [number, number];

/** Balance samples per org over a sliding window. */
export class WalletHistory {
  private readonly samples = new Map<string, BalanceSample[]>();

  constructor(private readonly windowMs: number) {}

  /** Records a balance seen at `at`; older or duplicate samples are ignored. */
  record(org: string, at: number, balance: number): void {
    if (!Number.isFinite(balance)) return;
    const list = this.samples.get(org) ?? [];
    const last = list[list.length - 1];
    if (last && at <= last[0]) return;
    const prev = list[list.length - 2];
    // A run of equal balances only needs its first and last sample.
    if (last && prev && last[1] === balance && prev[1] === balance) last[0] = at;
    else list.push([at, balance]);
    const cutoff = at - this.windowMs;
    while (list.length > 2 && (list[1]![0] <= cutoff || list.length > MAX_SAMPLES)) list.shift();
    this.samples.set(org, list);
  }

  /** Spending per day over the window, or undefined while the history is too short. */
  burnPerDay(org: string): number | undefined {
    const list = this.samples.get(org);
    if (!list || list.length < 2) return undefined;
    const first = list[0]!;
    const last = list[list.length - 1]!;
    const span = last[0] - first[0];
    if (span < MIN_SPAN_MS) return undefined;
    let drops = 0;
    for (let i = 1; i < list.length; i++) drops += Math.max(0, list[i - 1]![1] - list[i]![1]);
    return (drops / span) * DAY_MS;
  }

  /** Days until the balance reaches zero at the current burn rate; undefined when not burning. */
  daysLeft(org: string, balance: number): number | undefined {
    const burn = this.burnPerDay(org);
    if (burn === undefined || burn <= 0) return undefined;
    return Math.max(0, balance) / burn;
  }

  /** The samples, for the state file. */
  toJSON(): Record<string, BalanceSample[]> {
    return Object.fromEntries([...this.samples].map(([org, list]) => [org, list.map((s) => [...s])]));
  }

  /** Restores samples from the state file. */
  restore(data: Record<string, BalanceSample[]>): void {
    for (const [org, list] of Object.entries(data)) {
      for (const [at, balance] of list) this.record(org, at, balance);
    }
  }
}
