/**
 * `/metrics`: the Prometheus text format, or OpenMetrics when the `Accept` header asks for
 * it; gzip when the scraper accepts it (a few thousand channels make a large page).
 */
import type { Readable } from 'node:stream';
import type { ExpositionFormat } from '../metrics/negotiate.js';
import { HttpError } from './reply.js';
import type { Router } from './router.js';

/**
 * What `/metrics` needs: something that renders every metric for an `Accept` header as a
 * gzipped page, and gives its text to a scraper that does not accept gzip.
 */
export interface MetricsRenderer {
  render(accept: string | undefined): Promise<{
    format: ExpositionFormat;
    contentType: string;
    /** The page gzipped. */
    gzip: Buffer;
    /** The length of the page as UTF-8 text. */
    size: number;
    /** The page as UTF-8 text, inflated as it is read. */
    stream(): Readable;
  }>;
}

/** Adds `/metrics`. */
export function addMetricsRoute(router: Router, metrics: MetricsRenderer): void {
  router.addRoute('GET', '/metrics', async (ctx) => {
    const encoding = ctx.headers['accept-encoding'];
    const gzip = acceptsGzip(encoding);
    if (!gzip && !acceptsIdentity(encoding)) {
      // RFC 9110, 12.5.3: the page is sent as it is or gzipped, and the header refuses both.
      throw new HttpError(
        406,
        'not_acceptable',
        `Accept-Encoding "${encoding}" refuses both gzip and identity`,
        {
          vary: 'Accept-Encoding',
        },
      );
    }
    const page = await metrics.render(ctx.headers.accept);
    const headers: Record<string, string> = {
      'content-type': page.contentType,
      vary: 'Accept, Accept-Encoding',
    };
    if (gzip) {
      headers['content-encoding'] = 'gzip';
      return { status: 200, headers, body: page.gzip };
    }
    // Inflated as it is sent: the page does not exist whole for a scraper without gzip either.
    return { status: 200, headers, body: { length: page.size, stream: () => page.stream() } };
  });
}
/**
 * Whether `Accept-Encoding` allows gzip (q > 0): named as `gzip` or `x-gzip`, or, when it
 * is not named, by `*` (RFC 9110, 12.5.3).
 */
export function acceptsGzip(header: string | undefined): boolean {
  return header ? allows(header, ['gzip', 'x-gzip'], false) : false;
}

/**
 * Whether `Accept-Encoding` allows the page without a coding: unless `identity;q=0`, or
 * `*;q=0` where identity is not named (RFC 9110, 12.5.3).
 */
export function acceptsIdentity(header: string | undefined): boolean {
  return header ? allows(header, ['identity'], true) : true;
}

/**
 * Whether a coding of `names` has q > 0 in `header`: as named, else as `*` allows it, else
 * `unnamed`.
 */
function allows(header: string, names: readonly string[], unnamed: boolean): boolean {
  let named: boolean | undefined;
  let any: boolean | undefined;
  for (const part of header.split(',')) {
    const [coding = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const allowed = q === undefined || Number(q.slice(2)) > 0;
    if (names.includes(coding)) named = (named ?? false) || allowed;
    else if (coding === '*') any = (any ?? false) || allowed;
  }
  return named ?? any ?? unnamed;
}
