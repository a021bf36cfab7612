/**
 * Domain metrics: what tally knows about each org, read from the latest snapshot at
 * scrape time. Every family carries the `org` label. Values come from the last complete
 * read of each part, so a failed read shows old values (see the freshness metrics), never
 * zeros.
 */
import type { Registry } from 'prom-client';
import { isLiveStatus } from '../snapshot/status.js';
import { channelClass } from '../snapshot/vocabulary.js';
import { DETAIL_GAUGES } from '../snapshot/detail-groups.js';
import type { OrgView, StatusSource } from '../poll/status.js';
import { type SeriesCaps, SeriesAllowance } from './cardinality.js';
import { collectedGauge, type Emit, listedFamily, seconds } from './collected.js';
import { registerOrgLabels } from './org-labels.js';
import { type LineMemo, type SnapshotSummary, UNKNOWN } from './snapshot-summary.js';

/** What the domain collectors read, and where they report dropped series. */
export interface DomainContext {
  registry: Registry;
  source: StatusSource;
  caps: SeriesCaps;
  /** The org views of this scrape, sorted by slug, each with its snapshot's summary. */
  orgs: () => readonly { view: OrgView; summary: SnapshotSummary }[];
  /** Counts series a capped family left out. */
  dropped: (family: string, n: number) => void;
}

const AI_MODES = ['wallet', 'byok', 'unknown'] as const;

/** The labels every per-channel family begins with (org, channel_id, channel): kept once per channel. */
const CHANNEL_LABELS = 3;

/** Registers every domain family on the context's registry. */
export function registerDomainMetrics(ctx: DomainContext): void {
  const { registry } = ctx;
  const each = (fn: (s: SnapshotSummary, v: OrgView) => void) => {
    for (const { view, summary } of ctx.orgs()) fn(summary, view);
  };

  collectedGauge(
    registry,
    'tally_org_info',
    'Org profile from the last poll: name and plan as labels; always 1.',
    ['org', 'name', 'plan'],
    (g) => each((s) => g.set({ org: s.org, name: s.name ?? '', plan: s.plan ?? '' }, 1)),
  );
  registerOrgLabels(registry, ctx.source);

  collectedGauge(
    registry,
    'tally_team_members',
    'Team members by role, from the last poll of the team.',
    ['org', 'role'],
    (g) =>
      each((s) => {
        for (const [role, n] of s.membersByRole ?? []) g.set({ org: s.org, role }, n);
      }),
  );

  registerSubscription(ctx, each);
  registerChannels(ctx, each);
  registerSessions(ctx, each);

  collectedGauge(
    registry,
    'tally_token_expiry_timestamp_seconds',
    "When the org's API token expires (Unix seconds), where the config says so.",
    ['org'],
    (g) =>
      each((_s, v) => {
        if (v.tokenExpiresAt !== undefined) g.set({ org: v.slug }, seconds(v.tokenExpiresAt));
      }),
  );
}

type Each = (fn: (s: SnapshotSummary, v: OrgView) => void) => void;

