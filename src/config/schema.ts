/**
 * The configuration schema: one declaration gives tally's config types, defaults,
 * validation and the published JSON Schema (`schema/tally.schema.json`).
 *
 * Every object is strict (an unknown key is an error). Defaults sit next to their field.
 * Durations are written `30s`, `5m`, `1h30m`; sizes `10MiB`; both become numbers.
 */
import { z } from 'zod';
import { alertingFields, routeReceiverPaths } from '../alerts/schema.js';
import { deliverySchema, receiversSchema } from '../notify/schema.js';
import { PAGING_MODES } from './paging-modes.js';
import { parseShard } from './shard.js';
import { duration, size } from '../core/zod-units.js';

export { duration, size } from '../core/zod-units.js';

const httpUrl = () =>
  z.url({ protocol: /^https?$/, error: 'an http:// or https:// URL' }).meta({ format: 'uri' });

/** Fields a secret can be given by, inline or from a file (Docker/Kubernetes secrets). */
export const SECRET_KEYS = ['token', 'password', 'secret', 'bearer_token'] as const;

const shapeFieldKeys = z.record(z.string(), z.array(z.string()).min(1));

/** How to read responses whose shape the defaults do not fit. */
export const shapeSchema = z
  .strictObject({
    envelope: z
      .partialRecord(z.enum(['org', 'team', 'subscription', 'channels', 'sessions', 'session']), z.string())
      .optional()
      .meta({ description: 'Dot path to the list or object inside each endpoint response ("" = the root).' }),
    paging: z.enum(PAGING_MODES).default('auto'),
    cursor_param: z.string().min(1).default('cursor'),
    page_param: z.string().min(1).default('page'),
    per_page_param: z.string().min(1).default('per_page'),
    per_page: z.int().min(1).max(1000).optional().meta({
      description:
        'Page size to ask for (default 100, adapted to what the server takes); set, it is never changed.',
    }),
    fields: shapeFieldKeys
      .optional()
      .meta({ description: "Extra aliases per model field, e.g. { 'channel.status': [state] }." }),
  })
  .meta({ description: 'Response-shape overrides for a server whose shape the defaults do not fit.' });

/** Names and formats of the session-list filter parameters. */
export const filtersSchema = z.strictObject({
  status_param: z.string().min(1).default('status'),
  from_param: z.string().min(1).default('from'),
  to_param: z.string().min(1).default('to'),
  time_format: z.enum(['iso', 'epoch_s', 'epoch_ms']).default('iso'),
  status_separator: z.string().min(1).default(','),
  send_status: z.boolean().default(false).meta({
    description: 'Send the status filter on sweeps; off by default so every status is read.',
  }),
});

/** The upstream API: where it is and how hard tally may use it. */
export const upstreamSchema = z.strictObject({
  base_url: httpUrl()
    .refine((u) => {
      if (!URL.canParse(u)) return true; // the URL check above reports it
      const url = new URL(u);
      return url.username === '' && url.password === '';
    }, 'must not carry a user or password: the token is the only credential, given by orgs[].token or token_file')
    .refine((u) => !u.includes('?'), 'must not carry a query: tally builds every query itself')
    .refine((u) => !u.includes('#'), 'must not carry a fragment')
    .meta({ description: 'Base URL of the API; paths are /v1/{org}/…' }),
  budget_per_minute: z
    .int()
    .min(1)
    .max(300, 'at most 300: the API allows 300 requests per minute per IP')
    .default(240)
    .meta({ description: 'Requests per minute for the whole process (all orgs share one IP).' }),
  burst: z.int().min(1).max(300).default(20).meta({
    description:
      'Requests that may go out back to back; beyond it requests are spread evenly over the minute (a token bucket at budget_per_minute).',
  }),
  concurrency: z.int().min(1).max(64).default(4),
  timeouts: z
    .strictObject({
      connect: duration({ min: '100ms' }).prefault('5s'),
      headers: duration({ min: '100ms' }).prefault('10s'),
      body: duration({ min: '100ms' }).prefault('30s'),
    })
    .prefault({}),
  max_body_bytes: size().prefault('16MiB'),
  max_pages: z.int().min(1).default(500),
  retries: z
    .strictObject({
      attempts: z.int().min(1).max(10).default(4),
      base_delay: duration().prefault('500ms'),
      max_delay: duration().prefault('30s'),
      deadline: duration({ min: '1s' }).prefault('2m'),
    })
    .prefault({}),
  window: z
    .strictObject({
      past: duration().prefault('1d'),
      future: duration().prefault('7d'),
    })
    .prefault({})
    .meta({ description: 'Time range of session lists, relative to now.' }),
  shape: shapeSchema.prefault({}),
  filters: filtersSchema.prefault({}),
  user_agent: z.string().optional(),
});

