/** The document around the main part: head, header with the refresh switch, `<main>`. */
import { h, link } from './format.js';
import { DEFAULT_REFRESH_SECONDS, type PageQuery } from './query.js';

export function page(version: string, main: string, q: PageQuery, now: number): string {
  const every = q.refresh ?? DEFAULT_REFRESH_SECONDS;
  const { refresh: _, ...rest } = q;
  const filters = { ...rest, page: q.page === 1 ? undefined : q.page };
  // A way to stop the updates (and to start them again), for whoever they disturb.
  const toggle =
    every === 0
      ? `auto-refresh off (<a href="${h(link({ page: 1 }, filters))}">turn on</a>)`
      : `auto-refresh every ${h(every)}s (<a href="${h(link({ page: 1, refresh: 0 }, filters))}">stop</a>)`;
  return `<!doctype html>
<html lang="en" data-refresh="${h(every * 1000)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>tally — status</title>
<link rel="stylesheet" href="-/status-page.css">
<script src="-/status-page.js" defer></script>
</head>
<body>
<header>
<h1>tally</h1>
<p class="muted">version ${h(version)} · <span id="refreshed">rendered ${h(new Date(now).toISOString())}</span> · ${toggle} ·
<a href="api/v1/status">status API</a> · <a href="api/v1/events">events API</a> · <a href="metrics">metrics</a> · <a href="-/healthy">-/healthy</a> · <a href="-/ready">-/ready</a></p>
</header>
<main id="main" tabindex="-1">
${main}
</main>
</body>
</html>
`;
}
