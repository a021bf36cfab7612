/**
 * The e-mail sink: one message per notification to every recipient of the receiver,
 * over SMTP (STARTTLS, implicit TLS or plain), with optional authentication. The
 * `Message-ID` is derived from the delivery id, so a message sent twice after a crash
 * carries the same id and mail clients can fold the duplicates. Every later mail of an
 * alert group answers the one before it (`In-Reply-To`) and names the group's first
 * (`References`), so mail clients show a group — firing, updates, resolved — as one thread.
 *
 * A server may take a message for some recipients and refuse it for others (a mistyped
 * address: 550; a full mailbox: 452). That is no delivery: the attempt fails, naming each
 * refused recipient and the server's reply, retryable while any refusal is temporary, and
 * the next attempt goes to the recipients that have not taken it yet.
 */
import type { Mail } from 'nodemailer';
import type { Notification } from '../../alerts/types.js';
import { VERSION } from '../../core/version.js';
import { abortError, DeliveryError, type Notifier, type SendContext, transportError } from '../notifier.js';
import { deliveryId } from '../outbox.js';
import type { EmailConfig } from './schema.js';
import { EmailTemplates } from './templates.js';

/** Options of {@link EmailNotifier} beyond its config. */
export interface EmailNotifierOptions {
  /** Backstop for each SMTP stage (ms); the delivery worker's timeout normally ends an attempt first. */
  socketTimeoutMs?: number;
}

/** Sends notifications as e-mail. */
export class EmailNotifier implements Notifier {
  readonly type = 'email' as const;
  readonly name: string;
  readonly #cfg: EmailConfig;
  readonly #templates: EmailTemplates;
  /** Made at the first send: nodemailer is loaded only by a process that sends mail (about 10 MiB). */
  #transport: Promise<Mail> | undefined;
  readonly #transportOptions: Parameters<typeof import('nodemailer').createTransport>[0];
  readonly #where: string;
  /**
   * Recipients that took each message (by idempotency key) while others refused it, so a
   * retry goes to the others only. In memory: after a restart a retry goes to every
   * recipient again (the same Message-ID lets mail clients fold the copy).
   */
  readonly #tookIt = new Map<string, Set<string>>();

