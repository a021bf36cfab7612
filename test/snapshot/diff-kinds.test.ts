import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { diff } from '../../src/snapshot/diff.js';
import { type ChangeEvent, EVENT_KINDS } from '../../src/snapshot/events.js';
import {
  twoReads,
  detailOf,
  emptyDetail,
  MIN,
  sessionOf,
  snapshotOf,
  T0,
  T1,
  type World,
  world,
} from './fixtures.js';

type Expected = Partial<Omit<ChangeEvent, 'labels'>> & { labels?: Record<string, string> };

interface Row {
  name: string;
  change: (w: World) => void;
  expected: Expected[];
}

const org = { kind: 'org', id: 'acme' } as const;
const sub = { kind: 'subscription', id: 'acme' } as const;
const member = (id: string) => ({ kind: 'member', id }) as const;
const channel = (id: string) => ({ kind: 'channel', id }) as const;
const session = (id: string) => ({ kind: 'session', id }) as const;
const s3Labels = { channel: 'Night', channel_id: 'c2', session: 'Late show', session_id: 's3' };
const s1Labels = { channel: 'Morning Show', channel_id: 'c1', session: 'Daily', session_id: 's1' };

const orgRows: Row[] = [
  {
    name: 'org name',
    change: (w) => {
      w.org.name = 'Acme Inc';
    },
    expected: [{ kind: 'org.changed', entity: org, field: 'name', from: 'Acme', to: 'Acme Inc', labels: {} }],
  },
  {
    name: 'org plan',
    change: (w) => {
      w.org.plan = 'enterprise';
    },
    expected: [{ kind: 'org.changed', entity: org, field: 'plan', from: 'pro', to: 'enterprise' }],
  },
  {
    name: 'settings: one changed, one added, one gone (in key order)',
    change: (w) => {
      w.org.settings = { locale: 'de', 'notifications.sms': false };
    },
    expected: [
      { kind: 'org.changed', field: 'settings.locale', from: 'en', to: 'de' },
      { kind: 'org.changed', field: 'settings.notifications.email', from: true, to: null },
      { kind: 'org.changed', field: 'settings.notifications.sms', from: null, to: false },
    ],
  },
];

const teamRows: Row[] = [
  {
    name: 'member added',
    change: (w) => {
      w.team.push({ id: 'm3', name: 'Cy', role: 'viewer' });
    },
    expected: [
      {
        kind: 'member.added',
        entity: member('m3'),
        to: 'viewer',
        labels: { member: 'Cy', member_id: 'm3', role: 'viewer' },
      },
    ],
  },
  {
    name: 'member removed',
    change: (w) => {
      w.team = w.team.filter((m) => m.id !== 'm2');
    },
    expected: [{ kind: 'member.removed', entity: member('m2'), from: 'member', labels: { member: 'Bob' } }],
  },
  {
    name: 'member role',
    change: (w) => {
      w.team[1]!.role = 'admin';
    },
    expected: [
      {
        kind: 'member.role_changed',
        entity: member('m2'),
        field: 'role',
        from: 'member',
        to: 'admin',
        labels: { member: 'Bob', member_id: 'm2', role: 'admin' },
      },
    ],
  },
  {
    name: 'member name and email',
    change: (w) => {
      w.team[0]!.name = 'Ada L.';
      delete w.team[0]!.email;
    },
    expected: [
      { kind: 'member.changed', field: 'name', from: 'Ada', to: 'Ada L.', labels: { member: 'Ada L.' } },
      { kind: 'member.changed', field: 'email', from: 'ada@acme.test', to: null },
    ],
  },
];

