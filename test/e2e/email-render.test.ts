/**
 * The HTML mail as a mail client shows it: the default templates rendered by headless
 * Chromium (Debian's package, driven by playwright-core) through scripts/render-email.ts,
 * the script that makes the screenshots in docs/images/.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMAIL_SHOTS, renderEmails } from '../../scripts/render-email.js';
import { CHROMIUM, hasChromium, needs } from './harness/tools.js';

const HAS_CHROMIUM = needs(hasChromium(), `Chromium (${CHROMIUM})`, 'apt-get install chromium');

/** Width and height from a PNG's IHDR chunk. */
function pngSize(png: Buffer): { width: number; height: number } {
  expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

describe.skipIf(!HAS_CHROMIUM)('the alert e-mail in Chromium', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'tally-email-render-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('renders the firing and the resolved mail to full-page screenshots, fetching nothing', async () => {
    const files = await renderEmails(dir, CHROMIUM);
    expect(files.map((f) => path.basename(f))).toEqual(Object.keys(EMAIL_SHOTS));
    const sizes = await Promise.all(files.map(async (f) => pngSize(await readFile(f))));
    for (const s of sizes) {
      expect(s.width).toBe(760);
      // A whole mail: header, every alert card and the footer, taller than the viewport.
      expect(s.height).toBeGreaterThan(400);
    }
    // Three firing alerts make a taller page than two resolved ones.
    expect(sizes[0]!.height).toBeGreaterThan(sizes[1]!.height);
  }, 60_000);
});
