/**
 * zod types for the human units of the config file. They live apart from the root schema
 * so that every section's schema (alerts, delivery) can use them without an import cycle.
 */
import { z } from 'zod';
import { parseDuration, parseSize } from './units.js';

/**
 * A duration such as `30s` or `1h30m`, parsed to milliseconds. `min` (a duration, e.g.
 * `1s`) is the least it may be: where 0 would make tally loop, flood a receiver or
 * never finish an attempt, the config says so instead of `tally check` passing it.
 */
export const duration = (opts: { min?: string } = {}) => {
  const text = z
    .string()
    .regex(/^(\d+(\.\d+)?(ms|s|m|h|d|w))+$|^0$/, 'a duration such as 30s, 5m, 1h30m or 7d');
  const least = opts.min === undefined ? undefined : parseDuration(opts.min);
  // Checked on the text, so that a problem quotes what was written ("0s"), not milliseconds.
  const checked = (
    least === undefined
      ? text
      : text.refine((s) => (parseDuration(s) ?? least) >= least, `at least ${opts.min}`)
  ).transform((s) => parseDuration(s)!);
  const at = opts.min === undefined ? '' : ` At least ${opts.min}.`;
  return checked.meta({
    description: `A duration: a number with a unit (ms, s, m, h, d, w), e.g. 30s, 5m, 1h30m.${at}`,
  });
};

/** A size such as `10MiB` or `512KB` (or a plain number of bytes), parsed to bytes. */
export const size = () =>
  z
    .union([
      z.number().int().positive(),
      z.string().regex(/^\d+(\.\d+)?\s*([kKmMgG]i?[bB]|[bB])?$/, 'a size such as 10MiB'),
    ])
    .transform((v) => (typeof v === 'number' ? v : parseSize(v)!))
    .meta({ description: 'A size in bytes, or with a unit: KB, MB, GB, KiB, MiB, GiB.' });
