/**
 * `tally run [--config PATH]`: the daemon. SIGTERM/SIGINT stop it cleanly within a
 * bounded time (exit 0); SIGHUP reloads the config and keeps the old one when the new
 * one is invalid.
 */
import { Registry } from 'prom-client';
import { App } from '../app/app.js';
import { systemClock } from '../core/clock.js';
import { type LoadedConfig, loadConfigFile, resolveConfigPath } from '../config/load.js';
import { inShard, parseShard } from '../config/shard.js';
import { summarizeConfig } from '../config/summary.js';
import { ConfigError, TallyError } from '../core/errors.js';
import { createLogger, envLogLevel, type Logger } from '../core/log.js';
import { parseCommandArgs } from './args.js';
import type { CliIO, Command } from './io.js';

const USAGE = `usage: tally run [--config PATH] [--shard I/N] [--stop-timeout SECONDS] [--enable-writes]

Runs the daemon: polls every configured org, keeps state in the state directory and
serves metrics and the JSON API. SIGTERM or SIGINT stop it; SIGHUP (or POST /-/reload)
reloads the config. --shard I/N takes only a stable share of the orgs (by a hash of the
slug), so that N replicas with the same config split the fleet. --enable-writes lets
unauthenticated requests use the endpoints that change state (silences, /-/reload), like
server.enable_writes: true; without it they answer 403 unless server.auth is set.`;

/** Turns on unauthenticated writes when the flag asks (the flag can only open, never close). */
export function applyEnableWrites(loaded: LoadedConfig, flag: boolean | undefined): LoadedConfig {
  if (flag !== true) return loaded;
  return {
    ...loaded,
    config: { ...loaded.config, server: { ...loaded.config.server, enable_writes: true } },
  };
}

/** Narrows a loaded config to the orgs of the shard (the flag wins over the config's `shard`). */
export function applyShard(loaded: LoadedConfig, flag: string | undefined): LoadedConfig {
  const text = flag ?? loaded.config.shard;
  if (text === undefined) return loaded;
  const shard = parseShard(text);
  if (typeof shard === 'string') throw new ConfigError('--shard', [shard]);
  return { ...loaded, config: { ...loaded.config, orgs: inShard(loaded.config.orgs, shard) } };
}

/** Default time allowed for a clean stop. */
export const DEFAULT_STOP_TIMEOUT_MS = 10_000;

/** The format of the log on stdout: `auto` is pretty on a terminal, JSON anywhere else. */
export function logFormatFor(loaded: LoadedConfig, io: CliIO): 'json' | 'pretty' {
  const { format } = loaded.config.log;
  return format === 'auto' ? (io.isTTY ? 'pretty' : 'json') : format;
}

/** The logger of a start that has no config to say how to log: JSON lines, as `auto` off a terminal. */
function startLogger(io: CliIO): Logger {
  const envLevel = envLogLevel(io.env);
  return createLogger({
    level: envLevel === undefined || typeof envLevel === 'object' ? 'info' : envLevel,
    format: 'json',
    destination: io.stdout,
  });
}

/** Builds the root logger the config asks for, writing to the command's stdout. */
export function loggerFor(loaded: LoadedConfig, io: CliIO): Logger {
  const { level } = loaded.config.log;
  const envLevel = envLogLevel(io.env);
  return createLogger({
    level: envLevel === undefined || typeof envLevel === 'object' ? level : envLevel,
    format: logFormatFor(loaded, io),
    destination: io.stdout,
    secrets: loaded.secrets,
  });
}

/** The `run` command. */
export const runCommand: Command = async (args, io) => {
  const parsed = parseCommandArgs(
    args,
    {
      config: { type: 'string', short: 'c' },
      shard: { type: 'string' },
      'stop-timeout': { type: 'string' },
      'enable-writes': { type: 'boolean' },
    },
    USAGE,
    io,
  );
  if (!parsed.ok) return parsed.exitCode;
  const stopTimeout = parsed.values['stop-timeout'];
  const stopTimeoutMs = stopTimeout === undefined ? DEFAULT_STOP_TIMEOUT_MS : Number(stopTimeout) * 1000;
  if (!Number.isFinite(stopTimeoutMs) || stopTimeoutMs < 0) {
    io.stderr.write(`tally: --stop-timeout takes a number of seconds, got '${stopTimeout}'\n`);
    return 2;
  }
  const file = resolveConfigPath(parsed.values.config, io.env, io.cwd);
  const shardFlag = parsed.values.shard;
  const writesFlag = parsed.values['enable-writes'];
  const load = async () =>
    applyEnableWrites(applyShard(await loadConfigFile(file, io.env), shardFlag), writesFlag);
  let loaded: LoadedConfig;
  try {
    loaded = await load();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    if (io.isTTY) io.stderr.write(`${err.message}\n`);
    // Where the log is JSON lines (not a terminal: a container), the refusal is one of them
    // too, so a log pipeline does not split it into lines it cannot parse.
    else startLogger(io).fatal({ problems: err.problems }, `could not start: ${err.message.split('\n')[0]}`);
    return 1;
  }
  const envLevel = envLogLevel(io.env);
  if (typeof envLevel === 'object') {
    io.stderr.write(`tally: ${envLevel.problem}\n`);
    return 1;
  }
  const logger = loggerFor(loaded, io);
  logger.info({ config: summarizeConfig(loaded.config, file) }, 'starting tally');
  for (const w of loaded.warnings ?? []) logger.warn({ file }, `config: ${w}`);
  if (loaded.config.orgs.length === 0)
    logger.warn({ shard: shardFlag ?? loaded.config.shard }, 'this shard has no orgs');
  const app = App.create(loaded, {
    registry: new Registry(),
    clock: systemClock,
    logger,
    console: io.stdout,
    consoleFormat: logFormatFor(loaded, io),
    reloadConfig: load,
    ...(io.host ? { host: io.host } : {}),
  });
  return runUntilStopped(app, { io, logger, stopTimeoutMs, reloadOnSignal: true });
};

