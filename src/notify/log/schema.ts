/**
 * Config of a console receiver (`receivers[].log`): prints each notification, for the
 * demo and for debugging routes.
 */
import { z } from 'zod';

/** A console receiver. */
export const logSinkSchema = z.strictObject({
  format: z
    .enum(['text', 'json'])
    .default('text')
    .meta({ description: 'text: a readable block per notification; json: tally payload v1, one line each.' }),
});

/** A validated console receiver config. */
export type LogSinkConfig = z.output<typeof logSinkSchema>;
