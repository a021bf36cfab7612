import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { PAGING_MODES } from '../../src/config/paging-modes.js';
import { ConfigError } from '../../src/core/errors.js';
import { pagingOptions } from '../../src/upstream/shape/options.js';

const withPaging = (mode: string) => `upstream:
  base_url: http://127.0.0.1:8080
  shape:
    paging: ${mode}
orgs:
  - slug: acme
    token: abc123
`;

const opts = { source: 'tally.yaml', env: {}, baseDir: '.' };

describe('paging modes: one list for the config and the shape reader', () => {
  it('takes every mode in the config and hands it to the shape reader as it is', async () => {
    for (const mode of PAGING_MODES) {
      const { config } = await parseConfig(withPaging(mode), opts);
      expect(config.upstream.shape.paging).toBe(mode);
      expect(pagingOptions({ paging: config.upstream.shape.paging }).paging).toBe(mode);
    }
  });

  it('refuses another mode, naming every one it knows', async () => {
    const err = await parseConfig(withPaging('keyset'), opts).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems).toEqual([
      `upstream.shape.paging: expected one of ${PAGING_MODES.map((m) => JSON.stringify(m)).join(', ')}, found "keyset" (line 4, column 13)`,
    ]);
  });
});