const subscriptionRows: Row[] = [
  {
    name: 'subscription plan',
    change: (w) => {
      w.subscription.plan = 'team';
    },
    expected: [
      {
        kind: 'subscription.plan_changed',
        entity: sub,
        field: 'plan',
        from: 'pro',
        to: 'team',
        labels: { plan: 'team' },
      },
    ],
  },
  {
    name: 'limits: one changed, one became unlimited, one appeared',
    change: (w) => {
      w.subscription.limits = { channels: 20, ai_minutes: 600 };
    },
    expected: [
      { kind: 'subscription.limit_changed', field: 'limits.ai_minutes', from: null, to: 600 },
      {
        kind: 'subscription.limit_changed',
        field: 'limits.channels',
        from: 10,
        to: 20,
        labels: { plan: 'pro', limit: 'channels' },
      },
      { kind: 'subscription.limit_changed', field: 'limits.members', from: 5, to: null },
    ],
  },
  {
    name: 'usage',
    change: (w) => {
      w.subscription.usage['channels'] = 3;
    },
    expected: [{ kind: 'subscription.usage_changed', entity: sub, field: 'usage.channels', from: 2, to: 3 }],
  },
  {
    name: 'funding mode wallet → byok (details of different modes are not compared)',
    change: (w) => {
      w.subscription.funding = { mode: 'byok', provider: 'openai', keyStatus: 'valid' };
    },
    expected: [{ kind: 'subscription.funding_changed', field: 'mode', from: 'wallet', to: 'byok' }],
  },
  {
    name: 'funding mode to an unknown one, named verbatim',
    change: (w) => {
      w.subscription.funding = { mode: 'unknown', raw: 'sponsored' };
    },
    expected: [{ kind: 'subscription.funding_changed', field: 'mode', from: 'wallet', to: 'sponsored' }],
  },
  {
    name: 'wallet currency',
    change: (w) => {
      w.subscription.funding = { mode: 'wallet', balance: 12.5, currency: 'USD' };
    },
    expected: [{ kind: 'subscription.funding_changed', field: 'wallet.currency', from: 'EUR', to: 'USD' }],
  },
  {
    name: 'wallet balance',
    change: (w) => {
      w.subscription.funding = { mode: 'wallet', balance: 3.25, currency: 'EUR' };
    },
    expected: [
      {
        kind: 'wallet.balance_changed',
        entity: sub,
        field: 'balance',
        from: 12.5,
        to: 3.25,
        labels: { plan: 'pro', currency: 'EUR' },
      },
    ],
  },
];

const channelRows: Row[] = [
  {
    name: 'channel added',
    change: (w) => {
      w.channels.push({ id: 'c3', name: 'Jazz', status: 'offline' });
    },
    expected: [
      {
        kind: 'channel.added',
        entity: channel('c3'),
        to: 'offline',
        labels: { channel: 'Jazz', channel_id: 'c3' },
      },
    ],
  },
  {
    name: 'channel removed (its name still labels the event)',
    change: (w) => {
      w.channels = w.channels.filter((c) => c.id !== 'c1');
    },
    expected: [
      {
        kind: 'channel.removed',
        entity: channel('c1'),
        from: 'offline',
        labels: { channel: 'Morning Show', channel_id: 'c1' },
      },
    ],
  },
  {
    name: 'channel status, visibility and name',
    change: (w) => {
      w.channels[0] = { id: 'c1', name: 'Mornings', status: 'live', visibility: 'private' };
    },
    expected: [
      { kind: 'channel.status_changed', field: 'status', from: 'offline', to: 'live' },
      { kind: 'channel.visibility_changed', field: 'visibility', from: 'public', to: 'private' },
      {
        kind: 'channel.renamed',
        field: 'name',
        from: 'Morning Show',
        to: 'Mornings',
        labels: { channel: 'Mornings', channel_id: 'c1' },
      },
    ],
  },
  {
    name: 'channel without a name is labelled by its id',
    change: (w) => {
      w.channels.push({ id: 'c9', status: 'idle' });
    },
    expected: [{ kind: 'channel.added', labels: { channel: 'c9', channel_id: 'c9' } }],
  },
];

