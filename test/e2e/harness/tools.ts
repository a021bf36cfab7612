/**
 * The outside programs the e2e tier drives (Alertmanager, amtool, Chromium). On a
 * developer's machine a missing one skips its tests with a warning saying what to
 * install; under CI (`CI` set) it fails the file instead, so that a tier that skipped
 * everything can never pass as green.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Whether `bin --version` runs. */
export function runs(bin: string): boolean {
  try {
    execFileSync(bin, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The first of `candidates` that runs, or undefined. */
export function firstThatRuns(...candidates: string[]): string | undefined {
  return candidates.find(runs);
}

/** Chromium for browser tests: `CHROMIUM` or Debian's package. */
export const CHROMIUM = process.env['CHROMIUM'] ?? '/usr/bin/chromium';

/** Whether Chromium is there. */
export function hasChromium(): boolean {
  return existsSync(CHROMIUM);
}

/**
 * Says a tool is missing: under CI that is an error thrown at collection, so the file
 * fails; elsewhere a warning, and the caller skips. Returns whether the tool is present.
 */
export function needs(present: boolean, what: string, install: string): boolean {
  if (present) return true;
  const msg = `${what} not installed (${install})`;
  if (process.env['CI']) throw new Error(`${msg}: the e2e tier needs it under CI`);
  console.warn(`${msg}: its tests are skipped`);
  return false;
}
