/**
 * Blindness is loud (docs/upstream-shapes.md, "Blindness is loud"): a field a decision
 * depends on that cannot be read on most records of a list is drift (reason `blind`), a
 * degraded state until a list reads it again, and a session without times is never in the
 * window.
 */
import { describe, expect, it } from 'vitest';
import { DriftBoard } from '../../src/app/drift-events.js';
import { inWindow, outsideWindow, windowUnknown } from '../../src/snapshot/diff-window.js';
import { blindSpots } from '../../src/upstream/shape/blindness.js';
import { driftReason } from '../../src/upstream/shape/drift.js';
import type { DriftIssue } from '../../src/upstream/shape/index.js';
import { json, loopbackSuite } from './loopback.js';

const { serve, client } = loopbackSuite();
const ACME = { slug: 'acme', token: 'tok-blind-01' };
const window = { from: Date.parse('2030-01-01T00:00:00Z'), to: Date.parse('2030-01-02T00:00:00Z') };

describe('a session without times', () => {
  const timeless = { id: 's1', channelId: 'c1', status: 'scheduled' };
  it('is never in the window, nor dropped as outside it', () => {
    expect(windowUnknown(timeless)).toBe(true);
    expect(inWindow(timeless, window)).toBe(false);
    expect(outsideWindow(timeless, window)).toBe(false);
  });

  it('a live one is: live is now', () => {
    const live = { ...timeless, status: 'live' };
    expect(windowUnknown(live)).toBe(false);
    expect(inWindow(live, window)).toBe(true);
  });
});

describe('blindSpots', () => {
  const timed = { id: 'a', status: 'scheduled', scheduledAt: window.from + 1 };
  const timeless = { id: 'b', status: 'scheduled' };

  it('a field unreadable on more than half the records is blind', () => {
    const { blind, seen } = blindSpots('sessions', [timed, timeless, { ...timeless, id: 'c' }]);
    expect(blind.map((i) => i.field)).toEqual(['session.times']);
    expect(blind.map((i) => driftReason(i))).toEqual(['blind']);
    expect(seen).toEqual(['session.status']);
  });

  it('half or fewer is seen, and an empty list says nothing', () => {
    expect(blindSpots('sessions', [timed, timeless]).blind).toEqual([]);
    expect(blindSpots('sessions', [])).toEqual({ blind: [], seen: [] });
  });

  it('channels whose status cannot be read', () => {
    const { blind } = blindSpots('channels', [{ id: 'c1', status: 'unknown' }]);
    expect(blind).toEqual([
      expect.objectContaining({ endpoint: 'channels', field: 'channel.status', fatal: false }),
    ]);
  });
});

describe('the degraded state', () => {
  const issue = (list: string): DriftIssue & { org: string } => ({
    org: 'acme',
    endpoint: 'sessions',
    field: 'session.times',
    problem: blindSpots('sessions', [{ id: 'x', status: 'scheduled' }]).blind[0]!.problem,
    fatal: false,
    list,
  });

  it('lasts while some list is blind, and ends when each reads the field again', () => {
    const board = new DriftBoard();
    board.add(issue('channels/c1/sessions'), 1000);
    board.add(issue('channels/c2/sessions'), 2000);
    expect(board.degraded('acme')).toEqual([
      expect.objectContaining({ endpoint: 'sessions', field: 'session.times', since: 1000, lists: 2 }),
    ]);
    board.sight({ org: 'acme', endpoint: 'sessions', field: 'session.times', list: 'channels/c1/sessions' });
    expect(board.degraded('acme')).toMatchObject([{ lists: 1, since: 2000 }]);
    board.sight({ org: 'acme', endpoint: 'sessions', field: 'session.times', list: 'channels/c2/sessions' });
    expect(board.degraded('acme')).toEqual([]);
    // The drift itself stays on the board as history.
    expect(board.of('acme').map((d) => d.reason)).toEqual(['blind']);
  });
});

describe('the client reports blindness', () => {
  it('a session list whose times have names tally cannot read: drift and no session in the window', async () => {
    const s = await serve((_req, res) =>
      json(res, 200, {
        data: [
          { id: 's1', status: 'scheduled', kickoff: '2030-01-01T10:00:00Z' },
          { id: 's2', status: 'scheduled', kickoff: '2030-01-01T11:00:00Z' },
        ],
      }),
    );
    const drift: DriftIssue[] = [];
    const sights: string[] = [];
    const c = client(s.origin, {
      observer: { onDrift: (i) => drift.push(i), onSight: (e) => sights.push(`${e.list} ${e.field}`) },
    });
    const part = await c.fetchSessions(ACME, 'c1', { window });
    expect(part.state).toBe('complete');
    expect(drift).toContainEqual(
      expect.objectContaining({ endpoint: 'sessions', field: 'session.times', list: 'channels/c1/sessions' }),
    );
    expect(sights).toEqual(['channels/c1/sessions session.status']);
    if (part.state === 'failed') throw new Error('failed');
    const sessions = [...part.value];
    expect(sessions).toHaveLength(2);
    expect(sessions.filter((x) => inWindow(x, window))).toEqual([]);
  });
});