/** One watched organization. */
export const orgSchema = z.strictObject({
  slug: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'a slug of letters, digits, dot, dash or underscore'),
  token: z.string().min(1).optional().meta({ description: 'API token (read access). Prefer token_file.' }),
  token_file: z.string().min(1).optional().meta({ description: 'File holding the API token.' }),
  token_expires_at: z.iso
    .datetime({ offset: true })
    .or(z.iso.date())
    .optional()
    .meta({ description: 'When the token expires (ISO 8601); enables the token-expiry metric and alert.' }),
  channels: z
    .strictObject({
      include: z.array(z.string().min(1)).optional(),
      exclude: z.array(z.string().min(1)).optional(),
    })
    .optional()
    .meta({ description: 'Channel filter by id or name; `*` matches any run of characters.' }),
  labels: z.record(z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/), z.string()).optional(),
  weight: z.number().min(0.1).max(100).default(1).meta({
    description:
      "The org's share of the session sweep when several orgs share the budget: staleness counts this much more (docs/polling.md).",
  }),
});

/** How often each resource is read. */
export const intervalsSchema = z.strictObject({
  org: duration({ min: '1s' }).prefault('10m'),
  team: duration({ min: '1s' }).prefault('5m'),
  subscription: duration({ min: '1s' }).prefault('5m'),
  channels: duration({ min: '1s' }).prefault('30s'),
  live_sessions: duration({ min: '1s' })
    .prefault('30s')
    .meta({ description: 'Session list of live or just-changed channels.' }),
  live_detail: duration({ min: '1s' }).prefault('1m').meta({ description: 'Detail of live sessions.' }),
  sweep: duration({ min: '1s' }).prefault('15m').meta({
    description:
      'Slowest acceptable time to read every channel’s sessions once; the sweep spends all spare budget and is usually much faster (the planner may need longer when the budget is short).',
  }),
  sweep_min: duration({ min: '1s' }).prefault('15s').meta({
    description:
      'Least time between two sweep reads of one channel’s sessions, so a small org is not read in a loop.',
  }),
  channels_min: duration({ min: '1s' }).prefault('15s').meta({
    description:
      'Least time between two reads of the channel list: a list that costs at most 5 % of the budget read this often (up to 3 pages at 240/min) is read at this interval, and budget nobody is waiting for reads a longer one before `channels` is due; equal to `channels`, the list is read only at its interval.',
  }),
  jitter: z.number().min(0).max(0.5).default(0.1).meta({ description: 'Random spread, as a fraction.' }),
});

/** Evidence before removal: when a read's removals are suspect and what confirms them. */
export const removalsSchema = z.strictObject({
  mass_share: z.number().gt(0).max(1).default(0.5).meta({
    description:
      'A read that loses at least this share of a list at once (and at least mass_min items) is suspect.',
  }),
  mass_min: z
    .int()
    .min(1)
    .default(3)
    .meta({ description: 'Items a read must lose at once to be suspect by its share.' }),
  confirm_reads: z.int().min(2).max(100).default(3).meta({
    description: 'Reads in a row that must miss the items of a suspect read before they are removed.',
  }),
  confirm_after: duration().prefault('2m').meta({ description: 'The least time those reads must span.' }),
});

