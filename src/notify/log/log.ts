/**
 * The console sink: writes each notification to a stream (stdout, a buffer in tests)
 * either as one JSON log record — the same keys as tally's own log lines, so a JSON log
 * stream stays one object per line — or as a readable block for a terminal.
 */
import type { Writable } from 'node:stream';
import type { Notification } from '../../alerts/types.js';
import type { Clock } from '../../core/clock.js';
import { abortError, DeliveryError, type Notifier, type SendContext } from '../notifier.js';
import { formatTime, subjectLine } from '../summary.js';
import { alertView } from '../template-context.js';
import { tallyPayload } from '../webhook/payload.js';
import type { LogSinkConfig } from './schema.js';

/** The readable block of `n`: a header line, then one indented entry per alert. */
export function formatBlock(n: Notification): string {
  const lines = [`── ${subjectLine(n)} ── ${n.receiver} · ${formatTime(n.createdAt)}`];
  for (const a of n.alerts.map((a) => alertView(a))) {
    lines.push(`  ${a.status === 'firing' ? '●' : '○'} ${a.status.toUpperCase()}  ${a.summary}`);
    if (a.description) lines.push(`      ${a.description}`);
    const labels = a.labelList.map((l) => `${l.name}=${l.value}`).join(' ');
    if (labels) lines.push(`      ${labels}`);
    lines.push(
      a.status === 'firing' ? `      since ${a.startsAtText}` : `      ${a.startsAtText} → ${a.endsAtText}`,
    );
    if (a.generatorURL) lines.push(`      ${a.generatorURL}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The JSON log record of `n` at `now`: `level`, `time`, `component` and `msg` as in
 * tally's log, then the receiver, status, group key and tally payload v1. Each key once.
 */
export function logRecord(n: Notification, now: number): Record<string, unknown> {
  return {
    level: 'info',
    time: new Date(now).toISOString(),
    component: 'notification',
    receiver: n.receiver,
    status: n.status,
    group_key: n.groupKey,
    firing: n.alerts.filter((a) => alertView(a).status === 'firing').length,
    msg: subjectLine(n),
    notification: tallyPayload(n),
  };
}

/** What a {@link LogNotifier} needs besides its config and stream. */
export interface LogNotifierDeps {
  clock: Clock;
  /** How tally's own log on the same stream is written; decides the `auto` format. */
  streamFormat: 'json' | 'pretty';
}

/** Writes notifications to a stream. */
export class LogNotifier implements Notifier {
  readonly type = 'log' as const;
  readonly name: string;
  readonly #format: 'json' | 'text';
  readonly #out: Writable;
  readonly #clock: Clock;

  constructor(name: string, cfg: LogSinkConfig, out: Writable, deps: LogNotifierDeps) {
    this.name = name;
    this.#format = cfg.format === 'auto' ? (deps.streamFormat === 'json' ? 'json' : 'text') : cfg.format;
    this.#out = out;
    this.#clock = deps.clock;
  }

  /** Writes `n` once; resolves when the stream took it. */
  async send(n: Notification, ctx: SendContext): Promise<void> {
    const text =
      this.#format === 'json' ? `${JSON.stringify(logRecord(n, this.#clock.now()))}\n` : formatBlock(n);
    if (ctx.signal.aborted) throw abortError(ctx.signal, `log ${this.name}`);
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(abortError(ctx.signal, `log ${this.name}`));
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      this.#out.write(text, (err) => {
        ctx.signal.removeEventListener('abort', onAbort);
        if (err)
          reject(
            new DeliveryError(
              `log ${this.name}: write failed: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
              {
                reason: 'write',
                cause: err,
              },
            ),
          );
        else resolve();
      });
    });
  }
}
