/**
 * Dialects: named, coherent servers of the same documented API that differ where the
 * document is silent (docs/upstream-shapes.md, "Dialects"): envelope, paging, field
 * case, id types, time formats, status words, money, page-size caps, strictness about
 * query parameters, filter support and error bodies. A dialect changes only how the
 * world is shown on the wire, never the world: every dialect of one seed holds the same
 * organizations, channels and sessions. They are examples for tests, not the definition
 * of what tally reads.
 */
import type { FaithfulDialect } from './dialects/types.js';
import type { SimStyle } from './types.js';

/** How times are written. */
export type TimeFormat = 'iso' | 'iso_offset' | 'epoch_s' | 'epoch_ms';
/** How a wallet balance is written. */
export type MoneyFormat = 'major' | 'decimal_string' | 'minor_nested' | 'minor_exponent' | 'scaled';
/** How an error body looks. */
export type ErrorFormat = 'json' | 'problem' | 'text';

/** One dialect. */
export interface Dialect {
  name: string;
  description: string;
  /** Envelope, paging and field case. */
  style: Partial<SimStyle>;
  /** Ids as strings (`ch_000006`) or numbers (`6`). */
  ids: 'string' | 'number';
  times: TimeFormat;
  /** Canonical status and visibility word → this server's word; unlisted words stay. */
  words: Readonly<Record<string, string>>;
  money: MoneyFormat;
  errors: ErrorFormat;
  /** Page sizes above this are refused with 400 naming the maximum. */
  maxPageSize?: number;
  /** Query parameters this server does not know are refused with 400 naming them. */
  strict: boolean;
  /** Whether the session list applies `status`, `from` and `to` (else it returns every session). */
  filters: boolean;
  /** A faithful dialect (src/sim/dialects/) renders every answer itself; the fields above are unused. */
  faithful?: FaithfulDialect;
}

const canonical: Dialect = {
  name: 'default',
  description: 'the canonical shape of docs/upstream-api.md',
  style: {},
  ids: 'string',
  times: 'iso',
  words: {},
  // A decimal string is major units whatever its digits: a whole balance (`"120.00"`) can
  // never be taken for minor units, as an integer beside a currency code is
  // (docs/upstream-shapes.md, "Subscription").
  money: 'decimal_string',
  errors: 'json',
  strict: false,
  filters: true,
};

/** Every dialect by name. */
export const DIALECTS: Readonly<Record<string, Dialect>> = {
  default: canonical,
  rails: {
    name: 'rails',
    description: 'bare arrays paged by page numbers in X-Total headers, offsets in times, ignores filters',
    style: { envelope: 'bare', paging: 'pages', fieldCase: 'snake' },
    ids: 'number',
    times: 'iso_offset',
    words: {
      live: 'on_air',
      scheduled: 'upcoming',
      ended: 'finished',
      cancelled: 'canceled',
      failed: 'errored',
    },
    money: 'decimal_string',
    errors: 'text',
    maxPageSize: 25,
    strict: false,
    filters: false,
  },
  'stripe-cursor': {
    name: 'stripe-cursor',
    description: 'data + has_more + next_cursor tokens, epoch seconds, minor units, strict about parameters',
    style: { envelope: 'data', paging: 'cursor', fieldCase: 'snake' },
    ids: 'string',
    times: 'epoch_s',
    words: { live: 'broadcasting', ended: 'completed', scheduled: 'pending', failed: 'aborted' },
    money: 'minor_nested',
    errors: 'json',
    maxPageSize: 100,
    strict: true,
    filters: false,
  },
  spring: {
    name: 'spring',
    description: 'camelCase items with offset and limit, epoch milliseconds, UPPER-CASE words, problem+json',
    style: { envelope: 'items', paging: 'offset', fieldCase: 'camel' },
    ids: 'number',
    times: 'epoch_ms',
    words: {
      live: 'LIVE',
      idle: 'IDLE',
      offline: 'OFFLINE',
      scheduled: 'SCHEDULED',
      ended: 'ENDED',
      cancelled: 'CANCELLED',
      failed: 'FAILED',
      public: 'PUBLIC',
      private: 'PRIVATE',
      unlisted: 'UNLISTED',
    },
    money: 'minor_exponent',
    errors: 'problem',
    maxPageSize: 50,
    strict: true,
    filters: true,
  },
  django: {
    name: 'django',
    description: 'relative next links in the body, ISO times with offsets, plain-text errors, small pages',
    style: { envelope: 'data', paging: 'next', fieldCase: 'snake' },
    ids: 'string',
    times: 'iso_offset',
    words: {
      live: 'streaming',
      idle: 'standby',
      ended: 'done',
      scheduled: 'planned',
      private: 'members_only',
    },
    money: 'decimal_string',
    errors: 'text',
    maxPageSize: 20,
    strict: false,
    filters: true,
  },
  'hal-scaled': {
    name: 'hal-scaled',
    description:
      'HAL (Spring Data REST): _embedded lists, _links.next, 0-based pages, scaled money, camelCase',
    style: { envelope: 'hal', paging: 'hal', fieldCase: 'camel' },
    ids: 'string',
    times: 'epoch_ms',
    words: {
      live: 'ON_AIR',
      idle: 'IDLE',
      offline: 'OFF_AIR',
      scheduled: 'PLANNED',
      ended: 'FINISHED',
      cancelled: 'CANCELED',
      failed: 'FAILED',
      public: 'PUBLIC',
      private: 'PRIVATE',
      unlisted: 'UNLISTED',
    },
    money: 'scaled',
    errors: 'problem',
    maxPageSize: 20,
    strict: true,
    filters: false,
  },
  legacy: {
    name: 'legacy',
    description: 'keyed envelopes without paging, numeric ids, epoch seconds, minor units, odd words',
    style: { envelope: 'key', paging: 'none', fieldCase: 'snake' },
    ids: 'number',
    times: 'epoch_s',
    words: {
      live: 'On Air',
      idle: 'Inactive',
      offline: 'Off Air',
      ended: 'Over',
      cancelled: 'Called Off',
      failed: 'Broken',
      public: 'Everyone',
      unlisted: 'Link Only',
    },
    money: 'minor_nested',
    errors: 'problem',
    strict: false,
    filters: false,
  },
};

