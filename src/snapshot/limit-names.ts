/**
 * One name per limit (docs/upstream-shapes.md, "Subscription"): a server may name the same
 * limit `channels`, `max_channels`, `channels_limit` or, for its usage, `channels_used`,
 * `channels_in_use`. tally keeps the name without the words that only say "the most" or
 * "the used", so that a limit and its usage pair up (usage ratios, `usage_pct`) whatever
 * the server calls them. Stored snapshots are given the same names on load (upgrade.ts).
 */

/** Words around a limit's name that say it is the most allowed or the amount used. */
const QUANTIFIER_WORDS = new Set([
  'max',
  'maximum',
  'limit',
  'limits',
  'quota',
  'cap',
  'allowed',
  'allowance',
  'used',
  'usage',
  'current',
  'count',
  'in',
  'use',
]);

/** A snake_case limit name without its quantifier words (`max_channels` → `channels`); never empty. */
export function limitName(snake: string): string {
  const words = snake.split('_').filter((w) => w !== '');
  let i = 0;
  let j = words.length;
  while (j - i > 1 && QUANTIFIER_WORDS.has(words[i]!)) i++;
  while (j - i > 1 && QUANTIFIER_WORDS.has(words[j - 1]!)) j--;
  return words.length === 0 ? snake : words.slice(i, j).join('_');
}

/**
 * `named` with each name made a limit name; when two become one, the one named so already
 * (or else the first) keeps its value.
 */
export function withLimitNames(named: Readonly<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  const exact = new Set(Object.keys(named).filter((k) => limitName(k) === k));
  for (const [k, v] of Object.entries(named)) {
    const name = limitName(k);
    if (Object.hasOwn(out, name) && (exact.has(name) || k !== name)) continue;
    if (k !== name && exact.has(name)) continue;
    out[name] = v;
  }
  return out;
}
