/**
 * A channel's session list as a snapshot keeps it between reads: the ids end to end in
 * one string and the titles in another, where each ends and each status word as code
 * units of two more strings, the four times as code units of a fourth; no object per
 * session. An org of 5000 channels holds some 100 000 sessions in its window; as objects
 * they cost about 204 bytes each on 64-bit Node (an 80-byte object, three 16-byte boxed
 * times, a slot in the list, the id and title), held this way about 70 with an id of 14
 * and a title of 25 characters (docs/performance.md, "Session lists held compactly").
 *
 * A list gives out {@link Session} objects made when asked for, each a new object: code
 * that only needs statuses and planned starts asks for those ({@link statusAt},
 * {@link scheduledAt}) and makes no object, and looks a session up by id without making
 * one ({@link indexOfId}); an id asked for ({@link idAt}) is a new string. It serializes
 * as the array of sessions it holds (each in the model's field order), so a stored
 * snapshot is the same whichever way the list was held.
 */
import type { Session } from './model.js';

/** A session list as a snapshot part holds it: an array (as read) or a {@link SessionList}. */
export type Sessions = readonly Session[] | SessionList;

/**
 * Status words are few: every list keeps a word as its place in one vocabulary of the
 * process (bounded; a list with a word past it keeps its words as strings).
 */
const VOCABULARY: string[] = [];
const PLACES = new Map<string, number>();
const VOCABULARY_KEPT = 0x7fff;

function placeOf(word: string): number | undefined {
  let place = PLACES.get(word);
  if (place === undefined && VOCABULARY.length < VOCABULARY_KEPT) {
    place = VOCABULARY.length;
    VOCABULARY.push(word);
    PLACES.set(word, place);
  }
  return place;
}

/** Numbers of 0 – 0xFFFF as the code units of one string (2 bytes each at most, no slot). */
function asUnits(numbers: readonly number[]): string {
  const out: string[] = [];
  for (let i = 0; i < numbers.length; i += 8192) {
    out.push(String.fromCharCode.apply(null, numbers.slice(i, i + 8192) as number[]));
  }
  return out.join('');
}

/** Times per session in a {@link SessionList}: planned start, planned end, start, end. */
const TIMES = 4;

const time = (t: number | undefined): number => (t === undefined ? Number.NaN : t);
const known = (t: number): number | undefined => (Number.isNaN(t) ? undefined : t);

/** A time's two code units when it is absent. */
const ABSENT = 0xffff;
/** The most steps past its base a time held in two code units can be (the next is {@link ABSENT}). */
const STEPS_KEPT = 0xffff_fffe;

/**
 * A list's times as two code units each (high and low 16 bits), counted in steps of `unit`
 * milliseconds from `base`, the list's earliest: 4 bytes a time instead of 8. Whole
 * seconds give steps of a second (136 years of room); times with milliseconds, steps of
 * one (49 days). A list whose times do not fit, or are not whole milliseconds, keeps them
 * as numbers.
 */
interface Stamps {
  units: string;
  base: number;
  unit: number;
}

function stampsOf(times: readonly number[]): Stamps | undefined {
  let base = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  let seconds = true;
  for (const t of times) {
    if (Number.isNaN(t)) continue;
    // -0 would come back as 0.
    if (!Number.isSafeInteger(t) || Object.is(t, -0)) return undefined;
    if (t < base) base = t;
    if (t > max) max = t;
    if (t % 1000 !== 0) seconds = false;
  }
  if (base === Number.POSITIVE_INFINITY) base = 0;
  const unit = seconds ? 1000 : 1;
  if (max !== Number.NEGATIVE_INFINITY && (max - base) / unit > STEPS_KEPT) return undefined;
  const units = new Array<number>(times.length * 2);
  for (let k = 0; k < times.length; k++) {
    const t = times[k]!;
    const steps = Number.isNaN(t) ? ABSENT * 0x10000 + ABSENT : (t - base) / unit;
    units[k * 2] = Math.floor(steps / 0x10000);
    units[k * 2 + 1] = steps % 0x10000;
  }
  return { units: asUnits(units), base, unit };
}

/** V8 makes a substring of at least this many characters a view of the string it is cut from. */
const VIEWED_FROM = 13;

/**
 * Characters `start` to `end` of `joined` as a string of its own. A plain slice of 13 or
 * more would be a view that keeps all of `joined` alive as long as it is kept (a map key,
 * an event label): every id of an old list for one id. A string joined to another is
 * flattened into a copy when sliced, and the copy is all the result keeps.
 */
function cut(joined: string, start: number, end: number): string {
  const part = joined.slice(start, end);
  return part.length < VIEWED_FROM ? part : ` ${part}`.slice(1);
}

