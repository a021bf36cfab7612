/**
 * Deterministic change-event ids. The same change seen in the same snapshots always gets
 * the same id, so a replayed diff (after a restart, or when the same pair of snapshots is
 * compared twice) is recognised downstream as the same event instead of alerting twice.
 */
import { createHash } from 'node:crypto';
import type { EntityKind, EventKind, JsonValue } from './events.js';

/** What identifies one change: who, what, from what to what, and when it was seen. */
export interface EventIdInput {
  org: string;
  kind: EventKind;
  entity: { kind: EntityKind; id: string };
  field?: string | undefined;
  /** Distinguishes several events of one kind on one entity (a question's id, a speaker's id). */
  key?: string | undefined;
  from?: JsonValue | undefined;
  to?: JsonValue | undefined;
  /**
   * Fetch time of the part in the OLDER snapshot the change is measured from. Using the
   * older side makes the id survive a crash between logging the event and saving the
   * snapshot: the restored snapshot yields the same change with the same id, and a
   * second occurrence of the same transition later (live → offline → live) gets a new one.
   */
  since: number;
}

/** Length of an event id: 20 base32 characters carry 100 bits of the hash. */
export const EVENT_ID_LENGTH = 20;

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** The stable id of a change: the first 100 bits of a SHA-256 over its identity, in lower-case base32. */
export function eventId(input: EventIdInput): string {
  // A JSON array keeps field boundaries unambiguous ("a","bc" never hashes like "ab","c").
  const identity = JSON.stringify([
    input.org,
    input.kind,
    input.entity.kind,
    input.entity.id,
    input.field ?? null,
    input.key ?? null,
    input.from ?? null,
    input.to ?? null,
    input.since,
  ]);
  const digest = createHash('sha256').update(identity).digest();
  return base32(digest).slice(0, EVENT_ID_LENGTH);
}

function base32(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += BASE32[(buffer >> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  return out;
}
