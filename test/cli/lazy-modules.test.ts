/**
 * Packages that a running daemon may never need are loaded at their first use, not with
 * `tally run`'s module (docs/performance.md, footprint): liquidjs at the first template,
 * nodemailer at the first mail, undici at the first webhook or Alertmanager POST,
 * pino-pretty for a pretty log. Nor does it load Node's own bundled undici, which an ES
 * import of `node:http` pulls in on Node 22 and later (src/core/node-http.ts).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const CHILD = path.resolve(import.meta.dirname, 'fixtures/loaded-modules.ts');

async function loadedWith(templates: string[]): Promise<string[]> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', CHILD, ...templates]);
  return JSON.parse(stdout) as string[];
}

describe("tally run's module", () => {
  it('loads none of the on-demand packages, nor liquidjs for templates without markup', async () => {
    expect(await loadedWith(['plain text, no markup'])).toEqual([]);
  });

  it('loads liquidjs at the first template with markup', async () => {
    expect(await loadedWith(['{{ labels.channel }}'])).toEqual(['liquidjs']);
  });
});
