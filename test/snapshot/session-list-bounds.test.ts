// A file of its own: the status vocabulary is one per process (module), and this fills it.
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/snapshot/model.js';
import { idAt, SessionList, statusAt } from '../../src/snapshot/session-list.js';

describe('SessionList past its compact bounds', () => {
  it('holds a list whose ids and titles run past 65 535 characters', () => {
    const sessions: Session[] = Array.from({ length: 120 }, (_, i) => ({
      id: `${'i'.repeat(700)}${i}`,
      channelId: 'c1',
      status: 'ended',
      ...(i % 3 === 0 ? {} : { title: `${'t'.repeat(800)}${i}` }),
    }));
    const list = SessionList.of(sessions);
    expect(list.toArray()).toStrictEqual(sessions);
    expect(idAt(list, 119)).toBe(sessions[119]!.id);
  });

  it('keeps every status word of a list once the vocabulary is full', () => {
    // Far more distinct words than the vocabulary keeps (0x7fff).
    const words = Array.from({ length: 0x8000 + 10 }, (_, i) => `state-${i}`);
    const first = SessionList.of(
      words.slice(0, 0x8000).map((w, i) => ({ id: `s${i}`, channelId: 'c1', status: w })),
    );
    const sessions: Session[] = words.slice(0x7ff0).map((w, i) => ({
      id: `late${i}`,
      channelId: 'c1',
      status: w,
      title: `late show ${i}`,
    }));
    const late = SessionList.of(sessions);
    expect(late.toArray()).toStrictEqual(sessions);
    expect(statusAt(late, sessions.length - 1)).toBe(words.at(-1));
    expect(statusAt(first, 0x7ffe)).toBe('state-32766');
    expect(statusAt(first, 0x7fff)).toBe('state-32767');
  });
});
