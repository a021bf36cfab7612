/**
 * `/`: a small page linking tally's endpoints. Plain HTML with no external assets, and
 * relative links, so it works behind a reverse proxy under any path prefix.
 */
import type { StatusSource } from '../core/status.js';
import type { Router } from './router.js';

/** Adds `/`. */
export function addLandingRoute(router: Router, source: StatusSource, version: string): void {
  router.addRoute('GET', '/', () => ({
    status: 200,
    headers: { 'content-type': 'text/html; charset=utf-8' },
    body: landingPage(
      version,
      source.orgs().map((o) => o.slug),
    ),
  }));
}

/** The landing page's HTML. */
export function landingPage(version: string, orgs: readonly string[]): string {
  const link = (href: string, text: string, what: string) =>
    `<li><a href="${escapeHtml(href)}">${escapeHtml(text)}</a> — ${escapeHtml(what)}</li>`;
  const snapshots = [...orgs]
    .sort()
    .map((slug) =>
      link(`api/v1/snapshot/${encodeURIComponent(slug)}`, `api/v1/snapshot/${slug}`, `snapshot of ${slug}`),
    );
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>tally</title>
<style>body{font-family:system-ui,sans-serif;max-width:40em;margin:2em auto;padding:0 1em;line-height:1.5}code{font-size:.95em}</style>
</head>
<body>
<h1>tally</h1>
<p>Version ${escapeHtml(version)}. Watches organizations through the platform's read-only API.</p>
<ul>
${link('metrics', 'metrics', 'Prometheus metrics')}
${link('api/v1/status', 'api/v1/status', 'health, freshness, budget and plan')}
${link('api/v1/events', 'api/v1/events', 'recent change events')}
${snapshots.join('\n')}
${link('-/healthy', '-/healthy', 'liveness')}
${link('-/ready', '-/ready', 'readiness')}
</ul>
</body>
</html>
`;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
