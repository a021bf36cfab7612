/**
 * A small reader of the Prometheus text format for assertions on exact values.
 */

/** One sample line. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses every sample line of an exposition (comments skipped). */
export function parseSamples(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`unparsable sample line: ${line}`);
    const labels: Record<string, string> = {};
    const body = m[3] ?? '';
    const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
    for (let l = re.exec(body); l; l = re.exec(body)) {
      labels[l[1] as string] = (l[2] as string).replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    const raw = m[4] as string;
    out.push({
      name: m[1] as string,
      labels,
      value: raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw),
    });
  }
  return out;
}

/** The samples of one metric name whose labels include `match`. */
export function find(samples: readonly Sample[], name: string, match: Record<string, string> = {}): Sample[] {
  return samples.filter((s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v));
}

/** The value of the one sample of `name` with labels `match`; throws when there is not exactly one. */
export function value(samples: readonly Sample[], name: string, match: Record<string, string> = {}): number {
  const found = find(samples, name, match);
  if (found.length !== 1) {
    throw new Error(`expected one ${name}${JSON.stringify(match)}, found ${found.length}`);
  }
  return (found[0] as Sample).value;
}