const sessionRows: Row[] = [
  {
    name: 'session added (scheduled)',
    change: (w) => {
      w.sessions['c1']!.push({
        id: 's4',
        channelId: 'c1',
        title: 'Extra',
        status: 'scheduled',
        scheduledAt: T1,
      });
    },
    expected: [
      {
        kind: 'session.added',
        entity: session('s4'),
        to: 'scheduled',
        at: T1,
        labels: { channel: 'Morning Show', channel_id: 'c1', session: 'Extra', session_id: 's4' },
      },
    ],
  },
  {
    name: 'session added already live also started',
    change: (w) => {
      w.sessions['c1']!.push({ id: 's4', channelId: 'c1', status: 'on_air', startedAt: T1 - MIN });
    },
    expected: [
      { kind: 'session.added', to: 'on_air', labels: { session: 's4' } },
      { kind: 'session.started', field: 'status', from: null, to: 'on_air' },
    ],
  },
  {
    name: 'session added already over: added, started and ended',
    change: (w) => {
      w.sessions['c1']!.push({
        id: 's4',
        channelId: 'c1',
        status: 'completed',
        startedAt: T0,
        endedAt: T1 - MIN,
      });
    },
    expected: [
      { kind: 'session.added', to: 'completed' },
      { kind: 'session.started', to: 'completed' },
      { kind: 'session.ended', to: 'completed' },
    ],
  },
  {
    name: 'session removed while inside both windows',
    change: (w) => {
      w.sessions['c1'] = w.sessions['c1']!.filter((s) => s.id !== 's1');
    },
    expected: [{ kind: 'session.removed', entity: session('s1'), from: 'scheduled', labels: s1Labels }],
  },
  {
    name: 'session status to an unknown value: no started/ended',
    change: (w) => {
      sessionOf(w, 's1').status = 'warming_up';
    },
    expected: [{ kind: 'session.status_changed', field: 'status', from: 'scheduled', to: 'warming_up' }],
  },
  {
    name: 'session went live',
    change: (w) => {
      Object.assign(sessionOf(w, 's1'), { status: 'live', startedAt: T1 - 1000 });
    },
    expected: [
      { kind: 'session.status_changed', from: 'scheduled', to: 'live', labels: s1Labels },
      { kind: 'session.started', field: 'status', from: 'scheduled', to: 'live', labels: s1Labels },
    ],
  },
  {
    name: 'session start time appeared under an unknown status',
    change: (w) => {
      sessionOf(w, 's1').startedAt = T1 - 1000;
    },
    expected: [{ kind: 'session.started', from: 'scheduled', to: 'scheduled' }],
  },
  {
    name: 'session ended',
    change: (w) => {
      Object.assign(sessionOf(w, 's3'), { status: 'finished', endedAt: T1 - 1000 });
    },
    expected: [
      { kind: 'session.status_changed', from: 'live', to: 'finished' },
      { kind: 'session.ended', entity: session('s3'), field: 'status', from: 'live', to: 'finished' },
    ],
  },
  {
    name: 'session failed counts as ended',
    change: (w) => {
      sessionOf(w, 's3').status = 'failed';
    },
    expected: [
      { kind: 'session.status_changed', to: 'failed' },
      { kind: 'session.ended', to: 'failed' },
    ],
  },
  {
    name: 'session end time appeared under an unknown status',
    change: (w) => {
      Object.assign(sessionOf(w, 's3'), { status: 'archiving', endedAt: T1 - 1000 });
    },
    expected: [
      { kind: 'session.status_changed', from: 'live', to: 'archiving' },
      { kind: 'session.ended', to: 'archiving' },
    ],
  },
  {
    name: 'session started and ended between two reads',
    change: (w) => {
      Object.assign(sessionOf(w, 's1'), { status: 'done', startedAt: T0 + MIN, endedAt: T0 + 2 * MIN });
    },
    expected: [
      { kind: 'session.status_changed', from: 'scheduled', to: 'done' },
      { kind: 'session.started', to: 'done' },
      { kind: 'session.ended', to: 'done' },
    ],
  },
  {
    name: 'session renamed',
    change: (w) => {
      sessionOf(w, 's1').title = 'Daily news';
    },
    expected: [
      {
        kind: 'session.renamed',
        field: 'title',
        from: 'Daily',
        to: 'Daily news',
        labels: { session: 'Daily news', session_id: 's1' },
      },
    ],
  },
  {
    name: 'session rescheduled',
    change: (w) => {
      sessionOf(w, 's1').scheduledAt = T0 + 40 * MIN;
    },
    expected: [
      {
        kind: 'session.rescheduled',
        field: 'scheduled_at',
        from: T0 + 10 * MIN,
        to: T0 + 40 * MIN,
        labels: s1Labels,
      },
    ],
  },
];

