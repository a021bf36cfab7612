/**
 * Reading a JSON request body with a size cap, for the routes that accept one
 * (silences, reload …). Too large → 413, not JSON → 415, unparsable → 400.
 */
import type { IncomingMessage } from 'node:http';
import { HttpError } from './reply.js';

/** Default cap on a request body. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Reads and parses the request body as JSON; an empty body is refused. */
export async function readJsonBody<T = unknown>(
  req: IncomingMessage,
  maxBytes = DEFAULT_MAX_BODY_BYTES,
): Promise<T> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (type !== 'application/json' && !type.endsWith('+json')) {
    throw new HttpError(
      415,
      'unsupported_media_type',
      'the body must be JSON (content-type: application/json)',
    );
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);

  const text = (await collect(req, maxBytes)).toString('utf8');
  if (text.trim() === '')
    throw new HttpError(400, 'bad_request', 'the body is empty; a JSON value is required');
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new HttpError(400, 'bad_request', `the body is not valid JSON: ${(err as Error).message}`);
  }
}

/**
 * Reads the body up to `maxBytes`. Past that it stops keeping data and rejects; the rest of
 * the upload is discarded and the 413 closes the connection, so the answer still reaches a
 * client that sent no length and the socket does not stay busy with its upload.
 */
function collect(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size <= maxBytes) {
        chunks.push(chunk);
        return;
      }
      over = true;
      chunks.length = 0;
      reject(tooLarge(maxBytes));
    });
    req.on('end', () => {
      if (!over) resolve(Buffer.concat(chunks));
    });
    req.on('error', reject);
  });
}

function tooLarge(maxBytes: number): HttpError {
  return new HttpError(413, 'payload_too_large', `the body is larger than ${maxBytes} bytes`, {
    connection: 'close',
  });
}
