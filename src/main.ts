#!/usr/bin/env node
/**
 * The process edge: argv, signals, exit codes. The only file that touches `process`,
 * so that every command can be embedded and tested with its own streams and signal.
 */
import { COMMANDS, usage } from './cli/commands.js';
import type { CliIO } from './cli/io.js';
import { describeError } from './core/errors.js';
import { VERSION } from './core/version.js';

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(usage());
    return name === undefined ? 2 : 0;
  }
  if (name === 'version' || name === '--version') {
    process.stdout.write(`tally ${VERSION}\n`);
    return 0;
  }
  const entry = COMMANDS[name];
  if (!entry) {
    process.stderr.write(`tally: unknown command '${name}'\n\n${usage()}`);
    return 2;
  }

  const stop = new AbortController();
  let signals = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    signals += 1;
    // A second signal means the operator is done waiting.
    if (signals > 1) process.exit(sig === 'SIGINT' ? 130 : 143);
    stop.abort(new Error(`received ${sig}`));
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  // SIGHUP's default action ends the process: it is taken from the start, handed to the
  // command's reload when it has one, and otherwise kept for it (or ignored).
  const reloaders = new Set<() => void>();
  let hangups = 0;
  process.on('SIGHUP', () => {
    if (reloaders.size === 0) hangups += 1;
    for (const fn of reloaders) fn();
  });

  const io: CliIO = {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    signal: stop.signal,
    isTTY: Boolean(process.stdout.isTTY),
    host: { pid: process.pid, isAlive: pidAlive, nodeVersion: process.versions.node },
    onReload(fn) {
      reloaders.add(fn);
      // A SIGHUP that came before anyone listened (tally still loading) is not lost.
      if (hangups > 0) {
        hangups = 0;
        fn();
      }
      return () => reloaders.delete(fn);
    },
  };
  const command = await entry.load();
  return command(args, io);
}

/** Whether `pid` runs on this host: signal 0 checks without sending anything. */
function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, under another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The last resort. Every error from the network, the disk or a peer is handled where it
 * arises and becomes a failed read, a failed delivery or a logged warning; what reaches
 * here is a programming error, so tally says so once, as a JSON line a log pipeline can
 * read, and exits non-zero rather than run on in an unknown state.
 */
function fatal(kind: string, err: unknown): void {
  const e = err instanceof Error ? err : new Error(String(err));
  const line = {
    level: 'fatal',
    time: Date.now(),
    msg: `${kind}: tally stops (a programming error; please report it)`,
    err: { type: e.name, message: e.message, stack: e.stack },
  };
  process.stderr.write(`${JSON.stringify(line)}\n`);
  process.exit(70);
}
process.on('uncaughtException', (err) => fatal('uncaught exception', err));
process.on('unhandledRejection', (reason) => fatal('unhandled rejection', reason));
// A reader that goes away (`tally once | head`) is not an error of tally's.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  fatal('stdout failed', err);
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`tally: ${describeError(err)}\n`);
    process.exitCode = 1;
  },
);
