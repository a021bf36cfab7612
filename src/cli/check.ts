/**
 * `tally check [--config PATH]`: validates the config file and prints a one-screen
 * summary, or every problem with its YAML path and line. Exit 0 when valid, 1 when not.
 */
import { loadConfigFile, resolveConfigPath } from '../config/load.js';
import { summarizeConfig } from '../config/summary.js';
import { ConfigError } from '../core/errors.js';
import { envLogLevel } from '../core/log.js';
import { parseCommandArgs } from './args.js';
import type { Command } from './io.js';

const USAGE = `usage: tally check [--config PATH]

Validates the configuration file (default: $TALLY_CONFIG, else ./tally.yaml) and prints a
summary, or every problem found with its path and line. Exits 0 when valid, 1 when not.`;

/** The `check` command. */
export const checkCommand: Command = async (args, io) => {
  const parsed = parseCommandArgs(args, { config: { type: 'string', short: 'c' } }, USAGE, io);
  if (!parsed.ok) return parsed.exitCode;
  const file = resolveConfigPath(parsed.values.config, io.env, io.cwd);
  try {
    const { config, warnings = [] } = await loadConfigFile(file, io.env);
    // `run` refuses it at start: so does `check`.
    const envLevel = envLogLevel(io.env);
    if (typeof envLevel === 'object') {
      io.stderr.write(`${envLevel.problem}\n`);
      return 1;
    }
    for (const w of warnings) io.stderr.write(`${file}: warning: ${w}\n`);
    io.stdout.write(`${summarizeConfig(config, file).join('\n')}\nconfig OK\n`);
    return 0;
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    io.stderr.write(`${err.message}\n`);
    return 1;
  }
};