const detailRows: Row[] = [
  {
    name: 'questions added, one event each, in the order listed',
    change: (w) => {
      detailOf(w, 's3').questions = {
        count: 3,
        items: [
          { id: 'q1', text: 'Hello?' },
          { id: 'q3', text: 'Third' },
          { id: 'q2', text: 'Second' },
        ],
      };
    },
    expected: [
      {
        kind: 'session.question_added',
        entity: session('s3'),
        field: 'questions',
        to: 'Third',
        labels: { ...s3Labels, question_id: 'q3' },
      },
      { kind: 'session.question_added', to: 'Second', labels: { question_id: 'q2' } },
    ],
  },
  {
    name: 'announcement added',
    change: (w) => {
      detailOf(w, 's3').announcements = { count: 1, items: [{ id: 'a1', text: 'Back in 5' }] };
    },
    expected: [
      {
        kind: 'session.announcement_added',
        field: 'announcements',
        to: 'Back in 5',
        labels: { ...s3Labels, announcement_id: 'a1' },
      },
    ],
  },
  {
    name: 'reactions',
    change: (w) => {
      detailOf(w, 's3').reactions = { count: 7, byKind: { clap: 7 } };
    },
    expected: [
      {
        kind: 'session.reactions_changed',
        field: 'reactions',
        from: 10,
        to: 7,
        labels: { ...s3Labels, delta: '-3' },
      },
    ],
  },
  {
    name: 'speakers joined and left',
    change: (w) => {
      detailOf(w, 's3').speakers = { count: 1, items: [{ id: 'sp2', text: 'Guest' }] };
    },
    expected: [
      {
        kind: 'session.speaker_joined',
        to: 'Guest',
        labels: { ...s3Labels, speaker: 'Guest', speaker_id: 'sp2' },
      },
      { kind: 'session.speaker_left', from: 'Host', labels: { speaker: 'Host', speaker_id: 'sp1' } },
    ],
  },
  {
    name: 'ai status and enabled',
    change: (w) => {
      detailOf(w, 's3').ai = { status: 'failed', enabled: false };
    },
    expected: [
      {
        kind: 'session.ai_status_changed',
        field: 'ai.status',
        from: 'running',
        to: 'failed',
        labels: s3Labels,
      },
      { kind: 'session.ai_status_changed', field: 'ai.enabled', from: true, to: false },
    ],
  },
];

const rows = [...orgRows, ...teamRows, ...subscriptionRows, ...channelRows, ...sessionRows, ...detailRows];

describe('diff: every event kind', () => {
  it('finds nothing between two reads of an unchanged org', () => {
    expect(diff(snapshotOf(world(), T0), snapshotOf(world(), T1))).toEqual([]);
  });

  it.each(rows)('$name', ({ change, expected }) => {
    const [prev, next] = twoReads(change);
    const events = diff(prev, next);
    expect(events).toMatchObject(expected.map((e) => ({ at: T1, org: 'acme', ...e })));
  });

  it('reports byok provider and key status changes', () => {
    const w = world();
    w.subscription.funding = { mode: 'byok', provider: 'openai', keyStatus: 'valid' };
    const prev = snapshotOf(w, T0);
    w.subscription.funding = { mode: 'byok', provider: 'anthropic', keyStatus: 'revoked' };
    expect(diff(prev, snapshotOf(w, T1))).toMatchObject([
      { kind: 'subscription.funding_changed', field: 'byok.provider', from: 'openai', to: 'anthropic' },
      { kind: 'subscription.funding_changed', field: 'byok.key_status', from: 'valid', to: 'revoked' },
    ]);
  });

  it('labels detail events of a session without a list entry from the detail itself', () => {
    const w = world();
    w.details['s9'] = { ...emptyDetail('s9', 'c1'), title: 'Side room' };
    const prev = snapshotOf(w, T0);
    w.details['s9'].reactions = { count: 2, byKind: {} };
    expect(diff(prev, snapshotOf(w, T1))).toMatchObject([
      {
        kind: 'session.reactions_changed',
        labels: {
          channel: 'Morning Show',
          channel_id: 'c1',
          session: 'Side room',
          session_id: 's9',
          delta: '+2',
        },
      },
    ]);
  });

  it('covers every kind diff can produce', () => {
    const produced = new Set<string>();
    for (const { change } of rows) for (const e of diff(...twoReads(change))) produced.add(e.kind);
    // upstream.* come from health, *.added_bulk from the poller's addition check (src/poll/additions.ts).
    const diffKinds = EVENT_KINDS.filter((k) => !k.startsWith('upstream.') && !k.endsWith('.added_bulk'));
    expect([...produced].sort()).toEqual([...diffKinds].sort());
  });

  it('docs/events.md describes every kind', async () => {
    const doc = await readFile(new URL('../../docs/events.md', import.meta.url), 'utf8');
    for (const kind of EVENT_KINDS) expect(doc).toContain(`\`${kind}\``);
  });

  it('carries only string labels', () => {
    for (const { change } of rows) {
      for (const e of diff(...twoReads(change))) {
        for (const v of Object.values(e.labels)) expect(typeof v).toBe('string');
      }
    }
  });
});
