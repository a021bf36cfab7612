import { describe, expect, it } from 'vitest';
import { liveNote, nextCell, plannedRange } from '../../src/http/status-page/schedule.js';
import type { Session } from '../../src/snapshot/model.js';

const T = Date.UTC(2026, 2, 2, 10, 0);
const MIN = 60_000;
const next: Session = {
  id: 's1',
  channelId: 'c1',
  title: 'Morning Drive',
  status: 'scheduled',
  scheduledAt: T,
  scheduledEndAt: T + 60 * MIN,
};

describe('status page: sessions against their plan', () => {
  it('shows the planned range', () => {
    expect(plannedRange(next)).toBe('10:00–11:00');
    expect(plannedRange({ scheduledAt: T })).toBe('10:00');
  });

  it('an upcoming session is next, with its planned range', () => {
    const cell = nextCell(next, T - MIN, T - 10 * MIN);
    expect(cell).toContain('next: <bdi>Morning Drive</bdi>');
    expect(cell).toContain('planned 10:00–11:00 UTC');
  });

  it('says a session did not start only from a read after start + grace', () => {
    expect(nextCell(next, T + 6 * MIN, T + 7 * MIN)).toContain('did not start');
  });

  it('says "cannot tell" while the last read is older than start + grace', () => {
    const cell = nextCell(next, T + 2 * MIN, T + 30 * MIN);
    expect(cell).toContain('cannot tell');
    expect(cell).not.toContain('did not start');
    expect(nextCell(next, undefined, T + 30 * MIN)).toContain('cannot tell');
  });

  it('a live session shows its planned end, and says so once it is past', () => {
    const live = { ...next, status: 'live', startedAt: T };
    expect(liveNote(live, T + 30 * MIN)).toContain('until 11:00 UTC');
    expect(liveNote(live, T + 75 * MIN)).toContain('past its planned end');
    const { scheduledEndAt: _end, ...unplanned } = live;
    expect(liveNote(unplanned, T + 75 * MIN)).toBe('');
  });
});
