/**
 * Objects inside a record read as parts of it (docs/upstream-shapes.md, "Fields"): an
 * object without an id of its own (`snippet`, `time_range`, `start: { dateTime }`) holds
 * the record's own fields under words its name adds to; an object with an id is another
 * thing (`host: { id, name }`), read only under a name the field knows. Each body follows a
 * public API's documented resource, cited beside it.
 */
import { describe, expect, it } from 'vitest';
import { normalizeOrg, normalizeSession } from '../../../src/upstream/shape/index.js';

const T = Date.UTC(2026, 10, 29, 9);
const iso = (ms: number): string => new Date(ms).toISOString();
const H = 3_600_000;

function read(raw: unknown) {
  const { value, drift } = normalizeSession(raw, 'c1', {});
  return {
    value: value && {
      id: value.id,
      title: value.title,
      status: value.status,
      scheduledAt: value.scheduledAt,
      scheduledEndAt: value.scheduledEndAt,
      startedAt: value.startedAt,
      endedAt: value.endedAt,
    },
    drift: drift.map((d) => `${d.field}: ${d.problem}`),
  };
}

describe('parts of a record, by the resources of public APIs', () => {
  it('a YouTube liveBroadcast: snippet times, status.lifeCycleStatus', () => {
    // https://developers.google.com/youtube/v3/live/docs/liveBroadcasts ("Resource representation")
    const r = read({
      kind: 'youtube#liveBroadcast',
      etag: 'e1',
      id: 'yt1',
      snippet: {
        publishedAt: iso(T - 24 * H),
        channelId: 'UC1',
        title: 'Morning Drive',
        description: 'Daily',
        scheduledStartTime: iso(T),
        scheduledEndTime: iso(T + H),
        actualStartTime: iso(T + 60_000),
        liveChatId: 'chat1',
      },
      status: { lifeCycleStatus: 'live', privacyStatus: 'public', recordingStatus: 'recording' },
    });
    expect(r.value).toEqual({
      id: 'yt1',
      title: 'Morning Drive',
      status: 'live',
      scheduledAt: T,
      scheduledEndAt: T + H,
      startedAt: T + 60_000,
      endedAt: undefined,
    });
  });

  it('a Google Calendar event: start.dateTime / end.dateTime, summary, confirmed', () => {
    // https://developers.google.com/calendar/api/v3/reference/events ("Resource representations")
    const r = read({
      kind: 'calendar#event',
      id: 'ev1',
      status: 'confirmed',
      summary: 'Morning Drive',
      organizer: { email: 'host@example.com', displayName: 'Host' },
      start: { dateTime: iso(T), timeZone: 'UTC' },
      end: { dateTime: iso(T + H), timeZone: 'UTC' },
      created: iso(T - 48 * H),
      updated: iso(T - 24 * H),
    });
    expect(r.value).toMatchObject({
      id: 'ev1',
      title: 'Morning Drive',
      scheduledAt: T,
      scheduledEndAt: T + H,
    });
    expect(r.value?.startedAt).toBeUndefined();
    expect(r.drift).toEqual([]);
  });

  it('an Eventbrite event: name as multipart text, start and end as datetime-tz', () => {
    // https://www.eventbrite.com/developer/v3/response_formats/event/ and
    // https://www.eventbrite.com/developer/v3/response_formats/basic/ ("Datetime with Timezone")
    const r = read({
      id: '123456789',
      name: { text: 'Morning Drive', html: '<p>Morning Drive</p>' },
      start: { timezone: 'Europe/Berlin', utc: iso(T), local: '2026-11-29T10:00:00' },
      end: { timezone: 'Europe/Berlin', utc: iso(T + H), local: '2026-11-29T11:00:00' },
      status: 'started',
      online_event: true,
    });
    expect(r.value).toMatchObject({
      id: '123456789',
      title: 'Morning Drive',
      status: 'started',
      scheduledAt: T,
      scheduledEndAt: T + H,
    });
  });

  it('a Calendly scheduled event: its uri is its id', () => {
    // https://developer.calendly.com/api-docs (Scheduled Event: `uri`, `start_time`, `end_time`)
    const r = read({
      uri: 'https://api.calendly.com/scheduled_events/GBGBDCAADAEDCRZ2',
      name: 'Morning Drive',
      status: 'canceled',
      start_time: iso(T),
      end_time: iso(T + H),
    });
    expect(r.value).toMatchObject({
      id: 'GBGBDCAADAEDCRZ2',
      title: 'Morning Drive',
      status: 'canceled',
      scheduledAt: T,
    });
  });

  it.each([
    ['a time range object', { time_range: { start: iso(T), end: iso(T + H) } }],
    ['a period from / to', { period: { from: iso(T), to: iso(T + H) } }],
    ['a window object', { window: { starts: iso(T), ends: iso(T + H) } }],
  ])('%s is the planned range', (_name, fields) => {
    const r = read({ id: 's1', title: 'T', status: 'scheduled', ...fields });
    expect(r.value).toMatchObject({ scheduledAt: T, scheduledEndAt: T + H });
    expect(r.value?.startedAt).toBeUndefined();
  });
});