  constructor(name: string, cfg: EmailConfig, opts: EmailNotifierOptions = {}) {
    this.name = name;
    this.#cfg = cfg;
    this.#templates = new EmailTemplates(cfg);
    const smtp = cfg.smtp;
    const backstop = opts.socketTimeoutMs ?? 60_000;
    this.#where = `email ${name}: SMTP ${smtp.host}:${smtp.port}`;
    this.#transportOptions = {
      host: smtp.host,
      port: smtp.port,
      secure: smtp.tls === 'implicit',
      requireTLS: smtp.tls === 'starttls',
      ignoreTLS: smtp.tls === 'none',
      tls: { rejectUnauthorized: smtp.reject_unauthorized },
      ...(smtp.username !== undefined ? { auth: { user: smtp.username, pass: smtp.password ?? '' } } : {}),
      ...(smtp.hello_name !== undefined ? { name: smtp.hello_name } : {}),
      connectionTimeout: backstop,
      greetingTimeout: backstop,
      socketTimeout: backstop,
      // nodemailer would otherwise log through its own logger; tally logs in the delivery worker.
      logger: false,
    };
  }

  #transportNow(): Promise<Mail> {
    this.#transport ??= import('nodemailer').then((m) => m.default.createTransport(this.#transportOptions));
    return this.#transport;
  }

  /** Renders and sends the message of `n` once. */
  async send(n: Notification, ctx: SendContext): Promise<void> {
    let rendered: ReturnType<EmailTemplates['render']>;
    try {
      rendered = this.#templates.render(n);
    } catch (err) {
      throw new DeliveryError(
        `email ${this.name}: template failed: ${(err as Error).message.split('\n')[0]}`,
        {
          reason: 'template',
          retryable: false,
          cause: err,
        },
      );
    }
    const cfg = this.#cfg;
    const domain = domainOf(cfg.from);
    const thread = threadHeaders(n, domain);
    const key = ctx.idempotencyKey;
    const took = this.#tookIt.get(key);
    const to = took === undefined ? cfg.to : cfg.to.filter((r) => !took.has(bareAddress(r)));
    let info: SentInfo;
    try {
      info = (await (
        await this.#transportNow()
      ).sendMail({
        from: cfg.from,
        to,
        ...(cfg.reply_to !== undefined ? { replyTo: cfg.reply_to } : {}),
        subject: rendered.subject,
        text: rendered.text,
        html: rendered.html,
        messageId: `<${ctx.idempotencyKey}@${domain}>`,
        ...(thread ? { inReplyTo: thread.inReplyTo, references: thread.references } : {}),
        date: new Date(n.createdAt),
        headers: {
          ...cfg.headers,
          'X-Tally-Notification-Id': n.id,
          'X-Tally-Status': n.status,
          'Auto-Submitted': 'auto-generated',
          'X-Mailer': `tally/${VERSION}`,
        },
        signal: ctx.signal,
      })) as SentInfo;
    } catch (err) {
      throw this.#classify(err, ctx.signal);
    }
    this.#recipientsRefused(key, info);
  }

  /** Fails the attempt when the server refused the message for some recipients (see above). */
  #recipientsRefused(key: string, info: SentInfo): void {
    const refused = info.rejected ?? [];
    if (refused.length === 0) {
      this.#tookIt.delete(key);
      return;
    }
    const took = this.#tookIt.get(key) ?? new Set<string>();
    for (const a of info.accepted ?? []) took.add(bareAddress(String(a)));
    const errors = info.rejectedErrors ?? [];
    const codeOf = (r: string) => errors.find((e) => e.recipient === r)?.responseCode;
    const temporary = refused.some((r) => {
      const code = codeOf(String(r));
      return code === undefined || code < 500;
    });
    const what = refused
      .map((r) => {
        const e = errors.find((x) => x.recipient === r);
        return `${r}: ${this.#reply(e?.response ?? e?.message)}`;
      })
      .join('; ');
    const message = `${this.#where}: ${refused.length} of ${this.#cfg.to.length} recipients refused the message (${what})`;
    if (temporary) {
      this.#tookIt.set(key, took);
      // Bounded: entries of messages never retried to the end must not pile up.
      if (this.#tookIt.size > MAX_PARTIAL) this.#tookIt.delete(this.#tookIt.keys().next().value!);
      throw new DeliveryError(message, { reason: 'smtp_4xx' });
    }
    this.#tookIt.delete(key);
    throw new DeliveryError(message, { reason: 'smtp_5xx', retryable: false });
  }

  /** Closes the transport's connections. */
  async close(): Promise<void> {
    const transport = await this.#transport?.catch(() => undefined);
    transport?.close();
  }

  #classify(err: unknown, signal: AbortSignal): DeliveryError {
    if (err instanceof DeliveryError) return err;
    const e = err as { code?: string; responseCode?: number; response?: string };
    if (e.code === 'EABORT' || signal.aborted) return abortError(signal, this.#where);
    if (e.code === 'ETLS')
      return new DeliveryError(`${this.#where}: STARTTLS failed (does the server offer it?)`, {
        reason: 'tls',
        cause: err,
      });
    const status = e.responseCode;
    if (typeof status === 'number' && status >= 400) {
      const reply = this.#reply(e.response);
      if (status === 535 || status === 534 || status === 530)
        return new DeliveryError(`${this.#where}: authentication failed: ${reply}`, {
          reason: 'smtp_auth',
          retryable: false,
          cause: err,
        });
      // 421 closes the session; 503 means a bad command sequence. Either can go through on a new connection.
      if (status < 500 || status === 503)
        return new DeliveryError(`${this.#where}: temporary failure: ${reply}`, {
          reason: 'smtp_4xx',
          cause: err,
        });
      return new DeliveryError(`${this.#where}: rejected: ${reply}`, {
        reason: 'smtp_5xx',
        retryable: false,
        cause: err,
      });
    }
    if (e.code === 'EAUTH' || e.code === 'ENOAUTH')
      return new DeliveryError(`${this.#where}: authentication failed`, {
        reason: 'smtp_auth',
        retryable: false,
        cause: err,
      });
    if (e.code === 'EPROTOCOL')
      return new DeliveryError(`${this.#where}: unexpected reply from the server`, {
        reason: 'smtp_protocol',
        cause: err,
      });
    return transportError(socketCause(err), this.#where);
  }

  /** The server's reply, one line, without the password should a server echo it. */
  #reply(response: string | undefined): string {
    let text = (response ?? 'no reply').replace(/\s+/g, ' ').trim().slice(0, 200);
    const pass = this.#cfg.smtp.password;
    if (pass !== undefined && pass.length > 0) {
      text = text.split(pass).join('[REDACTED]');
      text = text.split(Buffer.from(pass).toString('base64')).join('[REDACTED]');
    }
    return text;
  }
}