export class SessionList implements Iterable<Session> {
  readonly length: number;
  /** Every id, end to end: one string, not one each. */
  private readonly ids: string;
  /** Every title, end to end (an absent one is empty). */
  private readonly titles: string;
  /**
   * Where session i's id ends in `ids` at 2i, and its title in `titles` at 2i+1; each
   * begins where the one before ends. Code units of a string while every end fits in one.
   */
  private readonly ends: string | number[];
  /**
   * Per session one code unit: its status word's place in the vocabulary times two, plus
   * one when it has no title.
   */
  private readonly marks: string;
  /** The status words, for a list with a word past the vocabulary's bound. */
  private readonly words: string[] | undefined;
  /**
   * Planned start, planned end, start and end of session i as times 4i … 4i+3: {@link Stamps}, or
   * numbers (NaN when absent) for a list whose times do not fit them.
   */
  private readonly times: Stamps | number[];
  /** The channel of every session, or each session's own when they are not all the same. */
  private readonly channels: string | string[];

  private constructor(sessions: readonly Session[]) {
    const n = sessions.length;
    this.length = n;
    // Arrays of their exact length: push would leave spare room at the end of each.
    const ends = new Array<number>(n * 2);
    const marks = new Array<number>(n);
    const times = new Array<number>(n * TIMES);
    const first = sessions[0]?.channelId ?? '';
    let same = true;
    let placed = true;
    let idEnd = 0;
    let titleEnd = 0;
    for (let i = 0; i < n; i++) {
      const s = sessions[i]!;
      idEnd += s.id.length;
      ends[i * 2] = idEnd;
      titleEnd += s.title?.length ?? 0;
      ends[i * 2 + 1] = titleEnd;
      const place = placeOf(s.status);
      if (place === undefined) placed = false;
      marks[i] = ((place ?? 0) << 1) | (s.title === undefined ? 1 : 0);
      times[i * TIMES] = time(s.scheduledAt);
      times[i * TIMES + 1] = time(s.scheduledEndAt);
      times[i * TIMES + 2] = time(s.startedAt);
      times[i * TIMES + 3] = time(s.endedAt);
      if (s.channelId !== first) same = false;
    }
    // join() makes one flat string, where += would leave a tree of pieces.
    this.ids = sessions.map((s) => s.id).join('');
    this.titles = sessions.map((s) => s.title ?? '').join('');
    this.ends = Math.max(idEnd, titleEnd) <= 0xffff ? asUnits(ends) : ends;
    this.marks = asUnits(marks);
    this.words = placed ? undefined : sessions.map((s) => s.status);
    this.times = stampsOf(times) ?? times;
    this.channels = same ? first : sessions.map((s) => s.channelId);
  }

  /** Time `k` of {@link times}, or undefined when absent. */
  private timeAt(k: number): number | undefined {
    const times = this.times;
    if (Array.isArray(times)) return known(times[k]!);
    const high = times.units.charCodeAt(k * 2);
    const low = times.units.charCodeAt(k * 2 + 1);
    if (high === ABSENT && low === ABSENT) return undefined;
    return times.base + (high * 0x10000 + low) * times.unit;
  }

  /** Entry `k` of {@link ends}. */
  private end(k: number): number {
    return typeof this.ends === 'string' ? this.ends.charCodeAt(k) : this.ends[k]!;
  }

  /** `sessions` held compactly; a list already held so is returned as it is. */
  static of(sessions: Sessions): SessionList {
    return sessions instanceof SessionList ? sessions : new SessionList(sessions);
  }

  /** The id of session `i` (a string of its own, {@link cut}). */
  idAt(i: number): string {
    return cut(this.ids, i === 0 ? 0 : this.end(i * 2 - 2), this.end(i * 2));
  }

  /** Whether session `i`'s id is `id`, without making a string. */
  idIs(i: number, id: string): boolean {
    const start = i === 0 ? 0 : this.end(i * 2 - 2);
    return this.end(i * 2) - start === id.length && this.ids.startsWith(id, start);
  }

  /** The title of session `i`, when it has one. */
  titleAt(i: number): string | undefined {
    if ((this.marks.charCodeAt(i) & 1) === 1) return undefined;
    return cut(this.titles, i === 0 ? 0 : this.end(i * 2 - 1), this.end(i * 2 + 1));
  }

  /** The status word of session `i`. */
  statusAt(i: number): string {
    return this.words === undefined ? VOCABULARY[this.marks.charCodeAt(i) >> 1]! : this.words[i]!;
  }

  /** The planned start of session `i`, when it has one. */
  scheduledAt(i: number): number | undefined {
    return this.timeAt(i * TIMES);
  }