function registerSubscription(ctx: DomainContext, each: Each): void {
  const { registry } = ctx;
  collectedGauge(
    registry,
    'tally_subscription_limit',
    'Subscription limit by name, from the last poll; unlimited ones are absent.',
    ['org', 'limit'],
    (g) =>
      each((s) => {
        for (const [limit, v] of Object.entries(s.subscription?.limits ?? {}))
          g.set({ org: s.org, limit }, v);
      }),
  );
  collectedGauge(
    registry,
    'tally_subscription_usage',
    'Subscription usage by limit name, from the last poll.',
    ['org', 'limit'],
    (g) =>
      each((s) => {
        for (const [limit, v] of Object.entries(s.subscription?.usage ?? {})) g.set({ org: s.org, limit }, v);
      }),
  );
  collectedGauge(
    registry,
    'tally_subscription_usage_ratio',
    'Usage divided by limit (1 = at the limit), from the last poll; absent without both or for a zero limit.',
    ['org', 'limit'],
    (g) =>
      each((s) => {
        const sub = s.subscription;
        if (!sub) return;
        for (const [limit, cap] of Object.entries(sub.limits)) {
          const used = sub.usage[limit];
          if (used !== undefined && cap > 0) g.set({ org: s.org, limit }, used / cap);
        }
      }),
  );
  collectedGauge(
    registry,
    'tally_ai_funding_mode',
    'How AI features are funded, from the last poll: 1 for the current mode, 0 for the others.',
    ['org', 'mode'],
    (g) =>
      each((s) => {
        const mode = s.subscription?.funding.mode;
        if (mode === undefined) return;
        for (const m of AI_MODES) g.set({ org: s.org, mode: m }, m === mode ? 1 : 0);
      }),
  );
  collectedGauge(
    registry,
    'tally_ai_wallet_balance',
    'AI wallet balance in its currency, from the last poll; present while the org is wallet-funded.',
    ['org', 'currency'],
    (g) =>
      each((s) => {
        const f = s.subscription?.funding;
        if (f?.mode === 'wallet' && f.balance !== undefined) {
          g.set({ org: s.org, currency: f.currency ?? UNKNOWN }, f.balance);
        }
      }),
  );
}

function registerChannels(ctx: DomainContext, each: Each): void {
  const { registry, caps } = ctx;
  collectedGauge(
    registry,
    'tally_channels',
    'Channels by status and visibility, from the last complete poll of the channel list.',
    ['org', 'status', 'visibility'],
    (g) =>
      each((s) => {
        // Counted first: a gauge's inc per channel hashes a label set 5000 times a scrape.
        const counts = new Map<string, Map<string, number>>();
        for (const ch of s.channels ?? []) {
          let byVisibility = counts.get(ch.status);
          if (!byVisibility) {
            byVisibility = new Map();
            counts.set(ch.status, byVisibility);
          }
          byVisibility.set(ch.visibility, (byVisibility.get(ch.visibility) ?? 0) + 1);
        }
        for (const [status, byVisibility] of counts)
          for (const [visibility, n] of byVisibility) g.set({ org: s.org, status, visibility }, n);
      }),
  );
  collectedGauge(
    registry,
    'tally_live_channels',
    "Channels whose status is one of tally's live statuses, from the last poll of the channel list.",
    ['org'],
    (g) =>
      each((s) => {
        if (!s.channels) return;
        let live = 0;
        for (const c of s.channels) if (isLiveStatus(c.status)) live++;
        g.set({ org: s.org }, live);
      }),
  );
  // One series per channel, for its current status only: a state set with a zero for every
  // other status seen would triple the page at 5000 channels (docs/metrics.md, state sets).
  capped(
    ctx,
    'tally_channel_status',
    "Each channel's current status from the last poll, as the status label (the server's word) and live (true when it is one of tally's live statuses); always 1 (one series per channel).",
    ['org', 'channel_id', 'channel', 'status', 'live'],
    caps.channelSeries,
    (emit, allow) =>
      each((s) => {
        for (const ch of s.channels ?? []) {
          if (!allow.admit(1) || emit.kept(ch.statusLine, ch.labelsLine)) continue;
          emit(
            {
              org: s.org,
              channel_id: ch.id,
              channel: ch.name,
              status: ch.status,
              live: liveLabel(ch.status),
            },
            1,
            ch.statusLine,
            ch.labelsLine,
          );
        }
      }),
    CHANNEL_LABELS,
  );
  capped(
    ctx,
    'tally_channel_sessions',
    "Sessions of each channel in the time window by status, from the last complete poll of the channel's sessions.",
    ['org', 'channel_id', 'channel', 'status'],
    caps.channelSeries,
    (emit, allow) =>
      each((s) => {
        for (const ch of s.channels ?? []) {
          const by = ch.sessionsByStatus;
          if (!by || by.size === 0 || !allow.admit(by.size)) continue;
          if (allKept(ch.sessionLines, by.size) && emit.kept(ch.sessionLines[0]!, ch.labelsLine)) {
            for (let k = 1; k < by.size; k++) emit.kept(ch.sessionLines[k]!, ch.labelsLine);
            continue;
          }
          let i = 0;
          for (const [status, n] of by) {
            ch.sessionLines[i] ??= {};
            const memo = ch.sessionLines[i++];
            emit({ org: s.org, channel_id: ch.id, channel: ch.name, status }, n, memo, ch.labelsLine);
          }
        }
      }),
    CHANNEL_LABELS,
  );
}