/** Messages whose recipients tally follows at once (see EmailNotifier's #tookIt). */
const MAX_PARTIAL = 1000;

/** What nodemailer's SMTP transport says of a message it sent. */
interface SentInfo {
  accepted?: unknown[];
  rejected?: unknown[];
  rejectedErrors?: { recipient?: unknown; responseCode?: number; response?: string; message?: string }[];
}

/** `a@b.example` of `a@b.example` or `Name <a@b.example>`, lower-cased, as servers report it. */
function bareAddress(address: string): string {
  const m = /<([^>]+)>\s*$/.exec(address);
  return (m?.[1] ?? address).trim().toLowerCase();
}

/** The `Message-ID` tally gives the mail of notification `id` to `receiver`. */
export function messageIdOf(notificationId: string, receiver: string, domain: string): string {
  return `<${deliveryId(notificationId, receiver)}@${domain}>`;
}

/**
 * `In-Reply-To` (the group's previous mail) and `References` (its first, then the
 * previous) of a notification; undefined for a group's first mail. A notification id is
 * `<group>-<sequence>` (see the alert dispatcher), so earlier ids of the group are known
 * without keeping any state.
 */
export function threadHeaders(
  n: Notification,
  domain: string,
): { inReplyTo: string; references: string[] } | undefined {
  const m = /^(.+)-(\d+)$/.exec(n.id);
  if (!m || n.test) return undefined;
  const seq = Number(m[2]);
  if (!Number.isSafeInteger(seq) || seq <= 1) return undefined;
  const root = messageIdOf(`${m[1]}-1`, n.receiver, domain);
  const previous = messageIdOf(`${m[1]}-${seq - 1}`, n.receiver, domain);
  return { inReplyTo: previous, references: previous === root ? [root] : [root, previous] };
}

/** The domain of an address (`a@b.example` or `A <a@b.example>`), for the Message-ID. */
function domainOf(address: string): string {
  const m = /@([^>\s]+)>?\s*$/.exec(address);
  return m?.[1] ?? 'tally.invalid';
}

/**
 * nodemailer replaces a socket error's `code` with its own (`ESOCKET`) and keeps the
 * original only in the message; recover it so that refused, unreachable and TLS
 * failures get their own reasons.
 */
function socketCause(err: unknown): unknown {
  const e = err as { code?: string; message?: string };
  if (e.code !== 'ESOCKET' && e.code !== 'ECONNECTION' && e.code !== 'EDNS') return err;
  const message = e.message ?? '';
  const code =
    /\b(ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EPIPE)\b/.exec(
      message,
    )?.[1];
  if (code) return { code, cause: err };
  if (/certificate|ssl|tls|handshake/i.test(message)) return { code: 'ETLS', cause: err };
  return err;
}
