/**
 * Stored snapshots in this build's model (docs/state.md, "Model versions"). A snapshot
 * carries the model version it was written in (`version`, model.ts), and its session
 * details with it: the store writes a snapshot file whole on a process's first save, so
 * every journal record that continues the file was written by the same build. As it is
 * loaded (the file with its journal applied), a snapshot of an older version is upgraded
 * step by step, and every detail is given each group of the detail-group table it lacks,
 * as unread: a group added after the detail was stored is unknown there, so its first
 * read is a baseline and never news (docs/upstream-shapes.md, "Session detail"). A
 * snapshot of a newer version than this build's is refused; the store sets it aside and
 * the next poll is a silent baseline. Limits and usage are given this build's limit names
 * (limit-names.ts), so a stored `max_channels` is not read as a limit removed.
 */
import { rowOf, SUB_RESOURCES } from './detail-groups.js';
import { withLimitNames } from './limit-names.js';
import {
  type DetailGroups,
  MODEL_VERSION,
  type OrgSnapshot,
  type SessionDetail,
  type SubResource,
} from './model.js';

/**
 * The step from each model version to the next, by index: `STEPS[v - 1]` upgrades a
 * snapshot of version `v` in place. A bump of {@link MODEL_VERSION} comes with its step
 * (test/snapshot/upgrade.test.ts checks there is one per version).
 */
export const STEPS: readonly ((snapshot: Record<string, unknown>) => void)[] = [];

/** Whether `v` is a model version this build reads: 1 up to its own. */
export function readableVersion(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= MODEL_VERSION;
}

/**
 * `snapshot`, read from disk and not yet shared, upgraded in place to this build's model;
 * throws for a version this build cannot read (newer, or not a version).
 */
export function upgradeSnapshot(snapshot: OrgSnapshot): OrgSnapshot {
  const raw = snapshot as unknown as Record<string, unknown>;
  const from = raw['version'];
  if (!readableVersion(from)) {
    throw new Error(
      `unsupported snapshot model version ${JSON.stringify(from)} (this tally reads 1 to ${MODEL_VERSION})`,
    );
  }
  for (let v = from; v < MODEL_VERSION; v++) STEPS[v - 1]!(raw);
  raw['version'] = MODEL_VERSION;
  // Limit names as this build reads them (limit-names.ts): idempotent, so every load.
  const sub = snapshot.subscription;
  if (sub !== undefined && sub.state !== 'failed') {
    sub.value = {
      ...sub.value,
      limits: withLimitNames(sub.value.limits),
      usage: withLimitNames(sub.value.usage),
    };
  }
  for (const part of Object.values(snapshot.details)) {
    if (part.state !== 'failed') part.value = withEveryGroup(part.value);
  }
  return snapshot;
}

/** `d` with each detail group it lacks added as unread (its row's placeholder); `d` itself when it has them all. */
export function withEveryGroup(d: SessionDetail): SessionDetail {
  const missing = SUB_RESOURCES.filter((name) => !Object.hasOwn(d, name));
  if (missing.length === 0) return d;
  const out: SessionDetail = { ...d, unread: [...(d.unread ?? []), ...missing] };
  for (const name of missing) setEmpty(out, name);
  return out;
}

function setEmpty<G extends SubResource>(d: DetailGroups, name: G): void {
  d[name] = rowOf(name).empty();
}