/** Names of the parameter dialects (the faithful ones are in dialects/index.ts). */
export const DIALECT_NAMES: readonly string[] = Object.keys(DIALECTS);

/** Hours of the offset that `iso_offset` times are written in. */
const OFFSET_HOURS = 2;

/** A time (ISO in UTC, as serialize.ts writes it) in the dialect's format. */
function time(d: Dialect, iso: string): unknown {
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) return iso;
  if (d.times === 'epoch_s') return Math.floor(ms / 1000);
  if (d.times === 'epoch_ms') return ms;
  if (d.times === 'iso_offset') {
    const local = new Date(ms + OFFSET_HOURS * 3_600_000).toISOString().replace(/\.\d{3}Z$/, '');
    return `${local}+0${OFFSET_HOURS}:00`;
  }
  return iso;
}

/** `ch_000006` → 6; other ids stay. */
function numericId(id: unknown): unknown {
  if (typeof id !== 'string') return id;
  const m = /^[a-z]+_(\d+)$/.exec(id);
  return m ? Number(m[1]) : id;
}

/** ISO 4217 exponents the simulator's currencies use. */
const EXPONENT: Readonly<Record<string, number>> = { JPY: 0, KWD: 3 };

function money(d: Dialect, funding: Record<string, unknown>): Record<string, unknown> {
  const wallet = funding['wallet'] as { balance?: number; currency?: string } | undefined;
  if (wallet === undefined || typeof wallet.balance !== 'number') return funding;
  const currency = wallet.currency ?? 'EUR';
  const exp = EXPONENT[currency] ?? 2;
  const minor = Math.round(wallet.balance * 10 ** exp);
  if (d.money === 'decimal_string') {
    return { ...funding, wallet: { balance: wallet.balance.toFixed(exp), currency } };
  }
  if (d.money === 'minor_nested') {
    return { type: funding['mode'], details: { wallet: { balance_minor: minor, currency } } };
  }
  if (d.money === 'scaled') {
    return { mode: funding['mode'], remaining: { value: minor, exponent: exp, currency } };
  }
  if (d.money === 'minor_exponent') {
    return { ...funding, wallet: { balance: { amount_minor: minor, exponent: exp, currency } } };
  }
  return funding;
}

