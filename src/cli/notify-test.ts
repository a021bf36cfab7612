/**
 * `tally notify-test [--config PATH] [--receiver NAME]`: sends a test notification to
 * every receiver (or one), directly rather than through the outbox, and prints for each
 * whether it was accepted or exactly why not. Exit 0 when all succeeded, 1 when any
 * failed or the config is invalid, 2 on a usage mistake.
 *
 * The `receivers`, `delivery` and `server.external_url` sections are read here from the
 * YAML with the notify schemas (with `${VAR}` and `*_file` secrets); once the main config
 * schema includes them this reads the config through `loadConfigFile` instead.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { systemClock } from '../clock.js';
import { formatPath, resolveConfigPath } from '../config/load.js';
import { describeError } from '../errors.js';
import { scrub } from '../log.js';
import { DeliveryError } from '../notify/notifier.js';
import { deliveryId } from '../notify/outbox.js';
import { closeNotifiers, createNotifier } from '../notify/registry.js';
import {
  type DeliveryConfig,
  deliverySchema,
  type ReceiverConfig,
  receiversSchema,
} from '../notify/schema.js';
import { testNotification } from '../notify/test-notification.js';
import { EXIT_USAGE, parseCommandArgs } from './args.js';
import type { CliIO, Command } from './io.js';

const USAGE = `usage: tally notify-test [--config PATH] [--receiver NAME]

Sends a test notification (marked [TEST]) to every receiver in the config, or to the
one named, and reports for each whether it was delivered or why not. It does not go
through the outbox and is not retried. Exits 0 when all succeeded, 1 when any failed.`;

/** The parts of the config this command needs. */
interface NotifyConfig {
  receivers: ReceiverConfig[];
  delivery: DeliveryConfig;
  externalURL: string | undefined;
  secrets: string[];
}

/** The `notify-test` command. */
export const notifyTestCommand: Command = async (args, io) => {
  const parsed = parseCommandArgs(
    args,
    { config: { type: 'string', short: 'c' }, receiver: { type: 'string', short: 'r' } },
    USAGE,
    io,
  );
  if (!parsed.ok) return parsed.exitCode;
  const file = resolveConfigPath(parsed.values.config, io.env, io.cwd);
  let cfg: NotifyConfig;
  try {
    cfg = await readNotifyConfig(file, io.env);
  } catch (err) {
    io.stderr.write(`${describeError(err)}\n`);
    return 1;
  }
  let receivers = cfg.receivers;
  const only = parsed.values.receiver;
  if (only !== undefined) {
    receivers = receivers.filter((r) => r.name === only);
    if (receivers.length === 0) {
      const names = cfg.receivers.map((r) => r.name).join(', ') || 'none';
      io.stderr.write(`tally: no receiver named '${only}' (receivers: ${names})\n`);
      return EXIT_USAGE;
    }
  }
  if (receivers.length === 0) {
    io.stderr.write(`${file}: no receivers configured\n`);
    return 1;
  }
  io.stdout.write(
    `sending a test notification to ${receivers.length} receiver${receivers.length === 1 ? '' : 's'}\n`,
  );
  const results = await Promise.all(receivers.map((r) => sendTest(r, cfg, io)));
  const width = Math.max(...receivers.map((r) => `${r.name} (${r.type})`.length));
  let failed = 0;
  results.forEach((res, i) => {
    const r = receivers[i]!;
    const label = `${r.name} (${r.type})`.padEnd(width);
    if (res.ok) io.stdout.write(`  ok    ${label}  delivered in ${res.ms}ms\n`);
    else {
      failed++;
      io.stdout.write(`  FAIL  ${label}  ${scrub(res.error, cfg.secrets)}\n`);
    }
  });
  io.stdout.write(
    failed === 0
      ? 'all receivers accepted the test notification\n'
      : `${failed} of ${receivers.length} failed\n`,
  );
  return failed === 0 ? 0 : 1;
};

type SendResult = { ok: true; ms: number } | { ok: false; error: string };

async function sendTest(r: ReceiverConfig, cfg: NotifyConfig, io: CliIO): Promise<SendResult> {
  const clock = systemClock;
  const notifier = createNotifier(r, { clock, console: io.stdout });
  const n = testNotification(r.name, clock.now(), cfg.externalURL);
  const timeoutMs = r.timeout ?? cfg.delivery.timeout;
  const signal = AbortSignal.any([io.signal, AbortSignal.timeout(timeoutMs)]);
  const started = clock.now();
  try {
    await notifier.send(n, { signal, idempotencyKey: deliveryId(n.id, r.name) });
    return { ok: true, ms: clock.now() - started };
  } catch (err) {
    if (err instanceof DeliveryError) {
      const retry = err.retryable ? 'retryable' : 'not retryable';
      return { ok: false, error: `${err.message} [${err.reason}, ${retry}]` };
    }
    return { ok: false, error: describeError(err) };
  } finally {
    await closeNotifiers([notifier]);
  }
}

