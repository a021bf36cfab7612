/**
 * The webhook sink: one POST per notification with tally's JSON (version "1"), the
 * Alertmanager shape, a chat preset or a liquid template as the body. Signed with
 * Standard Webhooks headers when a secret is set; `webhook-id` and `Idempotency-Key`
 * carry the delivery id either way, so a receiver can drop the duplicates that
 * at-least-once delivery may bring.
 */
import type { Dispatcher } from 'undici';
import type { Notification } from '../../alerts/types.js';
import type { Clock } from '../../core/clock.js';
import { VERSION } from '../../core/version.js';
import { LazyAgent, postOnce, safeOrigin, urlSecrets } from '../http.js';
import { type CompiledTemplate, compileTemplate, createLiquid } from '../liquid.js';
import { DeliveryError, type Notifier, type SendContext } from '../notifier.js';
import { templateContext } from '../template-context.js';
import { alertmanagerWebhookPayload, tallyPayload } from './payload.js';
import { PRESETS } from './presets/index.js';
import type { WebhookConfig } from './schema.js';
import { signatureHeaders, signingKey } from './signing.js';

/** What HTTP sinks are built with. */
export interface HttpSinkDeps {
  clock: Clock;
  /** undici dispatcher to send through; by default the sink makes its own and closes it on close(). */
  dispatcher?: Dispatcher;
}

/** Sends notifications as HTTP POSTs. */
export class WebhookNotifier implements Notifier {
  readonly type = 'webhook' as const;
  readonly name: string;
  readonly #cfg: WebhookConfig;
  readonly #clock: Clock;
  /** A dispatcher given by the caller; else the sink's own, made at its first POST. */
  readonly #dispatcher: Dispatcher | undefined;
  readonly #own = new LazyAgent();
  readonly #template: CompiledTemplate | undefined;
  readonly #key: Buffer | undefined;
  readonly #where: string;
  readonly #secrets: string[];

  constructor(name: string, cfg: WebhookConfig, deps: HttpSinkDeps) {
    this.name = name;
    this.#cfg = cfg;
    this.#clock = deps.clock;
    this.#dispatcher = deps.dispatcher;
    this.#template = cfg.body_template ? compileTemplate(createLiquid(false), cfg.body_template) : undefined;
    this.#key = cfg.secret !== undefined ? signingKey(cfg.secret) : undefined;
    this.#where = `webhook ${name}: POST ${safeOrigin(cfg.url)}`;
    this.#secrets = [
      ...urlSecrets(cfg.url),
      ...Object.values(cfg.headers ?? {}).filter((v) => v.length >= 4),
      ...(cfg.secret !== undefined ? [cfg.secret] : []),
    ];
  }

  /** The request body of `n` (exported for docs and tests through {@link renderBody}). */
  renderBody(n: Notification): string {
    if (this.#template) return this.#template.render(templateContext(n));
    if (this.#cfg.preset) return JSON.stringify(PRESETS[this.#cfg.preset](n));
    if (this.#cfg.format === 'alertmanager') return JSON.stringify(alertmanagerWebhookPayload(n));
    return JSON.stringify(tallyPayload(n));
  }

  /** POSTs `n` once. */
  async send(n: Notification, ctx: SendContext): Promise<void> {
    let body: string;
    try {
      body = this.renderBody(n);
    } catch (err) {
      throw new DeliveryError(
        `webhook ${this.name}: template failed: ${(err as Error).message.split('\n')[0]}`,
        {
          reason: 'template',
          retryable: false,
          cause: err,
        },
      );
    }
    const now = this.#clock.now();
    const headers: Record<string, string> = {
      'content-type': this.#cfg.content_type,
      'user-agent': `tally/${VERSION}`,
      ...this.#cfg.headers,
      'idempotency-key': ctx.idempotencyKey,
      'webhook-id': ctx.idempotencyKey,
    };
    if (this.#key)
      Object.assign(headers, signatureHeaders(this.#key, ctx.idempotencyKey, Math.floor(now / 1000), body));
    await postOnce({
      url: this.#cfg.url,
      body,
      headers,
      signal: ctx.signal,
      dispatcher: this.#dispatcher ?? (await this.#own.get()),
      where: this.#where,
      secrets: this.#secrets,
      now,
    });
  }

  /** Closes the connections of the sink's own dispatcher. */
  async close(): Promise<void> {
    await this.#own.close();
  }
}
