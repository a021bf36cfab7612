/**
 * Records as widely used APIs write them, read by general rules (src/upstream/shape/json.ts,
 * `flattenResource`; words.ts): an id taken from a resource name or a self link, fields kept
 * in a nested bag, typed property values, custom-field suffixes, string ids named `sid`.
 * The keys and values here are made up, not any one server's.
 */
import { describe, expect, it } from 'vitest';
import { flattenResource, unwrapTyped } from '../../../src/upstream/shape/json.js';
import {
  normalizeChannel,
  normalizeOrg,
  normalizeSession,
  normalizeSessionDetail,
  normalizeSubscription,
} from '../../../src/upstream/shape/index.js';
import { splitWords } from '../../../src/upstream/shape/words.js';

describe('an id from the record address', () => {
  it('takes the last segment of a resource name, and reads the display name as the name', () => {
    const { value } = normalizeChannel(
      { name: 'workspaces/w1/stations/st-9', displayName: 'Morning', state: 'idle' },
      {},
    );
    expect(value).toEqual({ id: 'st-9', name: 'Morning', status: 'idle' });
  });

  it('takes the last segment of a self link, query left out', () => {
    const { value } = normalizeChannel(
      { title: 'Night', status: 'offline', _links: { self: { href: 'https://x.test/api/rooms/42?proj=a' } } },
      {},
    );
    expect(value?.id).toBe('42');
  });

  it('keeps an own id over the address, and a plain name as a name', () => {
    expect(flattenResource({ id: 'a', name: 'groups/g/rooms/b' })['id']).toBe('a');
    expect(flattenResource({ name: 'Plain name', status: 'idle' })).toEqual({
      name: 'Plain name',
      status: 'idle',
    });
  });

  it('reads a string id named `sid` by its words', () => {
    expect(normalizeChannel({ sid: 'QQ0123', state: 'idle', owner_sid: 'US9' }, {}).value?.id).toBe('QQ0123');
  });
});

describe('fields in a nested bag', () => {
  it('reads fields kept under `properties`, numbers as strings', () => {
    const { value } = normalizeSession(
      {
        id: '77',
        properties: {
          title: 'Q&A',
          status: 'scheduled',
          scheduled_at: '2030-01-02T03:04:05Z',
        },
        createdAt: '2029-01-01T00:00:00Z',
      },
      'c1',
      {},
    );
    expect(value).toMatchObject({ id: '77', title: 'Q&A', status: 'scheduled' });
    expect(value?.scheduledAt).toBe(Date.parse('2030-01-02T03:04:05Z'));
  });

  it('leaves a bag that only describes the record (its type and url) as it is', () => {
    const raw = { attributes: { type: 'Thing__c', url: '/x/1' }, Id: '1', Status__c: 'idle' };
    expect(flattenResource(raw)).toBe(raw);
  });

  it('the record own fields win over its bag', () => {
    expect(flattenResource({ id: '1', status: 'live', fields: { status: 'idle', x: 1 } })['status']).toBe(
      'live',
    );
  });
});

describe('typed property values', () => {
  it.each<[string, unknown, unknown]>([
    ['a number', { id: 'a', type: 'number', number: 3 }, 3],
    ['a choice', { type: 'select', select: { name: 'Open', color: 'red' } }, 'Open'],
    ['rich text', { type: 'title', title: [{ plain_text: 'Hel' }, { plain_text: 'lo' }] }, 'Hello'],
    [
      'a date range',
      { type: 'date', date: { start: '2030-01-01', end: null } },
      { start: '2030-01-01', end: null },
    ],
    ['a single reference', { type: 'relation', relation: [{ id: 'r1' }] }, 'r1'],
    ['no type tag', { name: 'x', color: 'y' }, { name: 'x', color: 'y' }],
    ['a tag naming no key', { type: 'checkbox' }, { type: 'checkbox' }],
  ])('%s', (_, raw, want) => {
    expect(unwrapTyped(raw)).toEqual(want);
  });

  it('reads a page of typed properties as a record', () => {
    const { value } = normalizeChannel(
      {
        id: 'p1',
        object: 'page',
        properties: {
          Name: { id: 't', type: 'title', title: [{ plain_text: 'Late' }] },
          State: { id: 's', type: 'select', select: { name: 'Offline' } },
        },
      },
      {},
    );
    expect(value).toEqual({ id: 'p1', name: 'Late', status: 'offline' });
  });
});

