/**
 * Reads a YAML config file into a validated {@link Config}. Every problem is collected
 * and reported at once, each with its YAML path and line:column, e.g.
 * `orgs[0].token: required (line 12, column 5)`.
 *
 * Order: YAML syntax (yaml.ts) → `${VAR}` interpolation (interpolate.ts; in scalars only,
 * so the environment can never change the document's structure) → `*_file` secrets
 * (secret-files.ts) → schema (schema.ts) and the rules that span fields (cross-checks.ts).
 * Problems are worded and placed by problems.ts, which never prints a secret.
 */
import path from 'node:path';
import { ConfigError } from '../core/errors.js';
import { configWarnings, crossChecks } from './cross-checks.js';
import { backToText, interpolate } from './interpolate.js';
import { formatPath, problemList } from './problems.js';
import { type Config, configSchema } from './schema.js';
import { collectSecrets, readBoundedFile, resolveSecretFiles } from './secret-files.js';
import { nodeOffset, parseYaml, yamlValue } from './yaml.js';

/** Where to read the config from: `--config`, else `TALLY_CONFIG`, else `./tally.yaml`. */
export function resolveConfigPath(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): string {
  return path.resolve(cwd, flag ?? env['TALLY_CONFIG'] ?? 'tally.yaml');
}

/** A loaded configuration with the secrets that must never be printed or logged. */
export interface LoadedConfig {
  config: Config;
  /** Every secret value found (tokens, passwords), for log redaction. */
  secrets: string[];
  /** Absolute path of the file read. */
  path: string;
  /** Valid but likely unintended settings, each with its path and line (`check` prints them, `run` logs them). */
  warnings?: string[];
}

/** Reads and validates the config file at `file`; throws {@link ConfigError} listing every problem. */
export async function loadConfigFile(
  file: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<LoadedConfig> {
  // Like a secret file: a regular file of bounded size, opened without blocking, so that
  // `check` ends at once on a FIFO or a device.
  const read = await readBoundedFile(file, MAX_CONFIG_FILE_BYTES);
  if ('problem' in read) throw new ConfigError(file, [`cannot read config: ${read.problem}`]);
  return parseConfig(read.value, { source: file, env, baseDir: path.dirname(file) });
}

/** Options of {@link parseConfig}. */
export interface ParseOptions {
  /** Name used in error messages (the file path). */
  source: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Directory that relative `*_file` paths are resolved against. */
  baseDir: string;
}

/** Parses and validates config text; throws {@link ConfigError} listing every problem. */
export async function parseConfig(text: string, opts: ParseOptions): Promise<LoadedConfig> {
  const yaml = parseYaml(text, opts.source);
  const { doc, at } = yaml;
  const problems = problemList(doc.contents, at);
  const retyped = interpolate(doc.contents, opts.env, problems.caused);
  const raw = yamlValue(yaml, opts.source);
  defaultStateDir(raw, opts.env['TALLY_STATE_DIR']);
  const secrets: string[] = [];
  await resolveSecretFiles(raw, [], opts.baseDir, secrets, problems.caused);

  let parsed = configSchema.safeParse(raw, { reportInput: true });
  // A key that takes text keeps an interpolated `${VAR}` as text, even when it reads as a number.
  while (!parsed.success && backToText(raw, parsed.error.issues, retyped))
    parsed = configSchema.safeParse(raw, { reportInput: true });
  crossChecks(raw, problems.report);
  if (!parsed.success) problems.schemaIssues(parsed.error.issues);
  const texts = problems.texts();
  if (texts.length > 0 || !parsed.success) throw new ConfigError(opts.source, texts);
  const config = parsed.data;
  collectSecrets(config, secrets);
  const warnings = configWarnings(config).map(
    (w) => `${formatPath(w.path)}: ${w.message}${at(nodeOffset(doc.contents, w.path, false))}`,
  );
  return {
    config,
    secrets: [...new Set(secrets)],
    path: opts.source,
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}

/**
 * `TALLY_STATE_DIR` is the state directory when the config does not name one: the
 * container image sets it to its volume, so a config without `state.dir` works there as
 * it does anywhere else (docs/operations.md).
 */
function defaultStateDir(raw: unknown, fromEnv: string | undefined): void {
  if (fromEnv === undefined || fromEnv === '' || raw === null || typeof raw !== 'object') return;
  const root = raw as Record<string, unknown>;
  const state = root['state'];
  if (state === undefined || state === null) root['state'] = { dir: fromEnv };
  else if (
    typeof state === 'object' &&
    !Array.isArray(state) &&
    (state as Record<string, unknown>)['dir'] === undefined
  ) {
    (state as Record<string, unknown>)['dir'] = fromEnv;
  }
}

/** A config file larger than this is refused (a config is a few kilobytes). */
const MAX_CONFIG_FILE_BYTES = 4 * 1024 * 1024;
