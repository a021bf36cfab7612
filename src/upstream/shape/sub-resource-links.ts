/**
 * Where a session detail points to the sub-resources it does not hold
 * (docs/upstream-shapes.md, "Session detail"): HAL `_links.questions.href`, `links.questions`,
 * `questions_url` / `questionsHref`, a JSON:API relationship's `links.related`, OData's
 * `questions@odata.navigationLink`, or the sub-resource's own key holding a link. Names and
 * links only: whether a link may be followed (same origin) is the reader's business.
 */
import type { SubResource } from '../../snapshot/model.js';
import { getPath, isRecord, type JsonRecord } from './json.js';

/** Names a server may give each sub-resource besides its own (field-aliases.ts, `detail.*`). */
const NAMES: Readonly<Record<SubResource, readonly string[]>> = {
  questions: ['questions', 'qna', 'qa'],
  announcements: ['announcements', 'notices'],
  reactions: ['reactions'],
  speakers: ['speakers', 'hosts', 'panelists'],
  ai: ['ai'],
};

/** Keys of a link object that hold the address, in the order tried. */
const HREF_PATHS = ['href', 'related', 'related.href', 'links.related', 'links.related.href', 'url', 'self'];

/** Suffixes of a key naming a sub-resource's address (`questions_url`, `questionsHref`). */
const LINK_SUFFIXES = ['url', 'href', 'link', 'uri', 'odatanavigationlink'];

/** Lower case without separators: `questions_url`, `questionsUrl` and `Questions-URL` meet. */
function squash(key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** The address a value gives: a string, or an object with one under {@link HREF_PATHS}. */
function hrefOf(v: unknown): string | undefined {
  if (typeof v === 'string') return v.trim() === '' ? undefined : v.trim();
  if (!isRecord(v)) return undefined;
  for (const path of HREF_PATHS) {
    const h = getPath(v, path);
    if (typeof h === 'string' && h.trim() !== '') return h.trim();
  }
  return undefined;
}

/** A value that is itself a link: a path or an absolute http(s) URL. */
function looksLikeLink(v: string): boolean {
  return /^(\/|https?:\/\/)/i.test(v);
}

/**
 * The link of every sub-resource `bodies` point to (the detail as sent and as flattened),
 * as written (relative or absolute); the first found per sub-resource wins.
 */
export function subResourceLinks(...bodies: readonly JsonRecord[]): Map<SubResource, string> {
  const out = new Map<SubResource, string>();
  for (const [sub, names] of Object.entries(NAMES) as [SubResource, readonly string[]][]) {
    for (const body of bodies) {
      const link = linkIn(body, names);
      if (link !== undefined) {
        out.set(sub, link);
        break;
      }
    }
  }
  return out;
}

function linkIn(body: JsonRecord, names: readonly string[]): string | undefined {
  const squashed = new Set(names.map(squash));
  // `_links.questions`, `links.questions` (HAL, JSON:API's links object, plain).
  for (const holder of ['_links', 'links']) {
    const links = body[holder];
    if (!isRecord(links)) continue;
    for (const [key, v] of Object.entries(links)) if (squashed.has(squash(key))) return hrefOf(v);
  }
  for (const [key, v] of Object.entries(body)) {
    const k = squash(key);
    // `questions_url`, `questionsHref`, `questions@odata.navigationLink`.
    for (const name of squashed) {
      if (k.startsWith(name) && LINK_SUFFIXES.includes(k.slice(name.length))) {
        const h = hrefOf(v);
        if (h !== undefined) return h;
      }
    }
    if (!squashed.has(k)) continue;
    // The sub-resource's own key holding a link, or a relationship with links only.
    if (typeof v === 'string' && looksLikeLink(v.trim())) return v.trim();
    if (isRecord(v) && !Array.isArray(v['data']) && !Array.isArray(v['items'])) {
      const h = hrefOf(isRecord(v['links']) ? v['links'] : v) ?? hrefOf(v['_links']);
      if (h !== undefined) return h;
    }
  }
  // A JSON:API resource not flattened: `relationships.questions.links.related`.
  const rel = body['relationships'];
  return isRecord(rel) ? linkIn(rel, names) : undefined;
}
