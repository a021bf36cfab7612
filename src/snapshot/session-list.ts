/**
 * A channel's session list as a snapshot keeps it between reads: ids, titles and status
 * words in one array, the three times in an array of unboxed numbers, no object per
 * session. An org of 5000 channels holds some 100 000 sessions in its window; as objects
 * they cost about 204 bytes each on 64-bit Node (an 80-byte object, three 16-byte boxed
 * times, a slot in the list, the id and title), held this way about 116
 * (docs/performance.md, "Session lists held compactly").
 *
 * A list gives out {@link Session} objects made when asked for, each a new object: code
 * that only needs ids and statuses asks for those ({@link idAt}, {@link statusAt}) and
 * makes no object. It serializes as the array of sessions it holds (each in the model's
 * field order), so a stored snapshot is the same whichever way the list was held.
 */
import type { Session } from './model.js';

/** A session list as a snapshot part holds it: an array (as read) or a {@link SessionList}. */
export type Sessions = readonly Session[] | SessionList;

/** Status words are few: one string each, shared by every list (bounded). */
const words = new Map<string, string>();
const WORDS_KEPT = 256;

function word(w: string): string {
  const known = words.get(w);
  if (known !== undefined) return known;
  if (words.size < WORDS_KEPT) words.set(w, w);
  return w;
}

/** Slots per session in {@link SessionList}'s text array: id, title, status. */
const TEXT = 3;
/** Slots per session in its times array: planned start, start, end (NaN when absent). */
const TIMES = 3;

const time = (t: number | undefined): number => (t === undefined ? Number.NaN : t);
const known = (t: number): number | undefined => (Number.isNaN(t) ? undefined : t);

export class SessionList implements Iterable<Session> {
  readonly length: number;
  /** Id, title (undefined when absent) and status of session i at 3i, 3i+1, 3i+2. */
  private readonly text: (string | undefined)[];
  /** Planned start, start and end of session i at 3i, 3i+1, 3i+2; NaN when absent. */
  private readonly times: number[];
  /** The channel of every session, or each session's own when they are not all the same. */
  private readonly channels: string | string[];

  private constructor(sessions: readonly Session[]) {
    const n = sessions.length;
    this.length = n;
    // Arrays of their exact length: push would leave spare room at the end of each.
    const text = new Array<string | undefined>(n * TEXT);
    const times = new Array<number>(n * TIMES);
    const first = sessions[0]?.channelId ?? '';
    let same = true;
    for (let i = 0; i < n; i++) {
      const s = sessions[i]!;
      text[i * TEXT] = s.id;
      text[i * TEXT + 1] = s.title;
      text[i * TEXT + 2] = word(s.status);
      times[i * TIMES] = time(s.scheduledAt);
      times[i * TIMES + 1] = time(s.startedAt);
      times[i * TIMES + 2] = time(s.endedAt);
      if (s.channelId !== first) same = false;
    }
    this.text = text;
    this.times = times;
    this.channels = same ? first : sessions.map((s) => s.channelId);
  }

  /** `sessions` held compactly; a list already held so is returned as it is. */
  static of(sessions: Sessions): SessionList {
    return sessions instanceof SessionList ? sessions : new SessionList(sessions);
  }

  /** The id of session `i`. */
  idAt(i: number): string {
    return this.text[i * TEXT]!;
  }

  /** The status word of session `i`. */
  statusAt(i: number): string {
    return this.text[i * TEXT + 2]!;
  }

  /** The planned start of session `i`, when it has one. */
  scheduledAt(i: number): number | undefined {
    return known(this.times[i * TIMES]!);
  }

  /**
   * Session `index` as an object (a new one at each call), or undefined past either end;
   * the index is read as `Array.prototype.at` reads it (negative counts from the end).
   */
  at(index: number): Session | undefined {
    let i = Math.trunc(index) || 0;
    if (i < 0) i += this.length;
    if (i < 0 || i >= this.length) return undefined;
    const channelId = typeof this.channels === 'string' ? this.channels : this.channels[i]!;
    return sessionOf(
      this.text[i * TEXT]!,
      channelId,
      this.text[i * TEXT + 2]!,
      this.text[i * TEXT + 1],
      known(this.times[i * TIMES]!),
      known(this.times[i * TIMES + 1]!),
      known(this.times[i * TIMES + 2]!),
    );
  }

