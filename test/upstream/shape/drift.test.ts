import { describe, expect, it } from 'vitest';
import {
  describeIssue,
  driftReason,
  READ_FAILING_REASONS,
  readFailingSeries,
} from '../../../src/upstream/shape/drift.js';
import { ENDPOINTS } from '../../../src/upstream/shape/endpoints.js';
import {
  normalizeChannel,
  normalizeMember,
  normalizeOrg,
  normalizeSession,
  normalizeSessionDetail,
  normalizeSubscription,
} from '../../../src/upstream/shape/index.js';

describe('describeIssue', () => {
  it('puts a colon between the field and the problem, as every drift message does', () => {
    expect(
      describeIssue({
        field: 'org',
        problem: 'none of the fields tally reads is in the body; keys seen: "result"',
      }),
    ).toBe('org: none of the fields tally reads is in the body; keys seen: "result"');
    expect(
      describeIssue({ field: 'channel.status', problem: "'status' is an object, expected a string" }),
    ).toBe("channel.status: 'status' is an object, expected a string");
  });
});

describe('driftReason', () => {
  const envelope = (endpoint: string) => ({ endpoint, field: 'envelope', problem: 'x', fatal: true });
  it('calls a list endpoint without its list no_list', () => {
    for (const e of ['team', 'channels', 'sessions']) expect(driftReason(envelope(e))).toBe('no_list');
  });

  it('calls an object endpoint (profile, subscription, session detail) without its object no_object', () => {
    for (const e of ['org', 'subscription', 'session']) expect(driftReason(envelope(e))).toBe('no_object');
  });

  it.each([
    ['sessions', 'query', 'the server refused every query tally tried (400: no)', 'query_refused'],
    ['org', 'org', 'none of the fields tally reads is in the body; keys seen: "result"', 'unrecognised_body'],
    ['channels', 'body', 'response is not valid JSON (text/html, 40 bytes)', 'not_json'],
    ['channels', 'channel.id', 'no usable id; keys seen: "name"', 'missing_id'],
    ['channels', 'channel.status', 'unknown status word "rehearsal"; its class is unknown', 'unknown_word'],
    ['subscription', 'subscription.plan', 'no plan found', 'missing_part'],
    ['subscription', 'funding.balance', 'is a string, expected an amount', 'unreadable_value'],
  ])('%s %s: %s → %s', (endpoint, field, problem, reason) => {
    expect(driftReason({ endpoint, field, problem, fatal: false })).toBe(reason);
  });

  it('counts every reason of a failed read among the read-failing ones, and no other', () => {
    expect([...READ_FAILING_REASONS].sort()).toEqual([
      'conflicting_id',
      'missing_id',
      'no_list',
      'no_object',
      'not_json',
      'query_refused',
      'unrecognised_body',
    ]);
  });
});

describe('readFailingSeries', () => {
  it('names the fields and reasons the normalizers really report for a record without id or a body with nothing tally reads', () => {
    const fatal = {
      team: normalizeMember({ name: 'x' }, {}).drift,
      channels: normalizeChannel({ name: 'x' }, {}).drift,
      sessions: normalizeSession({ title: 'x' }, 'c1', {}).drift,
      org: normalizeOrg({ result: 1 }, 'acme', {}).drift,
      subscription: normalizeSubscription({ result: 1 }, {}).drift,
      session: normalizeSessionDetail({ result: 1 }, 's1', {}).drift,
    };
    for (const endpoint of ENDPOINTS) {
      const issue = fatal[endpoint].find((i) => i.fatal)!;
      const series = readFailingSeries(endpoint).map((x) => `${x.field} ${x.reason}`);
      expect(series, endpoint).toContain(`${issue.field} ${driftReason(issue)}`);
    }
  });

  it('uses only read-failing reasons', () => {
    for (const endpoint of ENDPOINTS)
      for (const { reason } of readFailingSeries(endpoint)) expect(READ_FAILING_REASONS).toContain(reason);
  });
});
