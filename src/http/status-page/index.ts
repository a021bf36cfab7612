/**
 * `/`: what tally sees right now, at a glance (docs/http-api.md, "GET /"). Server-rendered
 * HTML that works without JavaScript (filters are GET forms, long lists are paged); a
 * small script of tally's own refreshes the page's main part every few seconds without a
 * full reload. Everything from the upstream API (names, titles, speakers) is untrusted
 * and goes through one escaping function; the Content-Security-Policy allows no inline
 * script or style. Links are relative, so the page works behind a path prefix.
 */
import type { HttpReply } from '../reply.js';
import type { Router } from '../router.js';
import { STATUS_PAGE_CSS, STATUS_PAGE_JS } from '../status-page-assets.js';
import { page } from './layout.js';
import { parseQuery } from './query.js';
import { renderMain, type StatusPageDeps } from './render.js';

export type { OutboxView } from './alerts.js';
export { CHANGED_WINDOW_MS } from './changed.js';
export { CHANNELS_PER_PAGE } from './channels.js';
export { h } from './format.js';
export { DEFAULT_REFRESH_SECONDS, type PageQuery, parseQuery } from './query.js';
export type { StatusPageDeps } from './render.js';

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** Adds `/`, its script and its style sheet. */
export function addStatusPageRoutes(router: Router, deps: StatusPageDeps): void {
  router.addRoute('GET', '/', async (ctx) => {
    const query = parseQuery(ctx.query);
    const fragment = ctx.query.get('fragment') === '1';
    const main = await renderMain(deps, query);
    return html(fragment ? main : page(deps.version, main, query, deps.now()));
  });
  router.addRoute('GET', '/-/status-page.js', () => asset(STATUS_PAGE_JS, 'text/javascript; charset=utf-8'));
  router.addRoute('GET', '/-/status-page.css', () => asset(STATUS_PAGE_CSS, 'text/css; charset=utf-8'));
}

function html(body: string): HttpReply {
  return {
    status: 200,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    },
    body,
  };
}

function asset(body: string, type: string): HttpReply {
  return {
    status: 200,
    headers: { 'content-type': type, 'x-content-type-options': 'nosniff', 'cache-control': 'max-age=300' },
    body,
  };
}
