/**
 * Config of an e-mail receiver (`receivers[].email`). The SMTP password is given inline
 * (`password`) or from a file (`password_file`); the loader reads the file into
 * `password` before validation.
 */
import { z } from 'zod';
import { liquidTemplate } from '../schema-parts.js';

/** `someone@example.com` or `Someone <someone@example.com>`. */
const address = () =>
  z
    .string()
    .regex(
      /^[^<>@\s]+@[^<>@\s]+$|^[^<>]*<[^<>@\s]+@[^<>@\s]+>$/,
      'an e-mail address, e.g. oncall@example.com or "On call <oncall@example.com>"',
    );

/** How the SMTP connection is secured. */
export const SMTP_TLS_MODES = ['starttls', 'implicit', 'none'] as const;

/** The SMTP server. */
export const smtpSchema = z
  .strictObject({
    host: z.string().min(1),
    port: z.int().min(1).max(65535).default(587),
    tls: z.enum(SMTP_TLS_MODES).default('starttls').meta({
      description:
        'starttls: plain connection upgraded with STARTTLS, which the server must offer (port 587); implicit: TLS from the first byte (port 465); none: never encrypt (local relays only).',
    }),
    reject_unauthorized: z
      .boolean()
      .default(true)
      .meta({ description: 'Refuse a server certificate that is not trusted. Turn off only for testing.' }),
    username: z.string().min(1).optional(),
    password: z.string().min(1).optional(),
    password_file: z.string().min(1).optional().meta({ description: 'File holding the SMTP password.' }),
    hello_name: z
      .string()
      .min(1)
      .optional()
      .meta({ description: 'Name sent with EHLO (default: the host name).' }),
  })
  .superRefine((s, ctx) => {
    if (s.username !== undefined && s.password === undefined && s.password_file === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['password'],
        message: 'password or password_file is required with username',
      });
    if (s.username === undefined && s.password !== undefined)
      ctx.addIssue({ code: 'custom', path: ['username'], message: 'username is required with a password' });
  });

/** An e-mail receiver. */
export const emailSchema = z.strictObject({
  to: z.array(address()).min(1).meta({ description: 'Recipients; each gets the same message.' }),
  from: address(),
  reply_to: address().optional(),
  smtp: smtpSchema,
  headers: z.record(z.string().regex(/^[A-Za-z0-9-]+$/, 'a header name'), z.string()).optional(),
  subject: liquidTemplate(
    'Liquid template of the subject (default: `[FIRING:2] AlertName (org=acme)`).',
  ).optional(),
  text: liquidTemplate('Liquid template of the plain-text body.').optional(),
  html: liquidTemplate('Liquid template of the HTML body (outputs are HTML-escaped).').optional(),
});

/** A validated e-mail receiver config. */
export type EmailConfig = z.output<typeof emailSchema>;
