/**
 * The status page's style sheet and script, served by tally itself (the page's
 * Content-Security-Policy allows nothing inline and nothing from elsewhere).
 */

/** Light and dark (prefers-color-scheme), contrast at least 4.5:1 for text. */
export const STATUS_PAGE_CSS = `:root{color-scheme:light dark;--fg:#1b1f24;--muted:#57606a;--bg:#fff;--card:#f6f8fa;--line:#d0d7de;--ok:#116329;--warn:#7d4e00;--bad:#a40e26;--link:#0550ae}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9da7b3;--bg:#0d1117;--card:#161b22;--line:#30363d;--ok:#56d364;--warn:#e3b341;--bad:#ff7b72;--link:#79c0ff}}
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:0 auto;max-width:80rem;padding:0 1rem 3rem;color:var(--fg);background:var(--bg);line-height:1.45}
main:focus{outline:none}
a{color:var(--link)}a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible{outline:3px solid var(--link);outline-offset:2px}
h1{margin:1rem 0 0}h2{border-bottom:1px solid var(--line);padding-bottom:.25rem;margin-top:2rem}
bdi,code,td,dd{unicode-bidi:isolate}
.muted{color:var(--muted)}.ok{color:var(--ok)}.warn{color:var(--warn)}.bad{color:var(--bad)}
.orgs{display:grid;grid-template-columns:repeat(auto-fill,minmax(20rem,1fr));gap:1rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:6px;padding:.75rem 1rem}
.card h3{margin:.2rem 0 .5rem}.card dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem .75rem;margin:0}.card dt{color:var(--muted)}.card dd{margin:0;overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%;font-size:.95rem}th,td{text-align:left;vertical-align:top;padding:.35rem .5rem;border-bottom:1px solid var(--line)}
td code{color:var(--muted);font-size:.85em}
.badge{display:inline-block;padding:0 .4rem;border-radius:999px;border:1px solid currentColor;font-size:.85em}
.badge.live{color:var(--ok);font-weight:600}.badge.offline{color:var(--muted)}.badge.unknown{color:var(--warn)}
.filters{display:flex;flex-wrap:wrap;gap:.75rem;align-items:end;margin:.5rem 0}
.filters label{display:flex;flex-direction:column;font-size:.85rem;color:var(--muted)}
input,select,button{font:inherit;color:var(--fg);background:var(--bg);border:1px solid var(--line);border-radius:4px;padding:.25rem .5rem}
button{cursor:pointer}
nav{margin:.5rem 0}
`;

/**
 * Refreshes the main part every `data-refresh` ms (set by the server; 0: never) without a
 * full reload, skipped while a form field has the focus (what is typed would be lost) or
 * the tab is hidden. The focus survives the swap: the element that had it is found again
 * in the new content (by id, or by its section, tag, link or name and its place among its
 * like) and focused again, else the main part itself is, so a keyboard user is never sent
 * back to the top of the page. No live region: re-announcing the page every few seconds
 * would drown a screen reader. The server escapes everything it renders, so the fragment
 * is inserted as it comes.
 */
export const STATUS_PAGE_JS = `(() => {
  'use strict';
  const main = document.getElementById('main');
  const stamp = document.getElementById('refreshed');
  if (!main) return;
  const editing = () => {
    const a = document.activeElement;
    return a && main.contains(a) && (a.tagName === 'INPUT' || a.tagName === 'SELECT' || a.tagName === 'TEXTAREA');
  };
  const what = (el) => el.getAttribute('href') || el.getAttribute('name') || el.getAttribute('type') || '';
  const alike = (scope, tag, key) => Array.from(scope.querySelectorAll(tag)).filter((e) => what(e) === key);
  function focusKey() {
    const a = document.activeElement;
    if (!a || a === main || !main.contains(a)) return undefined;
    if (a.id) return { id: a.id };
    const section = a.closest('section');
    const key = what(a);
    return {
      section: section ? section.getAttribute('aria-labelledby') : null,
      tag: a.tagName.toLowerCase(),
      key: key,
      index: alike(section || main, a.tagName, key).indexOf(a),
    };
  }
  function refocus(k) {
    let el = null;
    if (k.id) el = document.getElementById(k.id);
    else {
      const scope = k.section
        ? main.querySelector('section[aria-labelledby="' + CSS.escape(k.section) + '"]')
        : main;
      if (scope) {
        const like = alike(scope, k.tag, k.key);
        el = like[Math.min(Math.max(k.index, 0), like.length - 1)] || null;
      }
    }
    (el && main.contains(el) ? el : main).focus({ preventScroll: true });
  }
  let busy = false;
  async function refresh() {
    if (busy || document.hidden || editing()) return;
    busy = true;
    const url = new URL(window.location.href);
    url.searchParams.set('fragment', '1');
    url.hash = '';
    try {
      const res = await fetch(url, { headers: { accept: 'text/html' }, credentials: 'same-origin' });
      if (!res.ok) return;
      const text = await res.text();
      if (editing()) return;
      const k = focusKey();
      main.innerHTML = text;
      if (k) refocus(k);
      if (stamp) stamp.textContent = 'updated ' + new Date().toLocaleTimeString();
    } catch (_) {
      if (stamp) stamp.textContent = 'update failed; retrying';
    } finally {
      busy = false;
    }
  }
  const raw = document.documentElement.dataset.refresh;
  const every = raw === undefined ? 10000 : Number(raw);
  if (every > 0) window.setInterval(refresh, Math.max(every, 1000));
  window.tallyRefresh = refresh;
})();
`;
