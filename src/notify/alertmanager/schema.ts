/**
 * Config of an Alertmanager receiver (`receivers[].alertmanager`): tally pushes its
 * alerts to `/api/v2/alerts` of every URL, the way Prometheus does, and Alertmanager
 * groups, silences, routes and deduplicates them.
 */
import { z } from 'zod';
import { duration } from '../../core/zod-units.js';
import { headerMap, httpUrlWithoutCredentials } from '../schema-parts.js';

/** An Alertmanager receiver. */
export const alertmanagerSchema = z
  .strictObject({
    urls: z.array(httpUrlWithoutCredentials('give them as basic_auth or bearer_token')).min(1).meta({
      description:
        'Base URL of each Alertmanager (with its path prefix, if any); tally POSTs to <url>/api/v2/alerts of every one. List every member of a cluster.',
    }),
    resend_interval: duration({ min: '1s' }).prefault('1m').meta({
      description:
        'How often firing alerts are sent again. Firing alerts carry endsAt = now + 4 × this, so Alertmanager resolves them by itself when tally stops sending.',
    }),
    bearer_token: z.string().min(1).optional(),
    bearer_token_file: z.string().min(1).optional().meta({ description: 'File holding a bearer token.' }),
    basic_auth: z
      .strictObject({
        username: z.string().min(1),
        password: z.string().min(1).optional(),
        password_file: z.string().min(1).optional(),
      })
      .optional(),
    headers: headerMap().optional(),
  })
  .superRefine((a, ctx) => {
    if (a.basic_auth && a.basic_auth.password === undefined && a.basic_auth.password_file === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['basic_auth', 'password'],
        message: 'password or password_file is required',
      });
    if (a.basic_auth && (a.bearer_token !== undefined || a.bearer_token_file !== undefined))
      ctx.addIssue({
        code: 'custom',
        path: ['bearer_token'],
        message: 'set either basic_auth or bearer_token, not both',
      });
  });

/** A validated Alertmanager receiver config. */
export type AlertmanagerConfig = z.output<typeof alertmanagerSchema>;