/** The HTTP server: metrics, health and the JSON API. */
export const serverSchema = z.strictObject({
  listen: z
    .string()
    .regex(/^(\[[0-9a-fA-F:]+\]|[^:\s]*):\d{1,5}$/, 'host:port, e.g. 0.0.0.0:10464')
    .default('0.0.0.0:10464'),
  external_url: httpUrl().optional().meta({ description: 'URL under which users reach tally (for links).' }),
  auth: z
    .strictObject({
      bearer_token: z.string().min(1).optional(),
      bearer_token_file: z.string().min(1).optional(),
      basic: z
        .strictObject({
          username: z.string().min(1),
          password: z.string().min(1).optional(),
          password_file: z.string().min(1).optional(),
        })
        .optional(),
    })
    .optional()
    .meta({
      description:
        'Protects everything but /-/healthy and /-/ready; authenticated requests may also use the write endpoints.',
    }),
  ready_after_baseline: z.boolean().default(false).meta({
    description:
      'Hold /-/ready until every channel’s sessions have been read once (the first complete baseline), not only the org-level parts.',
  }),
  enable_writes: z.boolean().default(false).meta({
    description:
      'Let unauthenticated requests use the endpoints that change state (silences, /-/reload). Off by default: they answer 403 unless server.auth is set and its credentials are sent. `tally run --enable-writes` turns it on too.',
  }),
  metrics: z
    .strictObject({
      channel_series: z.int().min(0).default(20_000).meta({
        description:
          'Most series each per-channel family (tally_channel_status, tally_channel_sessions) exposes per scrape; channels past it (by org, then id) are left out and counted in tally_series_dropped_total. Read at start.',
      }),
      session_series: z.int().min(0).default(5_000).meta({
        description:
          'Most series each per-session family (tally_live_session_info, tally_session_*) exposes per scrape. Read at start.',
      }),
    })
    .prefault({})
    .meta({
      description: 'Caps on the series of /metrics for very large orgs (metrics.md, cardinality caps).',
    }),
  connections: z
    .strictObject({
      max: z.int().min(8).max(1_000_000).default(512).meta({
        description:
          'Most client connections held open at once. A new connection past it closes the oldest idle one (no request in flight), so idle sockets never keep /metrics or the probes out; when every one is busy, the new one is closed. Keep it well under the open-file limit (ulimit -n): the state directory needs descriptors too. Read at start.',
      }),
      headers_timeout: duration({ min: '1s' }).prefault('20s').meta({
        description: 'How long a client may take to send a request head.',
      }),
      request_timeout: duration({ min: '1s' }).prefault('60s').meta({
        description: 'How long a client may take to send a whole request.',
      }),
      keep_alive_timeout: duration({ min: '100ms' }).prefault('5s').meta({
        description: 'How long an idle keep-alive connection stays open after its last response.',
      }),
    })
    .prefault({})
    .meta({ description: 'Bounds on client connections of the HTTP server (http-api.md, "Connections").' }),
});

/** The state directory. */
export const stateSchema = z.strictObject({
  dir: z.string().min(1).default('./.tally-state'),
  events: z
    .strictObject({
      max_bytes: size().prefault('64MiB'),
      max_age: duration().prefault('30d'),
    })
    .prefault({}),
});

/** Logging. */
export const logSchema = z.strictObject({
  level: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
  format: z.enum(['auto', 'json', 'pretty']).default('auto'),
});

/** The whole configuration file. */
export const configSchema = z
  .strictObject({
    upstream: upstreamSchema,
    orgs: z.array(orgSchema).min(1, 'at least one organization'),
    intervals: intervalsSchema.prefault({}),
    removals: removalsSchema.prefault({}),
    server: serverSchema.prefault({}),
    state: stateSchema.prefault({}),
    log: logSchema.prefault({}),
    shard: z
      .string()
      .regex(/^\s*\d+\s*\/\s*\d+\s*$/, 'I/N, e.g. 1/3')
      .optional()
      .meta({
        description:
          'Take only a stable share of the orgs (by a hash of the slug): shard I of N, 1-based. `tally run --shard` overrides it.',
      }),
    ...alertingFields,
    receivers: receiversSchema.default([]),
    delivery: deliverySchema.prefault({}),
  })
  .superRefine((c, ctx) => {
    const shard = c.shard === undefined ? undefined : parseShard(c.shard);
    if (typeof shard === 'string')
      ctx.addIssue({ code: 'custom', input: undefined, path: ['shard'], message: shard });
    const known = new Set(c.receivers.map((r) => r.name));
    for (const { receiver, path } of routeReceiverPaths(c.route)) {
      if (!known.has(receiver)) {
        ctx.addIssue({
          code: 'custom',
          input: undefined,
          path: ['route', ...path],
          message: `no receiver named "${receiver}" (receivers: ${[...known].join(', ') || 'none'})`,
        });
      }
    }
    if (c.rules.length > 0 && !c.route && c.receivers.length > 0) {
      ctx.addIssue({
        code: 'custom',
        input: undefined,
        path: ['route'],
        message: 'rules and receivers need a route',
      });
    }
  })
  .meta({ title: 'tally configuration', description: 'Configuration of tally (YAML).' });

/** The validated configuration, defaults filled in, durations in ms, sizes in bytes. */
export type Config = z.output<typeof configSchema>;
/** One organization entry of {@link Config}. */
export type OrgConfig = Config['orgs'][number];
/** The configuration as written by the user. */
export type ConfigInput = z.input<typeof configSchema>;
