import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// The process edge's last resort (src/main.ts): a programming error that escapes every
// handler is stated once, as a JSON line on stderr, and the process exits 70; a reader
// that goes away from stdout is not an error.

const MAIN = path.resolve(import.meta.dirname, '../../src/main.ts');

function run(
  args: string[],
  preload: string,
): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--import', `data:text/javascript,${encodeURIComponent(preload)}`, MAIN, ...args],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.on('exit', (code) => resolve({ code, stderr, stdout }));
  });
}

describe('the last-resort handler', () => {
  it.each([
    [
      'an uncaught exception',
      'setTimeout(() => { throw new TypeError("boom in a timer"); }, 300);',
      'uncaught exception',
    ],
    [
      'an unhandled rejection',
      'setTimeout(() => { Promise.reject(new Error("boom in a promise")); }, 300);',
      'unhandled rejection',
    ],
  ])(
    'states %s once as JSON and exits 70',
    async (_name, preload, kind) => {
      const r = await run(['sim', '--port', '0'], preload);
      expect(r.code).toBe(70);
      const lines = r.stderr.split('\n').filter((l) => l.includes('"fatal"'));
      expect(lines).toHaveLength(1);
      const line = JSON.parse(lines[0]!) as { level: string; msg: string; err: { message: string } };
      expect(line.level).toBe('fatal');
      expect(line.msg).toContain(kind);
      expect(line.err.message).toMatch(/^boom in a /);
    },
    30_000,
  );
});
