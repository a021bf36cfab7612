/**
 * Defaults and validation of {@link SimOptions}. Every problem throws a SimConfigError
 * that names the option, before anything listens.
 */
import { DIALECT_NAMES, DIALECTS, type Dialect } from './dialect.js';
import { FAITHFUL_DIALECT_NAMES, FAITHFUL_DIALECTS } from './dialects/index.js';
import { type Clock, systemClock } from '../core/clock.js';
import { SimConfigError } from './errors.js';
import { normalizeFaults } from './faults.js';
import { PLANS } from './model.js';
import {
  ENVELOPE_STYLES,
  FIELD_CASES,
  type FaultSpec,
  type OrgSpec,
  PAGING_STYLES,
  type Scenario,
  type SimOptions,
  type SimStyle,
  type TokenSpec,
} from './types.js';

/** The largest page a client may ask for. */
export const MAX_PAGE_SIZE = 200;
/** Most channels one org may have. */
export const MAX_CHANNELS = 5000;
/** Most sessions the world may start with. */
export const MAX_SESSIONS = 1_000_000;

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

/** An org with every count decided. */
export interface ResolvedOrg {
  slug: string;
  name?: string;
  plan?: OrgSpec['plan'];
  channels: number;
  sessionsPerChannel: number;
  members?: number;
  funding?: 'wallet' | 'byok';
}

/** Options with defaults applied and checked. */
export interface ResolvedOptions {
  dialect: Dialect;
  host: string;
  port: number;
  seed: number;
  orgs: ResolvedOrg[];
  tokens: TokenSpec[];
  rateLimitPerMinute: number;
  speed: number;
  scenario: Scenario;
  frozen: boolean;
  incidents: number;
  hints: boolean;
  style: SimStyle;
  faults: FaultSpec[];
  clock: Clock;
  maxChanges: number;
  maxRequests: number;
}

function int(name: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new SimConfigError(`${name} must be an integer from ${min} to ${max}, got ${String(value)}`);
  }
  return value;
}

function share(name: string, value: number | undefined): number {
  if (value === undefined) return 0;
  if (!Number.isFinite(value) || value < 0 || value > 1) {
    throw new SimConfigError(`${name} must be a number from 0 to 1, got ${String(value)}`);
  }
  return value;
}

