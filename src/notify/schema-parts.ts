/**
 * Config field types the receivers share. A liquid template is checked for syntax when
 * the config is read, so a broken template is a config error with its path, not a
 * failed delivery.
 */
import { z } from 'zod';
import { templateSyntaxError } from './liquid.js';

/** A liquid template string, validated for syntax. */
export const liquidTemplate = (description: string) =>
  z
    .string()
    .min(1)
    .superRefine((src, ctx) => {
      const problem = templateSyntaxError(src);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: `invalid template: ${problem}` });
    })
    .meta({ description });

/** An http:// or https:// URL. */
export const httpUrl = () =>
  z.url({ protocol: /^https?$/, error: 'an http:// or https:// URL' }).meta({ format: 'uri' });

/**
 * An http:// or https:// URL without `user:password@`: a receiver's requests do not send
 * a URL's credentials, so they would pass `tally check` and fail every delivery with a
 * 401. `instead` says where credentials go.
 */
export const httpUrlWithoutCredentials = (instead: string) =>
  httpUrl().refine((u) => {
    if (!URL.canParse(u)) return true; // the URL check reports it
    const url = new URL(u);
    return url.username === '' && url.password === '';
  }, `must not carry a user or password: ${instead}`);

/** Extra HTTP headers; names are checked, values are sent as written. */
export const headerMap = () =>
  z
    .record(
      z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'an HTTP header name'),
      // RFC 9110 field values: visible characters, spaces and tabs; never CR, LF or NUL,
      // which would end the header or be refused at every delivery.
      z
        .string()
        .regex(/^[\t\x20-\x7e\x80-\xff]*$/, 'a header value: no CR, LF, NUL or other control characters'),
    )
    .meta({ description: 'Extra HTTP headers sent with every request.' });
