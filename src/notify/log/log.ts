/**
 * The console sink: writes a readable block per notification to a stream (stdout in the
 * demo, a buffer in tests), or tally's JSON payload as one line.
 */
import type { Writable } from 'node:stream';
import type { Notification } from '../../alerts/types.js';
import { abortError, DeliveryError, type Notifier, type SendContext } from '../notifier.js';
import { formatTime, subjectLine } from '../summary.js';
import { alertView } from '../template-context.js';
import { tallyPayload } from '../webhook/payload.js';
import type { LogSinkConfig } from './schema.js';

/** The readable block of `n`: a header line, then one indented entry per alert. */
export function formatBlock(n: Notification): string {
  const lines = [`── ${subjectLine(n)} ── ${n.receiver} · ${formatTime(n.createdAt)}`];
  for (const a of n.alerts.map(alertView)) {
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

/** Writes notifications to a stream. */
export class LogNotifier implements Notifier {
  readonly type = 'log' as const;
  readonly name: string;
  readonly #cfg: LogSinkConfig;
  readonly #out: Writable;

  constructor(name: string, cfg: LogSinkConfig, out: Writable) {
    this.name = name;
    this.#cfg = cfg;
    this.#out = out;
  }

  /** Writes `n` once; resolves when the stream took it. */
  async send(n: Notification, ctx: SendContext): Promise<void> {
    const text = this.#cfg.format === 'json' ? `${JSON.stringify(tallyPayload(n))}\n` : formatBlock(n);
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
