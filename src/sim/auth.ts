/**
 * API tokens as the seed describes them: a label, a validity of 30, 90, 365 days or
 * unlimited counted from creation, access `read`, and at most 5 active per org.
 */
import { SimConfigError, SimRequestError } from './errors.js';
import type { SimToken, TokenSpec, TokenValidity } from './types.js';

/** Most tokens one org may have active at once. */
export const MAX_ACTIVE_TOKENS = 5;

const VALIDITIES: readonly TokenValidity[] = [30, 90, 365, 'unlimited'];
const DAY = 24 * 60 * 60 * 1000;

function parseCreatedAt(where: string, raw: number | string | undefined, now: number): number {
  if (raw === undefined) return now;
  const ms = typeof raw === 'number' ? raw : Date.parse(raw);
  if (!Number.isFinite(ms))
    throw new SimConfigError(`${where}.createdAt is not a valid time: ${JSON.stringify(raw)}`);
  return ms;
}

/** Whether a token is valid at `now`. */
export function isActive(t: SimToken, now: number): boolean {
  return now >= t.createdAt && (t.expiresAt === null || now < t.expiresAt);
}

/**
 * Checks configured tokens: known org, a usable value, unique values, a known validity,
 * and no org with more than {@link MAX_ACTIVE_TOKENS} active at `now`.
 */
export function buildTokens(specs: readonly TokenSpec[], orgs: ReadonlySet<string>, now: number): SimToken[] {
  const seen = new Set<string>();
  const tokens = specs.map((spec, i): SimToken => {
    const where = `tokens[${i}]`;
    if (typeof spec.value !== 'string' || !/^[\x21-\x7e]{1,512}$/.test(spec.value)) {
      throw new SimConfigError(`${where}.value must be 1 to 512 visible ASCII characters without spaces`);
    }
    if (seen.has(spec.value)) throw new SimConfigError(`${where}.value is configured twice`);
    seen.add(spec.value);
    if (!orgs.has(spec.org)) {
      throw new SimConfigError(`${where}.org ${JSON.stringify(spec.org)} is not one of the simulated orgs`);
    }
    const validity = spec.validity ?? 'unlimited';
    if (!VALIDITIES.includes(validity)) {
      throw new SimConfigError(
        `${where}.validity must be one of 30, 90, 365, 'unlimited', got ${String(validity)}`,
      );
    }
    const createdAt = parseCreatedAt(where, spec.createdAt, now);
    return {
      value: spec.value,
      org: spec.org,
      label: spec.label ?? `token-${i + 1}`,
      validity,
      access: 'read',
      createdAt,
      expiresAt: validity === 'unlimited' ? null : createdAt + validity * DAY,
    };
  });
  const active = new Map<string, string[]>();
  for (const t of tokens) {
    if (!isActive(t, now)) continue;
    const labels = active.get(t.org) ?? [];
    labels.push(t.label);
    active.set(t.org, labels);
    if (labels.length > MAX_ACTIVE_TOKENS) {
      throw new SimConfigError(
        `org ${t.org} would have ${labels.length} active tokens (${labels.join(', ')}); at most ${MAX_ACTIVE_TOKENS} may be active at once`,
      );
    }
  }
  return tokens;
}

/** The tokens, looked up by value. */
export class TokenRegistry {
  private readonly byValue: Map<string, SimToken>;

  constructor(readonly tokens: readonly SimToken[]) {
    this.byValue = new Map(tokens.map((t) => [t.value, t]));
  }

  /**
   * The token an Authorization header carries, valid at `now`; throws 401 when it is
   * missing, malformed, unknown or expired. Which org it may read is checked by the caller.
   */
  authenticate(header: string | undefined, now: number): SimToken {
    if (header === undefined || header.trim() === '') {
      throw new SimRequestError(
        401,
        'unauthorized',
        'missing Authorization header; send "Authorization: Bearer <token>"',
      );
    }
    const m = /^Bearer +([\x21-\x7e]+) *$/i.exec(header);
    if (m === null) {
      throw new SimRequestError(
        401,
        'unauthorized',
        'malformed Authorization header; expected "Bearer <token>"',
      );
    }
    const token = this.byValue.get(m[1]!);
    if (token === undefined) throw new SimRequestError(401, 'unauthorized', 'invalid token');
    if (!isActive(token, now))
      throw new SimRequestError(401, 'token_expired', `token "${token.label}" is no longer valid`);
    return token;
  }
}
