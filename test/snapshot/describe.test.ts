import { describe, expect, it } from 'vitest';
import { describeEvent } from '../../src/snapshot/describe.js';

describe('describeEvent of schema drift', () => {
  it('separates the endpoint field from the problem with a colon, like every drift message', () => {
    expect(
      describeEvent({
        id: 'x',
        at: 0,
        org: 'acme',
        kind: 'upstream.schema_drift',
        entity: { kind: 'upstream', id: 'acme/org' },
        field: 'org.org',
        to: 'none of the fields tally reads is in the body; keys seen: "result"',
        labels: {},
      }),
    ).toBe('schema drift: org.org: none of the fields tally reads is in the body; keys seen: "result"');
  });
});
