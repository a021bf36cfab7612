/**
 * Every helper tally adds to CEL is documented in docs/alerts.md, "Helpers"
 * (docs/architecture.md, "Add a rule helper"); its behaviour is shown in
 * cel-helpers.test.ts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CelEnvironments } from '../../src/alerts/cel.js';

const doc = readFileSync(new URL('../../docs/alerts.md', import.meta.url), 'utf8');
const helpers = doc.slice(doc.indexOf('### Helpers'), doc.indexOf('\n## ', doc.indexOf('### Helpers')));

describe('CEL helpers', () => {
  it('are each documented under "Helpers" in docs/alerts.md', () => {
    const names = new CelEnvironments().helperNames();
    expect(names).toContain('expected_on_air');
    expect(helpers).toContain('| helper');
    expect(names.filter((n) => !helpers.includes(`\`${n}(`))).toEqual([]);
  });
});
