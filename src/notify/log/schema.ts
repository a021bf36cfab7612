/**
 * Config of a console receiver (`receivers[].log`): writes each notification to tally's
 * stdout, for the demo, for debugging routes, and for log pipelines that alert from logs.
 */
import { z } from 'zod';

/** A console receiver. */
export const logSinkSchema = z.strictObject({
  format: z.enum(['auto', 'json', 'text']).default('auto').meta({
    description:
      'json: one JSON log record per notification (tally payload v1 under `notification`), like every other line of a JSON log; text: a readable block per notification (for a terminal; it breaks a JSON log stream); auto: json when tally logs JSON, text when it logs pretty lines.',
  }),
});

/** A validated console receiver config. */
export type LogSinkConfig = z.output<typeof logSinkSchema>;
