/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): the receiver checks
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`
 * with the shared secret, and rejects stale timestamps to stop replays.
 *
 * The secret is written as the spec recommends, `whsec_<base64 key>` (the key is the
 * decoded bytes), or as any other string, whose UTF-8 bytes are the key.
 */
import { createHmac } from 'node:crypto';

const PREFIX = 'whsec_';

/** The HMAC key of a configured secret. */
export function signingKey(secret: string): Buffer {
  if (secret.startsWith(PREFIX)) {
    const b64 = secret.slice(PREFIX.length);
    if (/^[A-Za-z0-9+/]+={0,2}$/.test(b64) && b64.length % 4 === 0) return Buffer.from(b64, 'base64');
  }
  return Buffer.from(secret, 'utf8');
}

/** `v1,<signature>` over `id.timestamp.body`, the timestamp in whole seconds. */
export function sign(key: Buffer, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The three signature headers of one request. */
export function signatureHeaders(
  key: Buffer,
  id: string,
  timestampSeconds: number,
  body: string,
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': sign(key, id, timestampSeconds, body),
  };
}
