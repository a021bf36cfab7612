import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FIELD_ALIASES, FIELD_KEYS } from '../../../src/upstream/shape/index.js';

const doc = readFileSync(new URL('../../../docs/upstream-shapes.md', import.meta.url), 'utf8');

describe('docs/upstream-shapes.md', () => {
  it.each(FIELD_KEYS)('lists the paths of %s exactly as the code tries them', (key) => {
    // Table cells may be padded by the formatter.
    const row = doc.split('\n').find((line) => /^\|\s*`([^`]+)`\s*\|/.exec(line)?.[1] === key);
    expect(row, `no row for ${key}`).toBeDefined();
    const paths = [...(row ?? '').split('|')[2]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    expect(paths).toEqual([...FIELD_ALIASES[key]]);
  });
});
