import { describe, expect, it } from 'vitest';
import { MODEL_VERSION, type OrgSnapshot } from '../../src/snapshot/model.js';
import { STEPS, upgradeSnapshot, withEveryGroup } from '../../src/snapshot/upgrade.js';
import { detailOf, snapshotOf, T0, world } from './fixtures.js';

describe('model upgrades (docs/state.md, "Model versions")', () => {
  it('has one step from each older model version to the next', () => {
    expect(STEPS.length).toBe(MODEL_VERSION - 1);
  });

  it('leaves a detail that has every group as it is', () => {
    const d = detailOf(world(), 's3');
    expect(withEveryGroup(d)).toBe(d);
  });

  it('adds each group a stored detail lacks as unread, beside those it could not read', () => {
    const { ai: _ai, reactions: _r, ...old } = { ...detailOf(world(), 's3'), unread: ['questions' as const] };
    const d = withEveryGroup(old as never);
    expect(d.unread).toEqual(['questions', 'reactions', 'ai']);
    expect(d.reactions).toEqual({ count: 0, byKind: {} });
    expect(d.ai).toEqual({});
  });

  it('refuses a version this build cannot read', () => {
    for (const version of [0, MODEL_VERSION + 1, '1', undefined]) {
      const s = { ...snapshotOf(world(), T0), version } as unknown as OrgSnapshot;
      expect(() => upgradeSnapshot(s)).toThrow(/unsupported snapshot model version/);
    }
  });
});