/** One canonical object (snake case, as serialize.ts builds it) in the dialect's shape. */
export function applyDialect(d: Dialect, obj: Record<string, unknown>): Record<string, unknown> {
  if (d === canonical) {
    const f = obj['ai_funding'];
    return f !== null && typeof f === 'object'
      ? { ...obj, ai_funding: money(d, f as Record<string, unknown>) }
      : obj;
  }
  if (d.style.envelope === 'hal' && Array.isArray(obj['questions'])) return embedded(d, obj);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'ai_funding' && v !== null && typeof v === 'object') {
      out[k] = money(d, v as Record<string, unknown>);
    } else if ((k === 'id' || k === 'channel_id') && d.ids === 'number') {
      out[k] = numericId(v);
    } else if (k.endsWith('_at') && typeof v === 'string') {
      out[k] = time(d, v);
    } else if ((k === 'status' || k === 'visibility') && typeof v === 'string') {
      out[k] = d.words[v] ?? v;
    } else if (Array.isArray(v)) {
      out[k] = v.map((x) =>
        x !== null && typeof x === 'object' ? applyDialect(d, x as Record<string, unknown>) : x,
      );
    } else if (v !== null && typeof v === 'object' && k !== 'settings' && k !== 'limits' && k !== 'usage') {
      out[k] = applyDialect(d, v as Record<string, unknown>);
    } else {
      out[k] = v;
    }
  }
  return out;
}

/** A session detail as HAL writes it: its questions, announcements and speakers under `_embedded`. */
function embedded(d: Dialect, obj: Record<string, unknown>): Record<string, unknown> {
  const { questions, announcements, speakers, ...rest } = obj;
  const items = (v: unknown) =>
    Array.isArray(v)
      ? v.map((x) =>
          x !== null && typeof x === 'object' ? applyDialect(d, x as Record<string, unknown>) : x,
        )
      : v;
  return {
    ...applyDialect(d, rest),
    _embedded: {
      questions: items(questions),
      announcements: items(announcements),
      speakers: items(speakers),
    },
  };
}

/** The id a path segment names: a number in a numeric dialect is the id with that number. */
export function idFromPath(d: Dialect, segment: string, prefix: 'ch' | 'ses'): string {
  if (d.ids !== 'number' || !/^\d{1,12}$/.test(segment)) return segment;
  return `${prefix}_${segment.padStart(prefix === 'ch' ? 6 : 8, '0')}`;
}

/** Query parameters a dialect knows, by paging style; filters only where it applies them. */
function knownParams(d: Dialect, sessions: boolean, paging: string): Set<string> {
  const known = new Set<string>();
  const add = (...names: string[]) => {
    for (const n of names) known.add(n);
  };
  if (paging === 'cursor') add('cursor', 'limit');
  else if (paging === 'hal') add('page', 'size', 'per_page');
  else if (paging === 'offset') add('offset', 'limit');
  else if (paging !== 'none') add('page', 'per_page');
  if (sessions && d.filters) add('status', 'from', 'to');
  return known;
}

/**
 * Why the dialect refuses this query, or undefined: an unknown parameter (strict
 * dialects) or a page size above the cap.
 */
export function refusal(
  d: Dialect,
  query: URLSearchParams,
  sessions: boolean,
  isList: boolean,
  paging: string,
): string | undefined {
  if (d.strict) {
    const known = knownParams(d, sessions, paging);
    const unknown = [...new Set(query.keys())].filter((k) => !known.has(k));
    if (unknown.length > 0) return `unknown query parameter: ${unknown.join(', ')}`;
  }
  if (isList && d.maxPageSize !== undefined) {
    for (const p of ['per_page', 'limit']) {
      const v = query.get(p);
      if (v !== null && Number(v) > d.maxPageSize) return `${p} must be at most ${d.maxPageSize}`;
    }
  }
  return undefined;
}

/** An error answer in the dialect's format: headers and body text. */
export function errorAnswer(
  d: Dialect,
  status: number,
  code: string,
  message: string,
): { headers: Record<string, string>; body: string } {
  if (d.errors === 'problem') {
    return {
      headers: { 'content-type': 'application/problem+json' },
      body: JSON.stringify({ type: 'about:blank', title: code.replace(/_/g, ' '), status, detail: message }),
    };
  }
  if (d.errors === 'text') return { headers: { 'content-type': 'text/plain; charset=utf-8' }, body: message };
  return { headers: {}, body: JSON.stringify({ error: { code, message } }) };
}