function oneOf<T extends string>(name: string, value: T | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (!allowed.includes(value)) {
    throw new SimConfigError(`${name} must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** Checks a style (at start or when changed at runtime) and fills the gaps from `base`. */
export function resolveStyle(partial: Partial<SimStyle>, base: SimStyle): SimStyle {
  return {
    envelope: oneOf('envelope', partial.envelope, ENVELOPE_STYLES, base.envelope),
    paging: oneOf('paging', partial.paging, PAGING_STYLES, base.paging),
    pageSize: int('pageSize', partial.pageSize, base.pageSize, 1, MAX_PAGE_SIZE),
    fieldCase: oneOf('fieldCase', partial.fieldCase, FIELD_CASES, base.fieldCase),
  };
}

/** The default style: the canonical shape of docs/upstream-api.md. */
export const DEFAULT_STYLE: SimStyle = { envelope: 'data', paging: 'link', pageSize: 50, fieldCase: 'snake' };

function resolveOrgs(o: SimOptions, channels: number, sessionsPerChannel: number): ResolvedOrg[] {
  const specs = o.orgs ?? ['demo'];
  if (specs.length === 0) throw new SimConfigError('orgs must name at least one organization');
  const seen = new Set<string>();
  const out: ResolvedOrg[] = [];
  for (const [i, raw] of specs.entries()) {
    const spec: OrgSpec = typeof raw === 'string' ? { slug: raw } : raw;
    const where = `orgs[${i}]`;
    if (!SLUG.test(spec.slug)) {
      throw new SimConfigError(
        `${where}: slug must be lower-case letters, digits and dashes, got ${JSON.stringify(spec.slug)}`,
      );
    }
    if (seen.has(spec.slug)) throw new SimConfigError(`${where}: slug ${spec.slug} appears twice`);
    seen.add(spec.slug);
    if (spec.plan !== undefined) oneOf(`${where}.plan`, spec.plan, PLANS, 'pro');
    if (spec.funding !== undefined) oneOf(`${where}.funding`, spec.funding, ['wallet', 'byok'], 'wallet');
    const org: ResolvedOrg = {
      slug: spec.slug,
      channels: int(`${where}.channels`, spec.channels, channels, 0, MAX_CHANNELS),
      sessionsPerChannel: int(
        `${where}.sessionsPerChannel`,
        spec.sessionsPerChannel,
        sessionsPerChannel,
        0,
        10_000,
      ),
    };
    if (spec.name !== undefined) org.name = spec.name;
    if (spec.plan !== undefined) org.plan = spec.plan;
    if (spec.members !== undefined) org.members = int(`${where}.members`, spec.members, 1, 1, 10_000);
    if (spec.funding !== undefined) org.funding = spec.funding;
    out.push(org);
  }
  const total = out.reduce((n, org) => n + org.channels * org.sessionsPerChannel, 0);
  if (total > MAX_SESSIONS) {
    throw new SimConfigError(
      `the world would start with ${total} sessions; at most ${MAX_SESSIONS} are supported`,
    );
  }
  return out;
}

/** Applies defaults and checks every option. */
export function resolveOptions(o: SimOptions): ResolvedOptions {
  const seed = o.seed ?? 1;
  if (!Number.isSafeInteger(seed)) throw new SimConfigError(`seed must be an integer, got ${String(seed)}`);
  const speed = o.speed ?? 1;
  if (!Number.isFinite(speed) || speed <= 0 || speed > 1_000_000) {
    throw new SimConfigError(`speed must be a number above 0 and at most 1000000, got ${String(speed)}`);
  }
  const channels = int('channels', o.channels, 8, 0, MAX_CHANNELS);
  const sessionsPerChannel = int('sessionsPerChannel', o.sessionsPerChannel, 12, 0, 10_000);
  const orgs = resolveOrgs(o, channels, sessionsPerChannel);
  const host = o.host ?? '127.0.0.1';
  if (host.length === 0) throw new SimConfigError('host must not be empty');
  const dialectName = typeof o.dialect === 'object' ? o.dialect.name : (o.dialect ?? 'default');
  const named = Object.hasOwn(DIALECTS, dialectName)
    ? DIALECTS[dialectName]
    : Object.hasOwn(FAITHFUL_DIALECTS, dialectName)
      ? FAITHFUL_DIALECTS[dialectName]
      : undefined;
  const dialect = typeof o.dialect === 'object' ? o.dialect : named;
  if (dialect === undefined) {
    throw new SimConfigError(
      `dialect must be one of ${[...DIALECT_NAMES, ...FAITHFUL_DIALECT_NAMES].join(', ')}, got ${JSON.stringify(dialectName)}`,
    );
  }
  return {
    dialect,
    host,
    port: int('port', o.port, 0, 0, 65535),
    seed,
    orgs,
    tokens:
      o.tokens === undefined
        ? orgs.map((org) => ({ value: `${org.slug}-token`, org: org.slug, label: 'default' }))
        : [...o.tokens],
    rateLimitPerMinute: int('rateLimitPerMinute', o.rateLimitPerMinute, 300, 1, 1_000_000),
    speed,
    scenario: oneOf<Scenario>('scenario', o.scenario, ['calm', 'lively'], 'calm'),
    frozen: o.frozen ?? false,
    incidents: share('incidents', o.incidents),
    hints: o.hints ?? false,
    style: resolveStyle(
      {
        ...(o.envelope === undefined ? {} : { envelope: o.envelope }),
        ...(o.paging === undefined ? {} : { paging: o.paging }),
        ...(o.pageSize === undefined ? {} : { pageSize: o.pageSize }),
        ...(o.fieldCase === undefined ? {} : { fieldCase: o.fieldCase }),
      },
      resolveStyle(dialect.style, DEFAULT_STYLE),
    ),
    faults: normalizeFaults(o.faults ?? []),
    clock: o.clock ?? systemClock,
    maxChanges: int('maxChanges', o.maxChanges, 500_000, 100, 100_000_000),
    maxRequests: int('maxRequests', o.maxRequests, 100_000, 100, 100_000_000),
  };
}
