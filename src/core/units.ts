/**
 * Human units in config: durations (`30s`, `5m`, `1h30m`, `7d`) and sizes (`10MiB`).
 * Both are parsed to plain numbers (milliseconds, bytes) at load time.
 */

const DURATION_UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** Parses `1h30m`, `250ms`, `7d` to milliseconds; returns undefined when malformed. */
export function parseDuration(text: string): number | undefined {
  const s = text.trim();
  if (s === '0') return 0;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(s); m !== null; m = re.exec(s)) {
    total += Number(m[1]) * (DURATION_UNITS[m[2]!] ?? 0);
    matched = re.lastIndex;
  }
  return matched === s.length && matched > 0 ? Math.round(total) : undefined;
}

/** Formats milliseconds the way config writes them (`90s` → `1m30s`). */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  let rest = Math.round(ms / 1000);
  const parts: string[] = [];
  for (const [unit, secs] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    const n = Math.floor(rest / secs);
    if (n > 0) parts.push(`${n}${unit}`);
    rest -= n * secs;
  }
  return parts.join('');
}

const SIZE_UNITS: Record<string, number> = {
  b: 1,
  kb: 1000,
  mb: 1000 ** 2,
  gb: 1000 ** 3,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
};

/** Parses `512KiB`, `10MB`, `1048576` to bytes; returns undefined when malformed. */
export function parseSize(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  if (!m) return undefined;
  const unit = (m[2] ?? '').toLowerCase() || 'b';
  const mult = SIZE_UNITS[unit];
  return mult === undefined ? undefined : Math.round(Number(m[1]) * mult);
}
