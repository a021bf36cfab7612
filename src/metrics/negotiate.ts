/**
 * Content negotiation for `/metrics`: the Prometheus text format by default, OpenMetrics
 * when the scraper's `Accept` header prefers it; gzip as the page is compressed.
 */
import { Registry } from 'prom-client';

/** The two exposition formats tally serves. */
export type ExpositionFormat = 'prometheus' | 'openmetrics';

/** Content type of each format. */
export const CONTENT_TYPES: Readonly<Record<ExpositionFormat, string>> = {
  prometheus: Registry.PROMETHEUS_CONTENT_TYPE,
  openmetrics: Registry.OPENMETRICS_CONTENT_TYPE,
};

/** OpenMetrics versions whose text tally's output satisfies. */
const OPENMETRICS_VERSIONS = new Set(['1.0.0', '0.0.1']);

/**
 * Picks the format from an `Accept` header: OpenMetrics when the client ranks it at least
 * as high as plain text (as Prometheus does when it prefers it), plain text otherwise.
 */
export function negotiate(accept: string | undefined): ExpositionFormat {
  if (!accept) return 'prometheus';
  let om = 0;
  let text = 0;
  for (const range of accept.split(',')) {
    const [type = '', ...params] = range.split(';').map((p) => p.trim());
    const opts = new Map(
      params.map((p) => {
        const eq = p.indexOf('=');
        return eq < 0 ? [p.toLowerCase(), ''] : [p.slice(0, eq).trim().toLowerCase(), p.slice(eq + 1).trim()];
      }),
    );
    const q = opts.has('q') ? Number(opts.get('q')) : 1;
    if (!Number.isFinite(q)) continue;
    const media = type.toLowerCase();
    if (media === 'application/openmetrics-text') {
      const version = opts.get('version');
      if (version === undefined || OPENMETRICS_VERSIONS.has(version)) om = Math.max(om, q);
    } else if (media === 'text/plain' || media === 'text/*' || media === '*/*') {
      text = Math.max(text, q);
    }
  }
  return om > 0 && om >= text ? 'openmetrics' : 'prometheus';
}