  /** Whether session `i` has none of its four times (where it lies is unknown). */
  timelessAt(i: number): boolean {
    for (let k = 0; k < TIMES; k++) if (this.timeAt(i * TIMES + k) !== undefined) return false;
    return true;
  }

  /** The planned end of session `i`, when it has one. */
  scheduledEndAt(i: number): number | undefined {
    return this.timeAt(i * TIMES + 1);
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
      this.idAt(i),
      channelId,
      this.statusAt(i),
      this.titleAt(i),
      this.timeAt(i * TIMES),
      this.timeAt(i * TIMES + 2),
      this.timeAt(i * TIMES + 3),
      this.timeAt(i * TIMES + 1),
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
 * Whether `list` can be held as a {@link SessionList}: an array of sessions as the model
 * has them (string id, channel and status, a string title and number times or none). A
 * stored snapshot edited by hand may hold anything; such a list is kept as it was read.
 */
export function holdable(list: unknown): list is readonly Session[] {
  if (!Array.isArray(list)) return false;
  for (const s of list) if (!isSession(s)) return false;
  return true;
}

const optional = (v: unknown, type: 'string' | 'number') => v === undefined || typeof v === type;

function isSession(v: unknown): v is Session {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const s = v as Record<string, unknown>;
  return (
    typeof s['id'] === 'string' &&
    typeof s['channelId'] === 'string' &&
    typeof s['status'] === 'string' &&
    optional(s['title'], 'string') &&
    optional(s['scheduledAt'], 'number') &&
    optional(s['startedAt'], 'number') &&
    optional(s['endedAt'], 'number') &&
    optional(s['scheduledEndAt'], 'number')
  );
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

/** Whether session `i` of `list` has no planned start or end, start or end. */
export function timelessAt(list: Sessions, i: number): boolean {
  if (list instanceof SessionList) return list.timelessAt(i);
  const s = list[i]!;
  return (
    s.scheduledAt === undefined &&
    s.scheduledEndAt === undefined &&
    s.startedAt === undefined &&
    s.endedAt === undefined
  );
}

/** The planned end of session `i` of `list`, when it has one. */
export function scheduledEndAt(list: Sessions, i: number): number | undefined {
  return list instanceof SessionList ? list.scheduledEndAt(i) : list[i]!.scheduledEndAt;
}

/** Where session `id` is in `list`, or -1. */
export function indexOfId(list: Sessions, id: string): number {
  if (list instanceof SessionList) {
    for (let i = 0; i < list.length; i++) if (list.idIs(i, id)) return i;
    return -1;
  }
  return list.findIndex((s) => s.id === id);
}

/** Up to how many ids {@link wantedIn} compares in place rather than cutting every id out. */
const COMPARED_IN_PLACE = 8;

/**
 * The places in `list` of sessions whose id `wanted` holds, in list order. A few ids are
 * compared in place, so a walk over every list of an org makes no string per session.
 */
export function wantedIn(list: Sessions, wanted: ReadonlySet<string>): number[] {
  const out: number[] = [];
  if (wanted.size === 0) return out;
  if (list instanceof SessionList && wanted.size <= COMPARED_IN_PLACE) {
    for (let i = 0; i < list.length; i++) {
      for (const id of wanted) {
        if (list.idIs(i, id)) {
          out.push(i);
          break;
        }
      }
    }
    return out;
  }
  for (let i = 0; i < list.length; i++) if (wanted.has(idAt(list, i))) out.push(i);
  return out;
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
 * is built field by field, the same value. The planned end comes last among the
 * parameters (a list of a server that gives none passes nothing for it).
 */
export function sessionOf(
  id: string,
  channelId: string,
  status: string,
  title: string | undefined,
  scheduledAt: number | undefined,
  startedAt: number | undefined,
  endedAt: number | undefined,
  scheduledEndAt?: number,
): Session {
  if (scheduledEndAt !== undefined && title !== undefined && scheduledAt !== undefined) {
    if (startedAt === undefined) {
      if (endedAt === undefined) return { id, channelId, status, title, scheduledAt, scheduledEndAt };
    } else if (endedAt === undefined) {
      return { id, channelId, status, title, scheduledAt, scheduledEndAt, startedAt };
    } else {
      return { id, channelId, status, title, scheduledAt, scheduledEndAt, startedAt, endedAt };
    }
  } else if (scheduledEndAt === undefined && title !== undefined) {
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
  if (scheduledEndAt !== undefined) session.scheduledEndAt = scheduledEndAt;
  if (startedAt !== undefined) session.startedAt = startedAt;
  if (endedAt !== undefined) session.endedAt = endedAt;
  return session;
}
