/**
 * What a command gets from the process edge. Only `src/main.ts` touches `process`;
 * every command receives its streams, environment and stop signal through this.
 */
import type { Writable } from 'node:stream';
import type { HostFacts } from '../core/host.js';

/** Streams, environment and the stop signal handed to every command. */
export interface CliIO {
  stdout: Writable;
  stderr: Writable;
  env: Readonly<Record<string, string | undefined>>;
  /** Current working directory, for resolving relative paths. */
  cwd: string;
  /** Aborted on SIGTERM/SIGINT; long-running commands stop cleanly when it fires. */
  signal: AbortSignal;
  /** Registers a handler for SIGHUP (config reload); returns a function that removes it. */
  onReload?: (fn: () => void) => () => void;
  /** Whether stdout is an interactive terminal (pretty output). */
  isTTY: boolean;
  /** The process's pid, liveness check and Node.js version (src/main.ts; absent when embedded). */
  host?: HostFacts;
}

/** A command: parses its own arguments and returns the process exit code. */
export type Command = (args: string[], io: CliIO) => Promise<number>;
