/**
 * A real SMTP server on loopback (smtp-server) that records each message, parsed with
 * postal-mime, and can be told to refuse, stall or require authentication and TLS.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import PostalMime, { type Email } from 'postal-mime';
import { SMTPServer } from 'smtp-server';

export interface SmtpBehaviour {
  /** Require AUTH with these credentials. */
  auth?: { user: string; pass: string };
  /** TLS from the first byte (implicit TLS). */
  secure?: boolean;
  /** Offer STARTTLS (on by default for a plain server). */
  starttls?: boolean;
  /** Certificate and key (PEM); smtp-server's built-in localhost pair when absent. */
  tls?: { key: string; cert: string };
  /** Answer DATA with this error instead of accepting. */
  rejectData?: { code: number; message: string };
  /** Wait this long before answering DATA. */
  dataDelayMs?: number;
  /** Answers RCPT TO for an address with this error (undefined: accept), asked anew each time. */
  refuseRecipient?: (address: string) => { code: number; message: string } | undefined;
}

export interface ReceivedMail {
  envelopeTo: string[];
  envelopeFrom: string;
  raw: string;
  parsed: Email;
  user: string | undefined;
  secure: boolean;
}

export interface SmtpSink {
  port: number;
  mails: ReceivedMail[];
  close(): Promise<void>;
}

export async function startSmtp(b: SmtpBehaviour = {}): Promise<SmtpSink> {
  const mails: ReceivedMail[] = [];
  const disabled: string[] = [];
  if (!b.auth) disabled.push('AUTH');
  if (b.starttls === false) disabled.push('STARTTLS');
  const server = new SMTPServer({
    secure: b.secure ?? false,
    ...(b.tls ? { key: b.tls.key, cert: b.tls.cert } : {}),
    logger: false,
    closeTimeout: 100,
    disabledCommands: disabled,
    authOptional: !b.auth,
    allowInsecureAuth: true,
    onAuth(auth, _session, cb) {
      if (b.auth && auth.username === b.auth.user && auth.password === b.auth.pass)
        cb(null, { user: auth.username });
      else cb(Object.assign(new Error('5.7.8 Authentication credentials invalid'), { responseCode: 535 }));
    },
    onRcptTo(address, _session, cb) {
      const refusal = b.refuseRecipient?.(address.address);
      if (refusal) cb(Object.assign(new Error(refusal.message), { responseCode: refusal.code }));
      else cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const finish = async () => {
          if (b.rejectData) {
            cb(Object.assign(new Error(b.rejectData.message), { responseCode: b.rejectData.code }));
            return;
          }
          const raw = Buffer.concat(chunks).toString('utf8');
          mails.push({
            envelopeTo: session.envelope.rcptTo.map((r) => r.address),
            envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            raw,
            parsed: await PostalMime.parse(raw),
            user: typeof session.user === 'string' ? session.user : undefined,
            secure: session.secure,
          });
          cb();
        };
        if (b.dataDelayMs) setTimeout(() => void finish(), b.dataDelayMs);
        else void finish();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    mails,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
      }),
  };
}

/** A port on loopback that nothing listens on (connection refused). */
export async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** A self-signed certificate for `localhost` made with openssl, or undefined when openssl is missing. */
export async function selfSignedCert(): Promise<{ key: string; cert: string } | undefined> {
  const dir = await mkdtemp(path.join(tmpdir(), 'tally-cert-'));
  try {
    await promisify(execFile)('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      path.join(dir, 'key.pem'),
      '-out',
      path.join(dir, 'cert.pem'),
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
    ]);
    return {
      key: await readFile(path.join(dir, 'key.pem'), 'utf8'),
      cert: await readFile(path.join(dir, 'cert.pem'), 'utf8'),
    };
  } catch {
    return undefined;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