describe('custom-field suffixes', () => {
  it('are no word of the key', () => {
    expect(splitWords('Scheduled_Start__c')).toEqual(['scheduled', 'start']);
    expect(splitWords('Channel__r')).toEqual(['channel']);
  });

  it('let the alias table read `Status__c` as `status`', () => {
    expect(normalizeChannel({ Id: 'a1', Status__c: 'idle' }, {}).value).toEqual({ id: 'a1', status: 'idle' });
  });
});

describe('a lone start beside a planned time', () => {
  it('is the planned start of a record that names no planned time', () => {
    const { value } = normalizeSession({ id: 's', startTime: '2030-01-01T00:00:00Z' }, 'c1', {});
    expect(value?.scheduledAt).toBe(Date.parse('2030-01-01T00:00:00Z'));
    expect(value?.startedAt).toBeUndefined();
  });

  it('is the actual start of a record that names one', () => {
    const { value } = normalizeSession(
      { id: 's', scheduleTime: '2030-01-01T00:00:00Z', startTime: '2030-01-01T00:05:00Z' },
      'c1',
      {},
    );
    expect(value?.scheduledAt).toBe(Date.parse('2030-01-01T00:00:00Z'));
    expect(value?.startedAt).toBe(Date.parse('2030-01-01T00:05:00Z'));
  });

  it('reads an "on air" range as the actual run', () => {
    const { value } = normalizeSession(
      {
        id: 's',
        properties: {
          Planned: { type: 'date', date: { start: '2030-01-01T00:00:00Z', end: null } },
          'On air': { type: 'date', date: { start: '2030-01-01T00:01:00Z', end: '2030-01-01T01:00:00Z' } },
        },
      },
      'c1',
      {},
    );
    expect(value?.scheduledAt).toBe(Date.parse('2030-01-01T00:00:00Z'));
    expect(value?.startedAt).toBe(Date.parse('2030-01-01T00:01:00Z'));
    expect(value?.endedAt).toBe(Date.parse('2030-01-01T01:00:00Z'));
  });

  it('takes an own `sid` over another record `account_sid`', () => {
    expect(normalizeChannel({ account_sid: 'AC1', sid: 'CH1', state: 'idle' }, {}).value?.id).toBe('CH1');
  });
});

describe('sub-resource items without ids', () => {
  it('are known by their time and text, repeats made distinct', () => {
    const q = { text: 'Any advice?', createdAt: '2030-01-01T00:00:00Z' };
    const { value, drift } = normalizeSessionDetail(
      { id: 's1', status: 'live', questions: [q, { text: 'Other', createdAt: '2030-01-01T00:01:00Z' }, q] },
      'c1',
      {},
    );
    const ids = value?.questions.items.map((i) => i.id) ?? [];
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
    expect(value?.questions.items[0]?.text).toBe('Any advice?');
    expect(drift.filter((d) => d.field === 'question.id')).toEqual([]);
  });
});

describe('custom fields and relations as a CRM writes them', () => {
  it('reads a wallet balance and currency by their words', () => {
    const { value } = normalizeSubscription(
      { Plan__c: 'pro', Funding_Type__c: 'wallet', Prepaid_Balance__c: 12.5, CurrencyIsoCode: 'EUR' },
      {},
    );
    expect(value.funding).toMatchObject({ mode: 'wallet', balance: 12.5, currency: 'EUR' });
  });

  it('reads the type of an organization as its plan', () => {
    expect(normalizeOrg({ Name: 'Acme', OrganizationType: 'business' }, 'acme', {}).value.plan).toBe(
      'business',
    );
  });

  it('reads a child relation written `null` as none, and one not named as unknown', () => {
    const { value } = normalizeSessionDetail({ id: 's1', status: 'live', Questions__r: null }, 's1', {});
    expect(value.questions).toEqual({ count: 0, items: [] });
    expect(value.unread ?? []).not.toContain('questions');
    expect(value.unread ?? []).toContain('speakers');
  });
});
