/**
 * One client spec per faithful dialect (faithful-harness.ts), each after the convention's
 * own documentation as cited at the top of src/sim/dialects/<name>.ts.
 */
import { expect } from 'vitest';
import { type DialectSpec, type Loose, replaced } from './faithful-harness.js';

const stripe: DialectSpec = {
  name: 'stripe',
  items: (b) => {
    expect(b.object).toBe('list');
    return b.data;
  },
  next: (_res, b, cur) => (b.has_more ? replaced(cur, { starting_after: b.data.at(-1).id }) : null),
  small: { limit: '3' },
  live: { status: 'in_progress' },
  badFilter: { status: 'broadcasting' },
  refused: (status, b) => {
    expect(status).toBe(400);
    expect(b.error).toMatchObject({ type: 'invalid_request_error', param: 'status' });
  },
  notFound: (status, b) => {
    expect(status).toBe(404);
    expect(b.error.code).toBe('resource_missing');
  },
  tooMany: (status, b) => {
    expect(status).toBe(429);
    expect(b.error.code).toBe('rate_limit');
  },
  id: (x) => x.id,
  shapes: ({ subscription, channel, session, detail }) => {
    expect(subscription.ai_funding.type).toBe('wallet');
    expect(Number.isInteger(subscription.ai_funding.wallet.balance)).toBe(true);
    expect(subscription.ai_funding.wallet.currency).toMatch(/^[a-z]{3}$/);
    expect(['on_air', 'ready', 'inactive']).toContain(channel.status);
    expect(typeof session.scheduled_for).toBe('number');
    expect(detail.questions.object).toBe('list');
    expect(detail.questions.url).toMatch(/\/questions$/);
  },
};

/** Every spec, by dialect name. */
export const SPECS: readonly DialectSpec[] = [stripe];

export type { Loose };
