import { describe, expect, it } from 'vitest';
import { ALERTING_SECTIONS, RESTART_SECTIONS } from '../../src/app/reload.js';
import { configSchema } from '../../src/config/schema.js';

describe('what a reload applies', () => {
  it('places every config section: applied at once, or named as waiting for a restart', () => {
    // `shard` applies through the orgs it keeps.
    const placed = new Set<string>(['orgs', 'shard', ...ALERTING_SECTIONS, ...RESTART_SECTIONS]);
    expect(Object.keys(configSchema.shape).filter((k) => !placed.has(k))).toEqual([]);
  });
});
