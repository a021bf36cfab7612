import { PassThrough } from 'node:stream';
import type { CliIO } from '../../src/cli/io.js';

/** A CliIO whose streams are captured, for running commands in-process. */
export interface CapturedIO extends CliIO {
  out(): string;
  err(): string;
  stop(): void;
  reload(): void;
}

export function captureIO(env: Record<string, string | undefined> = {}, cwd = process.cwd()): CapturedIO {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  stderr.on('data', (c: Buffer) => {
    err += c.toString();
  });
  const ctrl = new AbortController();
  const reloaders = new Set<() => void>();
  return {
    stdout,
    stderr,
    env,
    cwd,
    signal: ctrl.signal,
    isTTY: false,
    onReload(fn) {
      reloaders.add(fn);
      return () => reloaders.delete(fn);
    },
    out: () => out,
    err: () => err,
    stop: () => ctrl.abort(new Error('stopped by test')),
    reload: () => {
      for (const fn of reloaders) fn();
    },
  };
}
