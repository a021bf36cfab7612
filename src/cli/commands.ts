/**
 * The registry of commands. Each lives in its own file and is loaded only when used,
 * so `tally check` does not pay for the simulator or the HTTP client.
 */
import type { Command } from './io.js';

/** A command's name, one-line summary and loader. */
export interface CommandEntry {
  summary: string;
  load: () => Promise<Command>;
}

/** Every command tally has, by name. */
export const COMMANDS: Record<string, CommandEntry> = {
  run: { summary: 'run the daemon', load: async () => (await import('./run.js')).runCommand },
  once: {
    summary: 'read every org once and print the normalized snapshot',
    load: async () => (await import('./once.js')).onceCommand,
  },
  check: { summary: 'validate the config file', load: async () => (await import('./check.js')).checkCommand },
  demo: {
    summary: 'run tally against the built-in simulator',
    load: async () => (await import('./demo.js')).demoCommand,
  },
  sim: {
    summary: 'serve the upstream API simulator',
    load: async () => (await import('./sim.js')).simCommand,
  },
  'notify-test': {
    summary: 'send a marked test notification through every receiver (or one)',
    load: async () => (await import('./notify-test.js')).notifyTestCommand,
  },
  replay: {
    summary: 'evaluate the rules against a recorded event log, sending nothing',
    load: async () => (await import('./replay.js')).replayCommand,
  },
};

/** The top-level usage text. */
export function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return [
    'usage: tally <command> [options]',
    '',
    'commands:',
    ...lines,
    '',
    'Run `tally <command> --help` for the options of one command.',
    '',
  ].join('\n');
}