/**
 * The one log line of a start that failed: its cause once, in the message (`could not
 * start: listen EADDRINUSE: address already in use 127.0.0.1:10464`), with the errno
 * `code` as a field. The error object is not logged as well: its message, stack, errno
 * and syscall would repeat the cause. Only an error that is neither tally's own nor a
 * system error (a bug) keeps its stack.
 */
export function startFailure(err: unknown): { fields: Record<string, unknown>; msg: string } {
  const parts: string[] = [];
  let code: string | undefined;
  let tally = false;
  let e: unknown = err;
  for (let depth = 0; e !== undefined && depth < 5; depth++) {
    const m = e instanceof Error ? e.message : String(e);
    if (m !== '' && !parts.some((p) => p.includes(m))) parts.push(m);
    const c = (e as { code?: unknown } | null)?.code;
    if (code === undefined && typeof c === 'string') code = c;
    tally ||= e instanceof TallyError;
    e = e instanceof Error ? e.cause : undefined;
  }
  const fields: Record<string, unknown> = {};
  if (code !== undefined) fields['code'] = code;
  const expected = code !== undefined || tally;
  if (!expected && err instanceof Error && err.stack) fields['stack'] = err.stack;
  return { fields, msg: `could not start: ${parts.join(': ') || 'unknown error'}` };
}

/** Starts `app`, reloads it on SIGHUP, and stops it when the command's signal fires. */
export async function runUntilStopped(
  app: App,
  o: {
    io: CliIO;
    logger: Logger;
    stopTimeoutMs: number;
    /** Whether SIGHUP reloads the config file (see {@link App.reloadFromFile}). */
    reloadOnSignal?: boolean;
  },
): Promise<number> {
  const { io, logger } = o;
  // SIGHUP is taken from before the start to after the stop: during the start a reload
  // waits for it to finish, while stopping it is ignored.
  let phase: 'starting' | 'running' | 'stopping' = 'starting';
  let reloadAfterStart = false;
  const off = io.onReload?.(() => {
    if (!o.reloadOnSignal) return;
    if (phase === 'starting') reloadAfterStart = true;
    else if (phase === 'running')
      void app.reloadFromFile(); // it logs the outcome
    else logger.info('reload ignored: stopping');
  });
  try {
    await app.start();
  } catch (err) {
    phase = 'stopping';
    const failure = startFailure(err);
    logger.fatal(failure.fields, failure.msg);
    await app.stop(o.stopTimeoutMs).catch(() => undefined);
    off?.();
    return 1;
  }
  phase = 'running';
  if (reloadAfterStart) void app.reloadFromFile();
  // Timers are unref'd so that tests can drop an app without hanging; the daemon itself
  // stays up until it is told to stop.
  const keepAlive = setInterval(() => undefined, 2 ** 30);
  const halted = await new Promise<{ reason: string } | undefined>((resolve) => {
    if (io.signal.aborted) resolve(undefined);
    else io.signal.addEventListener('abort', () => resolve(undefined), { once: true });
    void app.halted.then(resolve);
  });
  clearInterval(keepAlive);
  phase = 'stopping';
  if (halted) logger.fatal({ exitCode: LOCK_LOST_EXIT }, `stopping without writing: ${halted.reason}`);
  else logger.info({ reason: String(io.signal.reason) }, 'stopping');
  let timer: NodeJS.Timeout | undefined;
  const bounded = new Promise<'timeout'>((r) => {
    timer = setTimeout(() => r('timeout'), o.stopTimeoutMs + 2000);
  });
  const result = await Promise.race([app.stop(o.stopTimeoutMs).then(() => 'stopped' as const), bounded]);
  clearTimeout(timer);
  off?.();
  if (result === 'timeout') {
    logger.error({ timeoutMs: o.stopTimeoutMs }, 'clean stop took too long; exiting anyway');
    return halted ? LOCK_LOST_EXIT : 1;
  }
  return halted ? LOCK_LOST_EXIT : 0;
}

/**
 * The exit status of a tally that stopped because another running tally took its state
 * directory (docs/operations.md, "Docker", its exit codes): restarting it only makes sense
 * once that other tally is gone.
 */
export const LOCK_LOST_EXIT = 75;
