/**
 * How an org joins the poller, on start and on a reload alike: from its stored snapshot
 * when there is one (changes since then are reported), otherwise with a silent baseline.
 * Events a stored snapshot carried that may not have reached the log before a crash are
 * published first.
 */
import type { Config } from '../config/schema.js';
import type { Logger } from '../core/log.js';
import type { PolledOrg } from '../poll/poller.js';
import type { ChangeEvent } from '../snapshot/events.js';
import type { SnapshotStore } from '../store/snapshot-store.js';
import type { StateWriter } from './state-writer.js';

/** What {@link resumeOrg} reads from and writes to. */
export interface ResumeDeps {
  snapshots: SnapshotStore;
  writer: StateWriter;
  log: Logger;
}

/** The org as the poller takes it, resumed from the state directory. */
export async function resumeOrg(org: Config['orgs'][number], deps: ResumeDeps): Promise<PolledOrg> {
  const stored = await deps.snapshots.loadWithEnvelope(org.slug);
  const initial = stored?.snapshot;
  // In the org's write order; an event log that refuses them now (a full disk) keeps them
  // waiting for the writer's retry, as for any write, rather than stopping the start.
  const pending = pendingEventsOf(stored?.extra);
  if (pending.length > 0) await deps.writer.publishInOrder(org.slug, pending, () => initial);
  deps.log.info(
    { org: org.slug, resumed: initial !== undefined },
    initial ? 'resuming from stored snapshot' : 'first look: taking a silent baseline',
  );
  return { auth: { slug: org.slug, token: org.token! }, filter: org.channels, initial, weight: org.weight };
}

/** The events a stored snapshot carried that may not have reached the log before a crash. */
function pendingEventsOf(extra: Record<string, unknown> | undefined): ChangeEvent[] {
  const list = extra?.['pendingEvents'];
  if (!Array.isArray(list)) return [];
  return list.filter(
    (e): e is ChangeEvent =>
      typeof e === 'object' &&
      e !== null &&
      typeof (e as ChangeEvent).id === 'string' &&
      typeof (e as ChangeEvent).kind === 'string',
  );
}
