/**
 * zod types for the human units of the config file. They live apart from the root schema
 * so that every section's schema (alerts, delivery) can use them without an import cycle.
 */
import { z } from 'zod';
import { parseDuration, parseSize } from './units.js';

/** A duration such as `30s` or `1h30m`, parsed to milliseconds. */
export const duration = () =>
  z
    .string()
    .regex(/^(\d+(\.\d+)?(ms|s|m|h|d|w))+$|^0$/, 'a duration such as 30s, 5m, 1h30m or 7d')
    .transform((s) => parseDuration(s)!)
    .meta({ description: 'A duration: a number with a unit (ms, s, m, h, d, w), e.g. 30s, 5m, 1h30m.' });

/** A size such as `10MiB` or `512KB` (or a plain number of bytes), parsed to bytes. */
export const size = () =>
  z
    .union([
      z.number().int().positive(),
      z.string().regex(/^\d+(\.\d+)?\s*([kKmMgG]i?[bB]|[bB])?$/, 'a size such as 10MiB'),
    ])
    .transform((v) => (typeof v === 'number' ? v : parseSize(v)!))
    .meta({ description: 'A size in bytes, or with a unit: KB, MB, GB, KiB, MiB, GiB.' });
