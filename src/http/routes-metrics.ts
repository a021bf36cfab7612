/**
 * `/metrics`: the Prometheus text format, or OpenMetrics when the `Accept` header asks for
 * it; gzip when the scraper accepts it (a few thousand channels make a large page).
 */
import { type ExpositionFormat, gzipPage } from '../metrics/negotiate.js';
import type { Router } from './router.js';

/** Below this size compressing costs more than it saves. */
const GZIP_MIN_BYTES = 1024;

/**
 * What `/metrics` needs: something that renders every metric for an `Accept` header, and
 * may hand over a gzip of the page it keeps (so a page served again is compressed once).
 */
export interface MetricsRenderer {
  render(accept: string | undefined): Promise<{
    format: ExpositionFormat;
    contentType: string;
    /** Text, or its UTF-8 bytes. */
    body: string | Buffer;
    gzip?: () => Promise<Buffer>;
    /** Holds `body` until the returned function is called (a body in a buffer used again). */
    hold?: () => () => void;
  }>;
}

/** Adds `/metrics`. */
export function addMetricsRoute(router: Router, metrics: MetricsRenderer): void {
  router.addRoute('GET', '/metrics', async (ctx) => {
    const page = await metrics.render(ctx.headers.accept);
    const { contentType, body } = page;
    const headers: Record<string, string> = { 'content-type': contentType, vary: 'Accept, Accept-Encoding' };
    if (Buffer.byteLength(body) >= GZIP_MIN_BYTES && acceptsGzip(ctx.headers['accept-encoding'])) {
      headers['content-encoding'] = 'gzip';
      // The gzip is a buffer of its own: the page is read only while it is made.
      return { status: 200, headers, body: await (page.gzip ? page.gzip() : gzipPage(body)) };
    }
    // Sent as it is, the page is read until the response is over.
    return { status: 200, headers, body, ...(page.hold ? { done: page.hold() } : {}) };
  });
}

/** Whether `Accept-Encoding` allows gzip (q > 0). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  return header.split(',').some((part) => {
    const [coding = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    if (coding !== 'gzip' && coding !== 'x-gzip') return false;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}
