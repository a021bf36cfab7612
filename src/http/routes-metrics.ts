/**
 * `/metrics`: the Prometheus text format, or OpenMetrics when the `Accept` header asks for
 * it; gzip when the scraper accepts it (a few thousand channels make a large page).
 */
import type { Readable } from 'node:stream';
import type { ExpositionFormat } from '../metrics/negotiate.js';
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
    const page = await metrics.render(ctx.headers.accept);
    const headers: Record<string, string> = {
      'content-type': page.contentType,
      vary: 'Accept, Accept-Encoding',
    };
    if (acceptsGzip(ctx.headers['accept-encoding'])) {
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
  if (!header) return false;
  let named: boolean | undefined;
  let any: boolean | undefined;
  for (const part of header.split(',')) {
    const [coding = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const allowed = q === undefined || Number(q.slice(2)) > 0;
    if (coding === 'gzip' || coding === 'x-gzip') named = (named ?? false) || allowed;
    else if (coding === '*') any = (any ?? false) || allowed;
  }
  return named ?? any ?? false;
}
