import { describe, expect, it } from 'vitest';
import { normalizeMember } from '../../../src/upstream/shape/index.js';

describe('normalizeMember', () => {
  it('reads the canonical shape', () => {
    const raw = {
      id: 'u1',
      name: 'Ann',
      email: 'ann@acme.test',
      role: 'owner',
      joined_at: '2024-01-01T00:00:00Z',
    };
    expect(normalizeMember(raw, {})).toEqual({
      value: { id: 'u1', name: 'Ann', email: 'ann@acme.test', role: 'owner' },
      drift: [],
    });
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ['numeric id', { id: 17 }, { id: '17' }],
    ['user_id', { user_id: 'u2' }, { id: 'u2' }],
    ['userId (camel)', { userId: 'u2' }, { id: 'u2' }],
    ['uuid', { uuid: 'x-1' }, { id: 'x-1' }],
    ['nested user', { user: { id: 9, name: 'Bo', email: 'bo@x' } }, { id: '9', name: 'Bo', email: 'bo@x' }],
    ['email as last resort id', { email: 'c@x' }, { id: 'c@x', email: 'c@x' }],
    ['_id (Mongo)', { _id: 'm1' }, { id: 'm1' }],
    ['display_name', { id: 1, display_name: 'Di' }, { id: '1', name: 'Di' }],
    ['fullName', { id: 1, fullName: 'Fu' }, { id: '1', name: 'Fu' }],
    ['emailAddress', { id: 1, emailAddress: 'e@x' }, { id: '1', email: 'e@x' }],
    ['role lower-cased', { id: 1, role: ' Admin ' }, { id: '1', role: 'admin' }],
    ['role object', { id: 1, role: { name: 'Viewer' } }, { id: '1', role: 'viewer' }],
    ['roles[0]', { id: 1, roles: ['member', 'billing'] }, { id: '1', role: 'member' }],
    ['roles[0].name', { id: 1, roles: [{ name: 'admin' }] }, { id: '1', role: 'admin' }],
    ['permission', { id: 1, permission: 'read' }, { id: '1', role: 'read' }],
    ['unknown role kept', { id: 1, role: 'Super-Duper' }, { id: '1', role: 'super-duper' }],
  ])('%s', (_name, raw, expected) => {
    const r = normalizeMember(raw, {});
    expect(r.value).toEqual(expected);
    expect(r.drift).toEqual([]);
  });

  it('operator aliases are tried first', () => {
    const opts = { fields: { 'member.role': ['access.level'], 'member.id': ['login'] } };
    expect(
      normalizeMember({ login: 'ann', id: 5, role: 'x', access: { level: 'Owner' } }, opts).value,
    ).toEqual({
      id: 'ann',
      role: 'owner',
    });
  });

  it.each<[string, unknown]>([
    ['no id', { name: 'Ann' }],
    ['empty id', { id: '' }],
    ['null', null],
    ['a string', 'ann'],
    ['an array', [1]],
  ])('fatal: %s', (_name, raw) => {
    const r = normalizeMember(raw, {});
    expect(r.value).toBeUndefined();
    expect(r.drift.some((d) => d.fatal && d.endpoint === 'team')).toBe(true);
  });

  it('an id of the wrong type is reported and is fatal', () => {
    const r = normalizeMember({ id: { value: 1 } }, {});
    expect(r.value).toBeUndefined();
    expect(r.drift).toEqual([
      {
        endpoint: 'team',
        field: 'member.id',
        problem: "'id' is an object, expected a string or number id",
        fatal: false,
      },
      { endpoint: 'team', field: 'member.id', problem: 'no usable id; keys seen: "id"', fatal: true },
    ]);
  });

  it('a wrong-typed field is reported and left out', () => {
    const r = normalizeMember({ id: 1, email: ['a@x'], role: 3 }, {});
    expect(r.value).toEqual({ id: '1', role: '3' });
    expect(r.drift.map((d) => [d.field, d.fatal])).toEqual([
      ['member.email', false],
      ['member.role', false],
    ]);
  });
});
