import { describe, expect, it } from 'vitest';
import { describeEvent } from '../../src/snapshot/describe.js';
import {
  DETAIL_CEL_FIELDS,
  DETAIL_EVENT_KINDS,
  DETAIL_GAUGES,
  DETAIL_GROUPS,
  type GroupRows,
  SUB_RESOURCES,
} from '../../src/snapshot/detail-groups.js';
import { before } from '../../src/snapshot/diff-detail.js';
import { diff } from '../../src/snapshot/diff.js';
import { EVENT_KINDS } from '../../src/snapshot/events.js';
import type { OrgSnapshot, SessionDetail } from '../../src/snapshot/model.js';
import { detailOf, MIN, T0, T1, world, snapshotOf } from './fixtures.js';

// A group the model names without its row in the table does not compile: this file is
// type-checked with the sources (`npx tsc -p tsconfig.json --noEmit`).
const { ai: _ai, ...withoutAi } = DETAIL_GROUPS;
// @ts-expect-error the row of `ai` is missing
const _incomplete: GroupRows = withoutAi;
// …nor does a row whose values are another group's.
// @ts-expect-error reactions are not a group of items
const _mixed: GroupRows = { ...DETAIL_GROUPS, reactions: DETAIL_GROUPS.questions };

describe('the detail-group table (docs/architecture.md, "Add a session detail group")', () => {
  it('has a row for every sub-resource, in the order tally reads them', () => {
    expect(SUB_RESOURCES).toEqual(['questions', 'announcements', 'reactions', 'speakers', 'ai']);
  });

  it('gives the event kinds, families and rule fields tally has always had', () => {
    expect(DETAIL_EVENT_KINDS).toEqual([
      'session.question_added',
      'session.announcement_added',
      'session.reactions_changed',
      'session.speaker_joined',
      'session.speaker_left',
      'session.ai_status_changed',
    ]);
    for (const kind of DETAIL_EVENT_KINDS) expect(EVENT_KINDS).toContain(kind);
    expect(DETAIL_GAUGES.map((g) => g.name).sort()).toEqual([
      'tally_session_announcements',
      'tally_session_questions',
      'tally_session_reactions',
      'tally_session_speakers',
    ]);
    expect(DETAIL_CEL_FIELDS).toEqual({
      questions: 'int',
      announcements: 'int',
      reactions: 'int',
      reactions_by_kind: 'map<string,int>',
      speakers: 'int',
      ai_status: 'string',
      ai_enabled: 'bool',
    });
  });

  it("describes each group's events by its row", () => {
    const event = (kind: (typeof DETAIL_EVENT_KINDS)[number], to: string) =>
      describeEvent({
        id: 'x',
        at: T1,
        org: 'acme',
        kind,
        entity: { kind: 'session', id: 's3' },
        to,
        labels: { session: 'Morning' },
      });
    expect(event('session.question_added', 'Why?')).toBe('question in Morning: Why?');
    expect(event('session.announcement_added', 'Break')).toBe('announcement in Morning: Break');
    expect(event('session.speaker_joined', 'Ada')).toBe('speaker Ada joined Morning');
  });

  it('reads the gauges and rule fields of a group only where the detail read it', () => {
    const d: SessionDetail = { ...detailOf(world(), 's3'), unread: ['questions', 'ai'] };
    const gauge = (name: string) => DETAIL_GAUGES.find((g) => g.name === name)!.read(d);
    expect(gauge('tally_session_questions')).toBeUndefined();
    expect(gauge('tally_session_speakers')).toBe(d.speakers.count);
  });
});

describe('before(): what a session tally watched start showed before it', () => {
  /** A detail whose every group holds something, dated `at` where it can be. */
  function full(at: number): SessionDetail {
    const item = (id: string) => ({ id, text: id, at });
    return {
      ...detailOf(world(), 's3'),
      questions: { count: 1, items: [item('q9')] },
      announcements: { count: 1, items: [item('a9')] },
      reactions: { count: 7, byKind: { clap: 7 } },
      speakers: { count: 1, items: [item('sp9')] },
      ai: { status: 'active', enabled: true },
    };
  }

  function firstRead(d: SessionDetail, since: number) {
    const w = world();
    const prev: OrgSnapshot = snapshotOf(w, T0);
    delete prev.details['s3'];
    w.details['s3'] = d;
    return diff(prev, snapshotOf(w, T1), { firstDetails: new Map([['s3', since]]) });
  }

  it('keeps every group of the table as it was before `since`, so nothing older is news', () => {
    const d = full(T0 - MIN);
    for (const name of SUB_RESOURCES) expect(before(d, T0)[name]).toEqual(d[name]);
    expect(firstRead(d, T0)).toEqual([]);
  });

  it('leaves out the items dated since, which its first detail reports as news', () => {
    expect(firstRead(full(T0 + MIN), T0).map((e) => e.kind)).toEqual([
      'session.question_added',
      'session.announcement_added',
      'session.speaker_joined',
    ]);
  });
});
