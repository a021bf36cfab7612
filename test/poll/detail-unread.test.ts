import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import { OrgPoller } from '../../src/poll/org-poller.js';
import { diff } from '../../src/snapshot/diff.js';
import { emptySnapshot, type Part, type SessionDetail } from '../../src/snapshot/model.js';
import type { Fetcher } from '../../src/upstream/types.js';
import { ManualClock } from '../helpers/clock.js';

const question = (n: number) => ({ id: `q${n}`, text: `Question ${n}` });
const detail = (questions: number): SessionDetail => ({
  id: 's1',
  questions: { count: questions, items: Array.from({ length: questions }, (_, i) => question(i + 1)) },
  announcements: { count: 0, items: [] },
  reactions: { count: 3, byKind: { clap: 3 } },
  speakers: { count: 0, items: [] },
  ai: {},
});
const unreadQuestions = (): SessionDetail => ({ ...detail(0), unread: ['questions'] });

describe('OrgPoller: a sub-resource the detail could not read (docs/upstream-shapes.md, "Session detail")', () => {
  it('keeps its last known value, and the read that finds it again reports what came in between', async () => {
    const clock = new ManualClock();
    const answers = [detail(2), unreadQuestions(), detail(4)];
    const fetcher = {
      fetchChannels: async () => ({
        state: 'complete',
        at: clock.now(),
        value: [{ id: 'c1', name: 'Main', status: 'live' }],
      }),
      fetchSessions: async () => ({
        state: 'complete',
        at: clock.now(),
        value: [{ id: 's1', channelId: 'c1', status: 'live', startedAt: clock.now() - 60_000 }],
        window: { from: clock.now() - 86_400_000, to: clock.now() + 86_400_000 },
      }),
      fetchSessionDetail: async (): Promise<Part<SessionDetail>> => ({
        state: 'complete',
        at: clock.now(),
        value: answers.shift()!,
      }),
    } as unknown as Fetcher;
    const events: string[] = [];
    const p = new OrgPoller({ slug: 'demo', token: 't' }, undefined, emptySnapshot('demo', clock.now()), {
      fetcher,
      clock,
      logger: silentLogger(),
      diff: (a, b, o) => diff(a, b, o),
      window: { past: 86_400_000, future: 86_400_000 },
      onUpdate: (_s, found) => events.push(...found.map((e) => `${e.kind} ${e.to}`)),
      perPage: 100,
      signal: new AbortController().signal,
    });
    const signal = new AbortController().signal;
    const questionsNow = () => {
      const part = p.snapshot().details['s1'];
      return part?.state === 'complete' ? [part.value.questions.count, part.value.unread] : undefined;
    };
    await p.refresh('channels', signal);
    await p.readSessions('c1', 'high', signal);
    await p.readDetail('s1', 'high', signal);
    expect(questionsNow()).toEqual([2, undefined]);
    clock.advance(10_000);
    await p.readDetail('s1', 'high', signal);
    // Unknown this time: the last known questions stay, and nothing is reported.
    expect(questionsNow()).toEqual([2, undefined]);
    expect(events).toEqual([]);
    clock.advance(10_000);
    await p.readDetail('s1', 'high', signal);
    expect(questionsNow()).toEqual([4, undefined]);
    expect(events).toEqual(['session.question_added Question 3', 'session.question_added Question 4']);
  });
});
