/**
 * Silences: matchers with a start and an end, who made them and why. Alerts they match
 * are still tracked (and listed with `silenced_by`) but not sent. Silences come from the
 * config (fixed ids, cannot be expired through the API) or from the API (persisted with
 * the alert state; expiring one sets its end to now).
 */
import { createHash, randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { FieldProblem } from '../core/errors.js';
import { parseDuration } from '../core/units.js';
import { type CompiledMatcher, compileMatchers, matchesAll } from './matchers.js';
import { matcherSchema, type SilenceConfig } from './schema.js';
import { byCodeUnits } from '../core/order.js';

/** A silence as stored and listed (times in ms). */
export interface Silence {
  id: string;
  matchers: string[];
  starts_at: number;
  ends_at: number;
  created_by: string;
  comment: string;
  created_at: number;
  updated_at: number;
  source: 'config' | 'api';
}

/** Where a silence is in its life at a given time. */
export type SilenceStatus = 'pending' | 'active' | 'expired';

/** A silence with its status, as the API lists it. */
export interface SilenceView extends Omit<Silence, 'starts_at' | 'ends_at' | 'created_at' | 'updated_at'> {
  status: SilenceStatus;
  starts_at: string;
  ends_at: string;
  created_at: string;
  updated_at: string;
}

export type { FieldProblem };

/** Expired API silences are kept this long for the listing, then dropped. */
export const EXPIRED_SILENCE_RETENTION_MS = 5 * 86_400_000;

const amMatcher = z.strictObject({
  name: z.string().min(1),
  value: z.string(),
  isRegex: z.boolean().default(false),
  isEqual: z.boolean().default(true),
});

/** What `POST /api/v1/silences` accepts. `matchers` also take Alertmanager's object form. */
export const silenceInputSchema = z.strictObject({
  matchers: z.array(z.union([matcherSchema, amMatcher])).min(1, 'at least one matcher'),
  starts_at: z.iso.datetime({ offset: true, error: 'an ISO 8601 time with a zone' }).optional(),
  ends_at: z.iso.datetime({ offset: true, error: 'an ISO 8601 time with a zone' }).optional(),
  duration: z
    .string()
    .refine((s) => (parseDuration(s) ?? 0) > 0, 'a duration such as 2h')
    .optional(),
  created_by: z.string().trim().min(1, 'required'),
  comment: z.string().trim().min(1, 'required'),
});

function toMatcherText(m: string | z.output<typeof amMatcher>): string {
  if (typeof m === 'string') return m;
  const op = m.isRegex ? (m.isEqual ? '=~' : '!~') : m.isEqual ? '=' : '!=';
  return `${m.name}${op}${JSON.stringify(m.value)}`;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** The silences of one engine. */
export class Silences {
  private readonly items = new Map<string, Silence>();
  private readonly compiled = new Map<string, CompiledMatcher[]>();

  constructor(
    config: readonly SilenceConfig[],
    private readonly newId: () => string = randomUUID,
  ) {
    for (const c of config) {
      const id =
        c.id ??
        `cfg-${createHash('sha256')
          .update(JSON.stringify([c.matchers, c.starts_at, c.ends_at]))
          .digest('hex')
          .slice(0, 12)}`;
      this.put({
        id,
        matchers: [...c.matchers],
        starts_at: c.starts_at,
        ends_at: c.ends_at,
        created_by: c.created_by,
        comment: c.comment,
        created_at: c.starts_at,
        updated_at: c.starts_at,
        source: 'config',
      });
    }
  }

  private put(s: Silence): void {
    this.items.set(s.id, s);
    this.compiled.set(s.id, compileMatchers(s.matchers));
  }

  /** Validates and adds a silence from the API; returns it or the problems, by field. */
  add(input: unknown, now: number): { silence: Silence } | { problems: FieldProblem[] } {
    const parsed = silenceInputSchema.safeParse(input);
    if (!parsed.success) {
      return {
        problems: parsed.error.issues.map((i) => ({
          field:
            i.path
              .map((s, n) => (typeof s === 'number' ? `[${s}]` : n === 0 ? String(s) : `.${String(s)}`))
              .join('') || '(body)',
          message: i.message,
        })),
      };
    }
    const v = parsed.data;
    const startsAt = v.starts_at !== undefined ? Date.parse(v.starts_at) : now;
    let endsAt: number | undefined;
    const problems: FieldProblem[] = [];
    if (v.ends_at !== undefined && v.duration !== undefined) {
      problems.push({ field: 'duration', message: 'set either ends_at or duration, not both' });
    } else if (v.ends_at !== undefined) endsAt = Date.parse(v.ends_at);
    else if (v.duration !== undefined) endsAt = startsAt + parseDuration(v.duration)!;
    else problems.push({ field: 'ends_at', message: 'required (or duration)' });
    if (endsAt !== undefined && endsAt <= now)
      problems.push({ field: 'ends_at', message: 'must be in the future' });
    else if (endsAt !== undefined && endsAt <= startsAt) {
      problems.push({ field: 'ends_at', message: 'must be after starts_at' });
    }
    if (problems.length > 0) return { problems };
    const silence: Silence = {
      id: this.newId(),
      matchers: v.matchers.map(toMatcherText),
      starts_at: startsAt,
      ends_at: endsAt!,
      created_by: v.created_by,
      comment: v.comment,
      created_at: now,
      updated_at: now,
      source: 'api',
    };
    this.put(silence);
    return { silence };
  }

  /** Expires a silence now. */
  expire(id: string, now: number): { silence: Silence } | { error: 'not_found' | 'config' | 'expired' } {
    const s = this.items.get(id);
    if (!s) return { error: 'not_found' };
    if (s.source === 'config') return { error: 'config' };
    if (s.ends_at <= now) return { error: 'expired' };
    s.ends_at = Math.max(now, s.starts_at);
    s.updated_at = now;
    return { silence: s };
  }

  /** The ids of active silences that match the labels. */
  matching(labels: Readonly<Record<string, string>>, now: number): string[] {
    const out: string[] = [];
    for (const s of this.items.values()) {
      if (s.starts_at <= now && now < s.ends_at && matchesAll(this.compiled.get(s.id)!, labels))
        out.push(s.id);
    }
    return out;
  }

  /** Every silence with its status, newest first. */
  list(now: number): SilenceView[] {
    return [...this.items.values()]
      .sort((a, b) => b.created_at - a.created_at || byCodeUnits(a.id, b.id))
      .map((s) => view(s, now));
  }

  /** One silence with its status. */
  get(id: string, now: number): SilenceView | undefined {
    const s = this.items.get(id);
    return s && view(s, now);
  }

  /** The API-made silences, for the state file. */
  apiSilences(): Silence[] {
    return [...this.items.values()]
      .filter((s) => s.source === 'api')
      .map((s) => ({ ...s, matchers: [...s.matchers] }));
  }

  /** Restores API silences from the state file; ones with matchers that no longer parse are skipped. */
  restore(list: readonly Silence[]): string[] {
    const skipped: string[] = [];
    for (const s of list) {
      if (this.items.has(s.id)) continue;
      try {
        this.put({ ...s, source: 'api' });
      } catch {
        skipped.push(s.id);
      }
    }
    return skipped;
  }

  /** Drops API silences that expired before `before`; returns whether any went. */
  prune(before: number): boolean {
    let changed = false;
    for (const [id, s] of this.items) {
      if (s.source === 'api' && s.ends_at < before) {
        this.items.delete(id);
        this.compiled.delete(id);
        changed = true;
      }
    }
    return changed;
  }
}

/** Formats a silence for the API. */
export function view(s: Silence, now: number): SilenceView {
  const status: SilenceStatus = now < s.starts_at ? 'pending' : now < s.ends_at ? 'active' : 'expired';
  return {
    ...s,
    matchers: [...s.matchers],
    status,
    starts_at: iso(s.starts_at),
    ends_at: iso(s.ends_at),
    created_at: iso(s.created_at),
    updated_at: iso(s.updated_at),
  };
}
