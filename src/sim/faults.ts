/**
 * Fault injection: which requests get which misbehaviour. Rules are checked and then
 * drawn per request from a generator seeded by the simulator's seed (re-seeded whenever
 * the rules change), so the same requests in the same order meet the same faults.
 */
import { SimConfigError } from './errors.js';
import { deriveSeed, Rng } from './rng.js';
import type { FaultSpec } from './types.js';

const RATE_KEYS = [
  'errorRate',
  'latencyRate',
  'slowBodyRate',
  'resetRate',
  'malformedRate',
  'truncateRate',
  'oversizeRate',
  'crossOriginNextRate',
  'redirectRate',
] as const;

const KNOWN_KEYS = new Set<string>([
  ...RATE_KEYS,
  'path',
  'errorStatus',
  'latencyMs',
  'slowBodyChunkBytes',
  'slowBodyIntervalMs',
  'oversizeBytes',
]);

/** What happens to one request. */
export interface FaultPlan {
  reset: boolean;
  redirect: boolean;
  /** A 5xx status to answer instead, or null. */
  error: number | null;
  latencyMs: number;
  slowBody: { chunkBytes: number; intervalMs: number } | null;
  malformed: boolean;
  truncate: boolean;
  /** Bytes of whitespace appended, or 0. */
  oversize: number;
  crossOriginNext: boolean;
}

/** A plan with no fault. */
export const NO_FAULT: FaultPlan = {
  reset: false,
  redirect: false,
  error: null,
  latencyMs: 0,
  slowBody: null,
  malformed: false,
  truncate: false,
  oversize: 0,
  crossOriginNext: false,
};

function checkNumber(where: string, key: string, value: unknown, min: number, max: number): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw new SimConfigError(
      `${where}.${key} must be a number from ${min} to ${max}, got ${JSON.stringify(value)}`,
    );
  }
}

/** Checks fault rules (from options or the control surface); throws naming the bad field. */
export function normalizeFaults(input: FaultSpec | readonly FaultSpec[] | null): FaultSpec[] {
  if (input === null) return [];
  const list: readonly unknown[] = Array.isArray(input) ? input : [input];
  return list.map((raw, i) => {
    const where = `faults[${i}]`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw new SimConfigError(`${where} must be an object`);
    }
    const spec = raw as Record<string, unknown>;
    for (const key of Object.keys(spec)) {
      if (!KNOWN_KEYS.has(key))
        throw new SimConfigError(`${where}: unknown fault option ${JSON.stringify(key)}`);
    }
    for (const key of RATE_KEYS) if (spec[key] !== undefined) checkNumber(where, key, spec[key], 0, 1);
    if (spec.path !== undefined) {
      if (typeof spec.path !== 'string') throw new SimConfigError(`${where}.path must be a string`);
      try {
        new RegExp(spec.path);
      } catch (err) {
        throw new SimConfigError(
          `${where}.path is not a valid regular expression: ${(err as Error).message}`,
        );
      }
    }
    if (spec.errorStatus !== undefined) checkNumber(where, 'errorStatus', spec.errorStatus, 500, 599);
    if (spec.latencyMs !== undefined) checkNumber(where, 'latencyMs', spec.latencyMs, 0, 600_000);
    if (spec.slowBodyChunkBytes !== undefined)
      checkNumber(where, 'slowBodyChunkBytes', spec.slowBodyChunkBytes, 1, 1 << 20);
    if (spec.slowBodyIntervalMs !== undefined)
      checkNumber(where, 'slowBodyIntervalMs', spec.slowBodyIntervalMs, 0, 60_000);
    if (spec.oversizeBytes !== undefined) checkNumber(where, 'oversizeBytes', spec.oversizeBytes, 1, 1 << 30);
    return { ...(spec as FaultSpec) };
  });
}

/** The current fault rules and the generator that draws them. */
export class Faults {
  private rules: { spec: FaultSpec; path: RegExp | null }[] = [];
  private rng: Rng;

  constructor(
    private readonly seed: number,
    specs: readonly FaultSpec[],
  ) {
    this.rng = new Rng(deriveSeed(seed, 'faults'));
    this.set(specs);
  }

  /** The rules in force. */
  get specs(): FaultSpec[] {
    return this.rules.map((r) => ({ ...r.spec }));
  }

  /**
   * Replaces the rules (already normalized). The draws restart from a seed made of the
   * simulator's seed and the rules, so the same rules meet the same requests the same way.
   */
  set(specs: readonly FaultSpec[]): void {
    this.rules = specs.map((spec) => ({
      spec,
      path: spec.path === undefined ? null : new RegExp(spec.path),
    }));
    this.rng = new Rng(deriveSeed(this.seed, 'faults', JSON.stringify(specs)));
  }

  /** Draws what happens to a request for `path`; every matching rule draws once per rate it sets. */
  plan(path: string): FaultPlan {
    if (this.rules.length === 0) return NO_FAULT;
    const p: FaultPlan = { ...NO_FAULT };
    for (const { spec, path: re } of this.rules) {
      if (re !== null && !re.test(path)) continue;
      const hit = (rate: number | undefined) => rate !== undefined && rate > 0 && this.rng.next() < rate;
      if (hit(spec.resetRate)) p.reset = true;
      if (hit(spec.redirectRate)) p.redirect = true;
      if (hit(spec.errorRate)) {
        p.error = spec.errorStatus ?? this.rng.pick([500, 502, 503, 504]);
      }
      if (spec.latencyMs !== undefined && spec.latencyMs > 0 && hit(spec.latencyRate ?? 1)) {
        p.latencyMs += spec.latencyMs;
      }
      if (hit(spec.slowBodyRate)) {
        p.slowBody = {
          chunkBytes: spec.slowBodyChunkBytes ?? 64,
          intervalMs: spec.slowBodyIntervalMs ?? 100,
        };
      }
      if (hit(spec.malformedRate)) p.malformed = true;
      if (hit(spec.truncateRate)) p.truncate = true;
      if (hit(spec.oversizeRate)) p.oversize = spec.oversizeBytes ?? 16 * 1024 * 1024;
      if (hit(spec.crossOriginNextRate)) p.crossOriginNext = true;
    }
    return p;
  }
}

/** Names of the faults in a plan, for the request log (`error+latency`), or null. */
export function describePlan(p: FaultPlan): string | null {
  const names: string[] = [];
  if (p.reset) names.push('reset');
  if (p.redirect) names.push('redirect');
  if (p.error !== null) names.push('error');
  if (p.latencyMs > 0) names.push('latency');
  if (p.slowBody !== null) names.push('slow_body');
  if (p.malformed) names.push('malformed');
  if (p.truncate) names.push('truncate');
  if (p.oversize > 0) names.push('oversize');
  if (p.crossOriginNext) names.push('cross_origin_next');
  return names.length === 0 ? null : names.join('+');
}