describe('another thing inside a record is not a part of it', () => {
  it('a host with an id of its own gives no title', () => {
    const r = read({ id: 's1', status: 'live', host: { id: 'u1', name: 'Alice' }, speaker: { name: 'Bob' } });
    expect(r.value?.title).toBeUndefined();
  });

  it('an object whose name rules the field out: a run time holds no planned start', () => {
    const r = read({ id: 's1', status: 'ended', run_time: { start_time: iso(T), end_time: iso(T + H) } });
    expect(r.value).toMatchObject({ scheduledAt: undefined, startedAt: T, endedAt: T + H });
  });

  it('a lone end read as the actual end of a session over is not its planned end as well', () => {
    // `end_time` with no planned word beside it and no actual start of its own: the end of a session over.
    const r = read({ id: 's1', status: 'ended', end_time: iso(T + H) });
    expect(r.value).toMatchObject({ endedAt: T + H, scheduledEndAt: undefined });
  });

  it('a status object with nothing readable in it is reported as it is', () => {
    const r = read({ id: 's1', status: { code: 7 } });
    expect(r.drift.some((d) => d.startsWith('session.status:') && d.includes('object'))).toBe(true);
    expect(r.value?.status).toBe('unknown');
  });
});

describe('a named thing given as an object is read by its name', () => {
  it.each([
    [{ id: 'o1', display_name: 'Acme', plan: { id: 'p1', name: 'Pro' } }, 'Pro'],
    [{ id: 'o1', display_name: 'Acme', billing: { plan: { name: 'Pro' } } }, 'Pro'],
    [{ id: 'o1', display_name: 'Acme', plan: { id: 'p1', nickname: 'Gold' } }, 'Gold'],
  ])('org plan of %j', (raw, want) => {
    expect(normalizeOrg(raw, 'acme', {}).value.plan).toBe(want);
  });

  it('a title as rendered text (WordPress-style `title: { rendered }`)', () => {
    expect(read({ id: 's1', status: 'live', title: { rendered: 'Hello' } }).value?.title).toBe('Hello');
  });
});

it('a record with a lone id word of its own is not known by its uri (Twilio: sid beside uri)', () => {
  // https://www.twilio.com/docs/voice/api/call-resource (`sid`, `uri` ending in `.json`)
  const r = read({ sid: 'CA1', uri: '/2010-04-01/Accounts/AC1/Calls/CA1.json', status: 'queued' });
  expect(r.value?.id).toBe('CA1');
  const bare = read({ uri: '/2010-04-01/Accounts/AC1/Calls/CA2.json', status: 'queued' });
  expect(bare.value?.id).toBe('CA2');
});