function registerSessions(ctx: DomainContext, each: Each): void {
  const { registry, caps } = ctx;
  collectedGauge(
    registry,
    'tally_sessions',
    'Sessions in the time window by status, over every channel whose sessions were polled completely.',
    ['org', 'status'],
    (g) =>
      each((s) => {
        for (const [status, n] of s.sessionsByStatus) g.set({ org: s.org, status }, n);
      }),
  );
  collectedGauge(
    registry,
    'tally_live_sessions',
    "Sessions whose status is one of tally's live statuses, from the last poll of the session lists.",
    ['org'],
    (g) => each((s) => g.set({ org: s.org }, s.liveSessions.length)),
  );
  capped(
    ctx,
    'tally_live_session_info',
    // No title label: free text makes unbounded, changing series; titles are in /api/v1/status.
    'Each live session from the last poll, with its channel as labels; always 1.',
    ['org', 'session_id', 'channel_id', 'channel'],
    caps.sessionSeries,
    (emit, allow) =>
      each((s) => {
        for (const r of s.liveSessions) {
          if (!allow.admit(1)) continue;
          emit({ org: s.org, session_id: r.id, channel_id: r.channelId, channel: r.channel }, 1);
        }
      }),
  );
  // The per-session interaction families: one per detail group that has a gauge.
  for (const { name, what, read } of DETAIL_GAUGES) {
    capped(
      ctx,
      name,
      `${what} in each live session, as the API counted them at the last poll of its detail.`,
      ['org', 'session_id', 'channel_id'],
      caps.sessionSeries,
      (emit, allow) =>
        each((s) => {
          for (const r of s.liveSessions) {
            const n = r.detail === undefined ? undefined : read(r.detail);
            if (n === undefined || !allow.admit(1)) continue;
            emit({ org: s.org, session_id: r.id, channel_id: r.channelId }, n);
          }
        }),
    );
  }
}

/** Whether the first `n` memos all hold a line. */
function allKept(memos: readonly LineMemo[], n: number): boolean {
  if (memos.length < n) return false;
  for (let i = 0; i < n; i++) if (memos[i]!.line === undefined) return false;
  return true;
}

/**
 * A per-channel or per-session family: listed at scrape time (these are the large ones),
 * its series counted against a cap; what does not fit is counted as dropped.
 */
function capped<L extends string>(
  ctx: DomainContext,
  name: string,
  help: string,
  labelNames: readonly L[],
  cap: number,
  fill: (emit: Emit<L>, allow: SeriesAllowance) => void,
  headLabels = 0,
): void {
  listedFamily(
    ctx.registry,
    name,
    help,
    labelNames,
    (emit) => {
      const allow = new SeriesAllowance(cap);
      fill(emit, allow);
      if (allow.dropped > 0) ctx.dropped(name, allow.dropped);
    },
    headLabels,
  );
}

/**
 * A channel's `live` label: `true`, `false`, or `unknown` for a status word tally does not
 * know, which is counted neither live nor not live (docs/metrics.md).
 */
function liveLabel(status: string): string {
  const cls = channelClass(status);
  return cls === 'live' ? 'true' : cls === 'offline' ? 'false' : 'unknown';
}
