/**
 * What a command gets from the process edge. Only `src/main.ts` touches `process`;
 * every command receives its streams, environment and stop signal through this.
 */
import type { Writable } from 'node:stream';

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
}

/** A command: parses its own arguments and returns the process exit code. */
export type Command = (args: string[], io: CliIO) => Promise<number>;
