/**
 * Reactions of a session: `{ total, by_kind: { clap: 7 } }`, a map of kind → count,
 * an array of `{ kind|type|emoji, count }` (an entry without a count counts once), or
 * only a number. The count is the reported total when there is one, else the sum.
 */
import type { FieldKey } from './fields.js';
import { describeValue, getPath, isRecord, type JsonRecord } from './json.js';
import { parseNumber } from './numbers.js';
import { asAny, asCount, asText, type ReadContext, readField } from './read.js';
import { onlyPointsElsewhere } from './sub-resources.js';
import { splitWords } from './words.js';

const FIELD: FieldKey = 'detail.reactions';
const BY_KIND_KEYS = ['by_kind', 'kinds', 'by_type', 'breakdown', 'counts', 'types', 'items', 'data'];
const TOTAL_KEYS = ['total', 'count', 'total_count', 'sum'];

/** Reads the reactions of a session detail; undefined when the detail does not hold them. */
export function readReactions(
  ctx: ReadContext,
  raw: JsonRecord,
): { count: number; byKind: Record<string, number> } | undefined {
  const value = readField(ctx, raw, FIELD, asAny);
  // Only a link to the reactions: not in the detail (sub-resource-links.ts).
  if (onlyPointsElsewhere(value)) return undefined;
  const byKind = new Map<string, number>();
  let total: number | undefined;
  const n = parseNumber(value);
  if (n !== undefined) {
    if (n >= 0) total = Math.floor(n);
  } else if (Array.isArray(value)) {
    addList(ctx, value, byKind);
  } else if (isRecord(value)) {
    total = firstCount(value);
    const inner = BY_KIND_KEYS.map((k) => getPath(value, k)).find((v) => isRecord(v) || Array.isArray(v));
    if (Array.isArray(inner)) addList(ctx, inner, byKind);
    else if (isRecord(inner)) addMap(ctx, inner, byKind, new Set());
    else addMap(ctx, value, byKind, new Set(TOTAL_KEYS));
  } else if (value !== undefined) {
    ctx.drift.note(FIELD, `is ${describeValue(value)}, expected counts`);
  }
  const reported = readField(ctx, raw, 'detail.reactionsCount', asCount) ?? total;
  // Not in the detail: unknown, never 0.
  if (value === undefined && reported === undefined) return undefined;
  let sum = 0;
  for (const c of byKind.values()) sum += c;
  return { count: reported ?? sum, byKind: Object.fromEntries(byKind) };
}

/** A link beside the counts (GitHub's `reactions.url`): where they are, not a kind. */
function isLinkKey(key: string): boolean {
  return splitWords(key).some(
    (w) => w === 'url' || w === 'uri' || w === 'href' || w === 'link' || w === 'links',
  );
}

function addMap(
  ctx: ReadContext,
  o: JsonRecord,
  byKind: Map<string, number>,
  skip: ReadonlySet<string>,
): void {
  for (const [kind, v] of Object.entries(o)) {
    if (skip.has(kind.toLowerCase()) || isLinkKey(kind)) continue;
    // `{ clap: { count: 7 } }` as well as `{ clap: 7 }`.
    const c = parseNumber(isRecord(v) ? (getPath(v, 'count') ?? getPath(v, 'total')) : v);
    if (c !== undefined && c >= 0) byKind.set(kind, (byKind.get(kind) ?? 0) + Math.floor(c));
    else ctx.drift.note(FIELD, `'${kind}' is ${describeValue(v)}, expected a count`);
  }
}

function addList(ctx: ReadContext, list: unknown[], byKind: Map<string, number>): void {
  list.forEach((entry, i) => {
    if (typeof entry === 'string' && entry.trim() !== '') {
      byKind.set(entry.trim(), (byKind.get(entry.trim()) ?? 0) + 1);
      return;
    }
    if (!isRecord(entry)) {
      ctx.drift.note(FIELD, `entry [${i}] is ${describeValue(entry)}, expected an object`);
      return;
    }
    const kind = readField(ctx, entry, 'reaction.kind', asText);
    if (kind === undefined) {
      ctx.drift.note(FIELD, `entry [${i}] has no kind`);
      return;
    }
    const c = readField(ctx, entry, 'reaction.count', asCount) ?? 1;
    byKind.set(kind, (byKind.get(kind) ?? 0) + c);
  });
}

function firstCount(o: JsonRecord): number | undefined {
  for (const k of TOTAL_KEYS) {
    const n = parseNumber(getPath(o, k));
    if (n !== undefined && n >= 0) return Math.floor(n);
  }
  return undefined;
}
