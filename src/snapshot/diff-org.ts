/**
 * Diffs of the org-level parts: profile and settings, team, subscription (plan, limits,
 * usage, AI funding and wallet). Each part is compared only when it was fetched
 * completely in both snapshots.
 */
import {
  bothComplete,
  byId,
  type EventSink,
  type Stamp,
  orNull,
  own,
  same,
  sortedIds,
} from './diff-context.js';
import type { AiFunding, Member, OrgSnapshot, Scalar, Subscription } from './model.js';

/** `org.changed` for the name, the plan and every settings key. */
export function diffProfile(prev: OrgSnapshot, next: OrgSnapshot, sink: EventSink): void {
  const pair = bothComplete(prev.profile, next.profile);
  if (!pair) return;
  const entity = { kind: 'org' as const, id: next.org };
  const change = (field: string, from: Scalar | undefined, to: Scalar | undefined) => {
    if (same(from, to)) return;
    sink.emit(
      { kind: 'org.changed', entity, field, from: orNull(from), to: orNull(to), labels: {} },
      pair.at,
    );
  };
  change('name', pair.prev.name, pair.next.name);
  change('plan', pair.prev.plan, pair.next.plan);
  const { settings: a } = pair.prev;
  const { settings: b } = pair.next;
  for (const key of sortedIds([...Object.keys(a), ...Object.keys(b)])) {
    change(`settings.${key}`, own(a, key), own(b, key));
  }
}

/** Members added, removed, with a new role, or with a new name or email. */
export function diffTeam(prev: OrgSnapshot, next: OrgSnapshot, sink: EventSink): void {
  const pair = bothComplete(prev.team, next.team);
  if (!pair) return;
  const before = byId(pair.prev);
  const after = byId(pair.next);
  for (const id of sortedIds([...before.keys(), ...after.keys()])) {
    const a = before.get(id);
    const b = after.get(id);
    const entity = { kind: 'member' as const, id };
    if (a === undefined && b !== undefined) {
      sink.emit({ kind: 'member.added', entity, to: orNull(b.role), labels: memberLabels(b) }, pair.at);
    } else if (a !== undefined && b === undefined) {
      sink.emit({ kind: 'member.removed', entity, from: orNull(a.role), labels: memberLabels(a) }, pair.at);
    } else if (a !== undefined && b !== undefined) {
      const labels = memberLabels(b, a);
      if (!same(a.role, b.role)) {
        sink.emit(
          {
            kind: 'member.role_changed',
            entity,
            field: 'role',
            from: orNull(a.role),
            to: orNull(b.role),
            labels,
          },
          pair.at,
        );
      }
      for (const field of ['name', 'email'] as const) {
        if (same(a[field], b[field])) continue;
        sink.emit(
          { kind: 'member.changed', entity, field, from: orNull(a[field]), to: orNull(b[field]), labels },
          pair.at,
        );
      }
    }
  }
}

function memberLabels(m: Member, older?: Member): Record<string, string> {
  const labels: Record<string, string> = {
    member: m.name ?? older?.name ?? m.email ?? older?.email ?? m.id,
    member_id: m.id,
  };
  const role = m.role ?? older?.role;
  if (role !== undefined) labels['role'] = role;
  return labels;
}

/** Plan, each limit and usage figure, the funding mode and its details, the wallet balance. */
export function diffSubscription(prev: OrgSnapshot, next: OrgSnapshot, sink: EventSink): void {
  const pair = bothComplete(prev.subscription, next.subscription);
  if (!pair) return;
  const { prev: a, next: b, at } = pair;
  const entity = { kind: 'subscription' as const, id: next.org };
  const plan = b.plan ?? a.plan;
  const labels: Record<string, string> = plan === undefined ? {} : { plan };
  if (!same(a.plan, b.plan)) {
    const draft = { kind: 'subscription.plan_changed' as const, entity, field: 'plan', labels };
    sink.emit({ ...draft, from: orNull(a.plan), to: orNull(b.plan) }, at);
  }
  // An absent limit is an unlimited one, so a limit appearing or disappearing is a change to or from null.
  for (const [group, kind] of [
    ['limits', 'subscription.limit_changed'],
    ['usage', 'subscription.usage_changed'],
  ] as const) {
    const x = a[group];
    const y = b[group];
    for (const name of sortedIds([...Object.keys(x), ...Object.keys(y)])) {
      const from = own(x, name);
      const to = own(y, name);
      if (same(from, to)) continue;
      const named = { ...labels, [group === 'limits' ? 'limit' : 'usage']: name };
      sink.emit(
        { kind, entity, field: `${group}.${name}`, from: orNull(from), to: orNull(to), labels: named },
        at,
      );
    }
  }
  diffFunding(a, b, at, { entity, labels }, sink);
}

type Base = { entity: { kind: 'subscription'; id: string }; labels: Record<string, string> };

function diffFunding(a: Subscription, b: Subscription, at: Stamp, base: Base, sink: EventSink): void {
  const x = a.funding;
  const y = b.funding;
  const funding = (field: string, from: Scalar | undefined, to: Scalar | undefined) => {
    if (same(from, to)) return;
    const draft = { ...base, kind: 'subscription.funding_changed' as const, field };
    sink.emit({ ...draft, from: orNull(from), to: orNull(to) }, at);
  };
  if (fundingMode(x) !== fundingMode(y)) {
    // Details of two different modes are not comparable: the mode change says it all.
    funding('mode', fundingMode(x), fundingMode(y));
    return;
  }
  if (x.mode === 'byok' && y.mode === 'byok') {
    funding('byok.provider', x.provider, y.provider);
    funding('byok.key_status', x.keyStatus, y.keyStatus);
  }
  if (x.mode === 'wallet' && y.mode === 'wallet') {
    funding('wallet.currency', x.currency, y.currency);
    if (!same(x.balance, y.balance)) {
      const currency = y.currency ?? x.currency;
      const labels = currency === undefined ? base.labels : { ...base.labels, currency };
      const draft = { ...base, labels, kind: 'wallet.balance_changed' as const, field: 'balance' };
      sink.emit({ ...draft, from: orNull(x.balance), to: orNull(y.balance) }, at);
    }
  }
}

/** The funding mode as users see it: `wallet`, `byok`, or an unknown mode's verbatim name. */
function fundingMode(f: AiFunding): string {
  return f.mode === 'unknown' ? (f.raw ?? 'unknown') : f.mode;
}
