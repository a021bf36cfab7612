/**
 * Config of a webhook receiver (`receivers[].webhook`). The signing secret is given
 * inline (`secret`) or from a file (`secret_file`); the loader reads the file into
 * `secret` before validation.
 */
import { z } from 'zod';
import { headerMap, httpUrlWithoutCredentials, liquidTemplate } from '../schema-parts.js';
import { PRESET_NAMES } from './presets/index.js';

/** Body formats of a webhook without a preset or template. */
export const WEBHOOK_FORMATS = ['tally', 'alertmanager'] as const;

/** Headers tally sets itself; config may not override them. */
export const RESERVED_HEADERS = [
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
  'idempotency-key',
  'content-length',
  'host',
  'transfer-encoding',
] as const;

/** A webhook receiver. */
export const webhookSchema = z
  .strictObject({
    url: httpUrlWithoutCredentials('send them in headers (e.g. Authorization)').meta({
      description: 'Where to POST. Redirects are not followed.',
    }),
    secret: z.string().min(1).optional().meta({
      description: 'Standard Webhooks signing secret: whsec_<base64>, or any string (its UTF-8 bytes).',
    }),
    secret_file: z.string().min(1).optional().meta({ description: 'File holding the signing secret.' }),
    preset: z
      .enum(PRESET_NAMES)
      .optional()
      .meta({ description: 'Body for a chat service: slack, discord or teams (Workflows, Adaptive Card).' }),
    format: z.enum(WEBHOOK_FORMATS).optional().meta({
      description:
        'Body format without a preset: tally (default, version "1") or alertmanager (version "4").',
    }),
    body_template: liquidTemplate(
      'Liquid template of the whole body; replaces preset and format.',
    ).optional(),
    content_type: z.string().min(1).default('application/json'),
    headers: headerMap().optional(),
  })
  .superRefine((w, ctx) => {
    const shapes = [w.preset && 'preset', w.format && 'format', w.body_template && 'body_template'].filter(
      Boolean,
    );
    if (shapes.length > 1)
      ctx.addIssue({ code: 'custom', path: [], message: `set only one of ${shapes.join(', ')}` });
    for (const name of Object.keys(w.headers ?? {})) {
      if ((RESERVED_HEADERS as readonly string[]).includes(name.toLowerCase()))
        ctx.addIssue({
          code: 'custom',
          path: ['headers', name],
          message: 'set by tally; cannot be overridden',
        });
    }
  });

/** A validated webhook receiver config. */
export type WebhookConfig = z.output<typeof webhookSchema>;
