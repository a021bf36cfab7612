import { describe, expect, it } from 'vitest';
import { describeIssue } from '../../../src/upstream/shape/drift.js';

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
