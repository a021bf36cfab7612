/**
 * Shared argument handling for commands: node's parseArgs, with usage errors that name
 * the flag and a `--help` that prints the command's usage.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import type { CliIO } from './io.js';

/** Exit code for a command-line usage mistake. */
export const EXIT_USAGE = 2;

/** The result of {@link parseCommandArgs}: values, or the exit code to return now. */
export type ParsedArgs<V> = { ok: true; values: V; positionals: string[] } | { ok: false; exitCode: number };

/**
 * Parses `args` with node's parseArgs; on `--help` prints `usageText` and asks for exit 0,
 * on a mistake prints it with the usage and asks for exit 2.
 */
export function parseCommandArgs<O extends NonNullable<ParseArgsConfig['options']>>(
  args: string[],
  options: O,
  usageText: string,
  io: CliIO,
  allowPositionals = false,
): ParsedArgs<
  ReturnType<typeof parseArgs<{ options: O; strict: true; allowPositionals: boolean }>>['values']
> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout.write(usageText.endsWith('\n') ? usageText : `${usageText}\n`);
    return { ok: false, exitCode: 0 };
  }
  try {
    const parsed = parseArgs({ args, options, strict: true, allowPositionals });
    return { ok: true, values: parsed.values, positionals: parsed.positionals };
  } catch (err) {
    io.stderr.write(`tally: ${(err as Error).message}\n\n${usageText}\n`);
    return { ok: false, exitCode: EXIT_USAGE };
  }
}
