/**
 * Structured logging with pino: JSON by default, pretty on a terminal or when asked.
 * Secrets are removed twice: by path (`redact`) for known fields, and by value for
 * tokens and passwords registered from the config, wherever they appear in a line.
 * Every line has each key once (see {@link uniqueKeys}).
 */
import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';
import type { PrettyOptions } from 'pino-pretty';

export type { Logger } from 'pino';

/** Log levels accepted in config and `TALLY_LOG_LEVEL`. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
/** One of {@link LOG_LEVELS}. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * The level `TALLY_LOG_LEVEL` sets, undefined when unset or empty; a problem naming the
 * variable when it is not one of {@link LOG_LEVELS} (`run` and `check` refuse it alike).
 */
export function envLogLevel(
  env: Readonly<Record<string, string | undefined>>,
): LogLevel | undefined | { problem: string } {
  const v = env['TALLY_LOG_LEVEL'];
  if (v === undefined || v === '') return undefined;
  if ((LOG_LEVELS as readonly string[]).includes(v)) return v as LogLevel;
  return {
    problem: `TALLY_LOG_LEVEL: expected one of ${LOG_LEVELS.join(', ')}, found ${JSON.stringify(v.slice(0, 40))}`,
  };
}

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  level: LogLevel;
  format: 'json' | 'pretty';
  /** Where lines go (stdout in production, a buffer in tests). */
  destination: Writable;
  /** Secret values (tokens, passwords) that must never appear in a line. */
  secrets?: Iterable<string>;
}

const REDACT_PATHS = [
  'token',
  'password',
  'secret',
  'authorization',
  'headers.authorization',
  'headers.Authorization',
  '*.token',
  '*.password',
  '*.secret',
  '*.authorization',
  '*.headers.authorization',
  '*.headers.Authorization',
];

/** Replaces `user:pass@` in URLs and every registered secret value with `[REDACTED]`. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s:@]+:[^/\s@]*@/gi, '$1[REDACTED]@');
  out = out.replace(/(Bearer\s+)[A-Za-z0-9._~+/=-]+/g, '$1[REDACTED]');
  for (const s of secrets) {
    if (s.length >= 4) out = out.split(s).join('[REDACTED]');
  }
  return out;
}

/**
 * One key once per line. pino appends child bindings and the fields of a call as they
 * come, so a component that binds `component` under a parent that did, or a call that
 * passes `org` to a logger bound to it, writes the key twice; JSON.parse keeps the last
 * (innermost) value and log shippers disagree about which one they keep. The line is
 * written again with the innermost value, in the position of the first occurrence.
 */
export function uniqueKeys(line: string): string {
  if (!hasRepeatedKey(line)) return line;
  const end = line.endsWith('\n') ? '\n' : '';
  try {
    return `${JSON.stringify(JSON.parse(line))}${end}`;
  } catch {
    return line;
  }
}

/** Whether a top-level key may repeat: a cheap scan of `,"key":` runs, over-reporting inside strings. */
function hasRepeatedKey(line: string): boolean {
  const seen = new Set<string>();
  for (const m of line.matchAll(/[{,]"((?:[^"\\]|\\.)*)":/g)) {
    const key = m[1] as string;
    if (seen.has(key)) return true;
    seen.add(key);
  }
  return false;
}

/** A writable that scrubs every chunk before passing it on. */
function scrubbing(dest: Writable, secrets: readonly string[]): Writable {
  return new Writable({
    write(chunk: Buffer | string, _enc, cb) {
      dest.write(scrub(chunk.toString(), secrets), cb);
    },
  });
}

/**
 * pino-pretty is loaded only when a pretty log is asked for: it and its dependencies
 * hold about 6 MiB of resident memory that a JSON-logging daemon (the container) never uses.
 */
function loadPretty(): (opts: PrettyOptions) => Writable {
  const required = createRequire(import.meta.url)('pino-pretty') as
    | ((opts: PrettyOptions) => Writable)
    | { default: (opts: PrettyOptions) => Writable };
  return typeof required === 'function' ? required : required.default;
}

/** Builds the root logger; components take `logger.child({ component })`. */
export function createLogger(opts: LoggerOptions): Logger {
  // A JSON line holds a secret as JSON writes it: one with a quote, a backslash or a
  // control character is found only in that form.
  const secrets = [...new Set([...(opts.secrets ?? [])].flatMap((s) => [s, JSON.stringify(s).slice(1, -1)]))]
    .filter((s) => s.length > 0)
    .sort((a, b) => b.length - a.length);
  let dest: Writable = scrubbing(opts.destination, secrets);
  if (opts.format === 'pretty') {
    // pino-pretty as a stream (not a worker transport) so that tests and the scrubber see its output.
    // The JSON line is scrubbed before pino-pretty too: it writes values in its own
    // escaping, in which a secret with a quote or a backslash is found in neither form.
    dest = scrubbing(loadPretty()({ colorize: false, destination: dest, sync: true }), secrets);
  }
  return pino(
    {
      level: opts.level,
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
      base: null,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      hooks: { streamWrite: uniqueKeys },
    },
    dest,
  );
}

/** A logger that drops everything, for tests and library use. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