  *[Symbol.iterator](): Iterator<Session> {
    for (let i = 0; i < this.length; i++) yield this.at(i)!;
  }

  /** The sessions as an array of new objects. */
  toArray(): Session[] {
    const out = new Array<Session>(this.length);
    for (let i = 0; i < this.length; i++) out[i] = this.at(i)!;
    return out;
  }

  /** A stored snapshot holds the sessions themselves (JSON.stringify calls this). */
  toJSON(): Session[] {
    return this.toArray();
  }
}

/**
 * Whether `list` can be held as a {@link SessionList}: an array of objects. A stored
 * snapshot edited by hand may hold anything; such a list is kept as it was read.
 */
export function holdable(list: unknown): list is readonly Session[] {
  if (!Array.isArray(list)) return false;
  for (const s of list) if (typeof s !== 'object' || s === null || Array.isArray(s)) return false;
  return true;
}

/** The id of session `i` of `list`. */
export function idAt(list: Sessions, i: number): string {
  return list instanceof SessionList ? list.idAt(i) : list[i]!.id;
}

/** The status word of session `i` of `list`. */
export function statusAt(list: Sessions, i: number): string {
  return list instanceof SessionList ? list.statusAt(i) : list[i]!.status;
}

/** The planned start of session `i` of `list`, when it has one. */
export function scheduledAt(list: Sessions, i: number): number | undefined {
  return list instanceof SessionList ? list.scheduledAt(i) : list[i]!.scheduledAt;
}

/** Where session `id` is in `list`, or -1. */
export function indexOfId(list: Sessions, id: string): number {
  for (let i = 0; i < list.length; i++) if (idAt(list, i) === id) return i;
  return -1;
}

/** The session `id` of `list`, or undefined. */
export function findSession(list: Sessions, id: string): Session | undefined {
  const i = indexOfId(list, id);
  return i < 0 ? undefined : list.at(i);
}

/** The sessions of `list` as an array (the list itself when it is one). */
export function sessionArray(list: Sessions): readonly Session[] {
  return list instanceof SessionList ? list.toArray() : list;
}

/**
 * A session as one object literal of exactly its fields, in the model's order. V8 keeps
 * the fields of an object literal inside the object; fields added one by one after it go
 * to a separate backing store, 32 bytes more per session on 64-bit Node. The usual shapes
 * (a title with the times of a scheduled, live or ended session) are literals; any other
 * is built field by field, the same value.
 */
export function sessionOf(
  id: string,
  channelId: string,
  status: string,
  title: string | undefined,
  scheduledAt: number | undefined,
  startedAt: number | undefined,
  endedAt: number | undefined,
): Session {
  if (title !== undefined) {
    if (scheduledAt !== undefined) {
      if (startedAt === undefined) {
        if (endedAt === undefined) return { id, channelId, status, title, scheduledAt };
      } else if (endedAt === undefined) {
        return { id, channelId, status, title, scheduledAt, startedAt };
      } else {
        return { id, channelId, status, title, scheduledAt, startedAt, endedAt };
      }
    } else if (startedAt !== undefined) {
      if (endedAt === undefined) return { id, channelId, status, title, startedAt };
      return { id, channelId, status, title, startedAt, endedAt };
    } else if (endedAt === undefined) {
      return { id, channelId, status, title };
    }
  }
  const session: Session = { id, channelId, status };
  if (title !== undefined) session.title = title;
  if (scheduledAt !== undefined) session.scheduledAt = scheduledAt;
  if (startedAt !== undefined) session.startedAt = startedAt;
  if (endedAt !== undefined) session.endedAt = endedAt;
  return session;
}