/** Reads `receivers`, `delivery` and `server.external_url` from the config file. */
async function readNotifyConfig(
  file: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<NotifyConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(`${file}: cannot read config: ${code === 'ENOENT' ? 'file not found' : String(code)}`);
  }
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    throw new Error(`${file}: invalid YAML: ${describeError(err).split('\n')[0]}`);
  }
  const root = (raw ?? {}) as Record<string, unknown>;
  const problems: string[] = [];
  const secrets: string[] = [];
  const sections = interpolate(
    { receivers: root['receivers'] ?? [], delivery: root['delivery'] ?? {} },
    env,
    [],
    problems,
  );
  await readSecretFiles(sections, [], path.dirname(file), secrets, problems);
  const receivers = receiversSchema.safeParse(sections['receivers']);
  const delivery = deliverySchema.safeParse(sections['delivery']);
  if (!receivers.success) problems.push(...issues(receivers.error, ['receivers']));
  if (!delivery.success) problems.push(...issues(delivery.error, ['delivery']));
  if (problems.length > 0 || !receivers.success || !delivery.success) {
    throw new Error(
      `${file}: ${problems.length} problem${problems.length === 1 ? '' : 's'}\n  ${problems.join('\n  ')}`,
    );
  }
  const server = root['server'] as Record<string, unknown> | undefined;
  const ext = server?.['external_url'];
  for (const r of receivers.data) collectSecrets(r, secrets);
  return {
    receivers: receivers.data,
    delivery: delivery.data,
    externalURL: typeof ext === 'string' ? ext : undefined,
    secrets: secrets.filter((s) => s.length >= 4),
  };
}

function issues(err: z.ZodError, prefix: (string | number)[]): string[] {
  return err.issues.map((i) => {
    const p = [...prefix, ...i.path.filter((s): s is string | number => typeof s !== 'symbol')];
    return `${formatPath(p)}: ${i.message}`;
  });
}

const VAR = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** `${VAR}` and `${VAR:-default}` in every string value, as the config loader does. */
function interpolate(
  node: unknown,
  env: Readonly<Record<string, string | undefined>>,
  p: (string | number)[],
  problems: string[],
): Record<string, unknown> {
  const walk = (v: unknown, at: (string | number)[]): unknown => {
    if (typeof v === 'string')
      return v.replace(VAR, (match, name: string | undefined, def: string | undefined) => {
        if (match === '$${') return '${';
        const value = env[name!];
        if (value !== undefined && value !== '') return value;
        if (def !== undefined) return def;
        problems.push(`${formatPath(at)}: environment variable ${name} is not set`);
        return '';
      });
    if (Array.isArray(v)) return v.map((x, i) => walk(x, [...at, i]));
    if (v !== null && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, [...at, k])]));
    return v;
  };
  return walk(node, p) as Record<string, unknown>;
}

const SECRET_FIELDS = ['password', 'secret', 'bearer_token'] as const;

/** Reads each `<field>_file` into `<field>`, as the config loader does. */
async function readSecretFiles(
  node: unknown,
  p: (string | number)[],
  baseDir: string,
  secrets: string[],
  problems: string[],
): Promise<void> {
  if (Array.isArray(node)) {
    for (const [i, v] of node.entries()) await readSecretFiles(v, [...p, i], baseDir, secrets, problems);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const obj = node as Record<string, unknown>;
  for (const key of SECRET_FIELDS) {
    const f = obj[`${key}_file`];
    if (typeof f !== 'string' || f === '') continue;
    if (obj[key] !== undefined) {
      problems.push(`${formatPath([...p, `${key}_file`])}: set either ${key} or ${key}_file, not both`);
      continue;
    }
    try {
      const value = (await readFile(path.resolve(baseDir, f), 'utf8')).trim();
      if (value === '') problems.push(`${formatPath([...p, `${key}_file`])}: file ${f} is empty`);
      obj[key] = value;
      secrets.push(value);
    } catch (err) {
      problems.push(
        `${formatPath([...p, `${key}_file`])}: cannot read ${f}: ${(err as NodeJS.ErrnoException).code}`,
      );
    }
  }
  for (const [k, v] of Object.entries(obj)) await readSecretFiles(v, [...p, k], baseDir, secrets, problems);
}

function collectSecrets(node: unknown, into: string[]): void {
  if (node === null || typeof node !== 'object') return;
  for (const [k, v] of Object.entries(node)) {
    if ((SECRET_FIELDS as readonly string[]).includes(k) && typeof v === 'string') into.push(v);
    else collectSecrets(v, into);
  }
}
