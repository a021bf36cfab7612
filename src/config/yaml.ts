/**
 * The YAML step of loading a config: the text read into a document that keeps every
 * node's place in the file, so each problem can say `(line 12, column 5)`. Aliases that
 * cannot be expanded, and aliases that would expand without bound, are refused here.
 */
import {
  type Document,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseDocument,
  visit,
} from 'yaml';
import { ConfigError } from '../core/errors.js';

/** One step of a config path: a key or a list index. */
export type PathSeg = string | number;

/** ` (line L, column C)` for an offset in the text, or nothing when there is none. */
export type At = (offset: number | undefined) => string;

/** A config's YAML document, read without errors, and how to tell where an offset lies. */
export interface YamlText {
  doc: Document;
  at: At;
}

/** Reads config text as YAML; throws {@link ConfigError} for a syntax error or a bad alias. */
export function parseYaml(text: string, source: string): YamlText {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  const at: At = (offset) => {
    if (offset === undefined) return '';
    const { line, col } = lc.linePos(offset);
    return ` (line ${line}, column ${col})`;
  };
  const yamlProblems = [...doc.errors, ...doc.warnings].map(
    (e) => `invalid YAML: ${firstLine(e.message)}${at(e.pos[0])}`,
  );
  if (doc.errors.length > 0) throw new ConfigError(source, yamlProblems);
  const aliasProblems = badAliases(doc).map((a) => `invalid YAML: ${a.message}${at(a.offset)}`);
  if (aliasProblems.length > 0) throw new ConfigError(source, aliasProblems);
  return { doc, at };
}

/** The document as plain values (an empty document is `{}`), with aliases expanded within bounds. */
export function yamlValue({ doc, at }: YamlText, source: string): unknown {
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) ?? {};
  } catch (err) {
    // Aliases of aliases that expand past the limit (a "billion laughs" document).
    throw new ConfigError(source, [
      `invalid YAML: ${firstLine((err as Error).message).toLowerCase()}: aliases would expand to more than ${MAX_ALIAS_COUNT} nodes${at(firstNestedAlias(doc))}`,
    ]);
  }
}

/** Alias expansions a config may use; a config needs a handful, an attack needs millions. */
const MAX_ALIAS_COUNT = 100;

/** Where the first alias to a node that itself holds aliases is (where expansion multiplies). */
function firstNestedAlias(doc: Document): number | undefined {
  let first: number | undefined;
  let any: number | undefined;
  visit(doc, {
    Alias(_key, alias) {
      any ??= alias.range?.[0];
      const target = alias.resolve(doc);
      let nested = false;
      if (target) {
        visit(target as never, {
          Alias: () => {
            nested = true;
            return visit.BREAK;
          },
        });
      }
      if (nested && first === undefined) {
        first = alias.range?.[0];
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return first ?? any;
}

/**
 * Aliases that cannot be expanded: one whose anchor is not set before it, and one inside
 * the node its anchor names (a cycle, which would expand forever).
 */
function badAliases(doc: Document): { message: string; offset: number | undefined }[] {
  const out: { message: string; offset: number | undefined }[] = [];
  visit(doc, {
    Alias(_key, alias, ancestors) {
      const target = alias.resolve(doc);
      const offset = alias.range?.[0];
      if (target === undefined) {
        out.push({ message: `alias *${alias.source} has no anchor &${alias.source} before it`, offset });
      } else if (ancestors.includes(target as never)) {
        out.push({ message: `alias *${alias.source} refers to a node that contains it (a cycle)`, offset });
      }
    },
  });
  return out;
}

function firstLine(s: string): string {
  return s.split('\n')[0] ?? s;
}

/** Offset in the text of the node at `p` (or of its key), else of its nearest existing parent. */
export function nodeOffset(root: Node | null, p: readonly PathSeg[], key: boolean): number | undefined {
  let node: unknown = root;
  let best: number | undefined = (root as Node | null)?.range?.[0];
  for (let i = 0; i < p.length; i++) {
    const seg = p[i];
    if (isMap(node)) {
      const pair = node.items.find((it) => isScalar(it.key) && String(it.key.value) === String(seg));
      if (!pair) return best;
      const last = i === p.length - 1;
      if (last && key && isScalar(pair.key)) return pair.key.range?.[0];
      node = pair.value;
      best = (pair.value as Node | null)?.range?.[0] ?? (pair.key as Node | null)?.range?.[0] ?? best;
    } else if (isSeq(node) && typeof seg === 'number') {
      node = node.items[seg];
      if (node === undefined) return best;
      best = (node as Node).range?.[0] ?? best;
    } else {
      return best;
    }
  }
  return best;
}

/** The config path of a node from the ancestry `visit` hands over. */
export function pathOf(ancestry: readonly unknown[], node: unknown): PathSeg[] {
  const out: PathSeg[] = [];
  const chain = [...ancestry, node];
  for (let i = 0; i < chain.length - 1; i++) {
    const parent = chain[i];
    const child = chain[i + 1];
    if (isSeq(parent)) out.push(parent.items.indexOf(child as never));
    else if (isPair(child) && isScalar(child.key)) out.push(String(child.key.value));
  }
  return out;
}
