/**
 * `tally notify-test [--config PATH] [--receiver NAME]`: sends a test notification to
 * every receiver (or one), directly rather than through the outbox, and prints for each
 * whether it was accepted or exactly why not. Exit 0 when all succeeded, 1 when any
 * failed or the config is invalid, 2 on a usage mistake.
 */
import { systemClock } from '../core/clock.js';
import { loadConfigFile, resolveConfigPath } from '../config/load.js';
import { describeError } from '../core/errors.js';
import { scrub } from '../core/log.js';
import { DeliveryError } from '../notify/notifier.js';
import { deliveryId } from '../notify/outbox.js';
import { closeNotifiers, createNotifier } from '../notify/registry.js';
import type { DeliveryConfig, ReceiverConfig } from '../notify/schema.js';
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
  // notify-test reports to a person on stdout, so the console receiver writes its block.
  const notifier = createNotifier(r, { clock, console: io.stdout, consoleFormat: 'pretty' });
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

/** Reads the receivers and delivery settings through the config loader (every problem with its position). */
async function readNotifyConfig(
  file: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<NotifyConfig> {
  const { config, secrets } = await loadConfigFile(file, env);
  return {
    receivers: config.receivers,
    delivery: config.delivery,
    externalURL: config.server.external_url,
    secrets: secrets.filter((s) => s.length >= 4),
  };
}
