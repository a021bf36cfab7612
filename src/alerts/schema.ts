/**
 * Config schema fragments of the alert layer: `rules`, `route`, `silences`, `maintenance`
 * and `inhibit`, in the shape of Prometheus rules and Alertmanager routing. Every object
 * is strict. Rules are compiled while the config is validated, so a CEL or template error
 * is reported with the rule's YAML path and its place inside the expression.
 */
import { Cron } from 'croner';
import { z } from 'zod';
import { duration } from '../core/zod-units.js';
import { EVENT_KINDS } from '../snapshot/events.js';
import { isLabelName, parseMatcher } from './matchers.js';
import { checkRule, RESERVED_LABELS } from './rules.js';

/** An ISO 8601 time with an offset, parsed to milliseconds since the epoch. */
const isoTime = () =>
  z.iso
    .datetime({ offset: true, error: 'an ISO 8601 time with a zone, e.g. 2026-12-01T00:00:00Z' })
    .transform((s) => Date.parse(s))
    .meta({ description: 'An ISO 8601 time with a zone, e.g. 2026-12-01T00:00:00Z.' });

/** One Alertmanager-style matcher string, e.g. `org = "acme"` or `alertname =~ "channel_.*"`. */
export const matcherSchema = z
  .string()
  .superRefine((s, ctx) => {
    try {
      parseMatcher(s);
    } catch (err) {
      ctx.addIssue({ code: 'custom', input: undefined, message: (err as Error).message });
    }
  })
  .meta({ description: 'A label matcher: name, operator (=, !=, =~, !~) and a quoted value.' });

const labelName = z.string().refine(isLabelName, 'a label name of letters, digits and _');

const eventPattern = z
  .string()
  .refine(
    (s) =>
      s === '*' ||
      (EVENT_KINDS as readonly string[]).includes(s) ||
      (s.endsWith('.*') && EVENT_KINDS.some((k) => k.startsWith(s.slice(0, -1)))),
    { message: `an event kind such as session.started or channel.*; kinds: ${EVENT_KINDS.join(', ')}` },
  )
  .meta({ description: 'An event kind, `<entity>.*` for all kinds of an entity, or `*`.' });

/** One alert rule: an event rule (`on`) or a condition rule (`for_each`). */
export const ruleSchema = z
  .strictObject({
    name: z
      .string()
      .regex(/^[a-z0-9_]+$/, 'lower-case letters, digits and _')
      .meta({ description: 'Unique rule name; the `alertname` label.' }),
    on: z
      .union([eventPattern, z.array(eventPattern).min(1)])
      .optional()
      .meta({ description: 'Event rule: the event kind(s) it fires on.' }),
    for_each: z
      .enum(['org', 'channel', 'session', 'member'])
      .optional()
      .meta({ description: 'Condition rule: the entity the condition is evaluated for.' }),
    when: z.string().min(1).optional().meta({ description: 'CEL condition (optional for event rules).' }),
    value: z
      .string()
      .min(1)
      .optional()
      .meta({ description: 'CEL expression whose result templates see as {{ value }}.' }),
    for: duration().optional().meta({ description: 'Condition rules: pending until it held this long.' }),
    keep_firing_for: duration()
      .optional()
      .meta({ description: 'Condition rules: keep firing this long after the condition cleared.' }),
    resolve_after: duration()
      .optional()
      .meta({ description: 'Event rules: resolve this long after the event (default 5m).' }),
    resolve_on: z
      .union([eventPattern, z.array(eventPattern).min(1)])
      .optional()
      .meta({ description: 'Event rules: resolve early on one of these events for the same entity.' }),
    severity: z
      .string()
      .regex(/^[a-z][a-z0-9_]*$/, 'a lower-case word')
      .default('warning'),
    labels: z.record(labelName, z.string()).optional().meta({ description: 'Extra labels (templates).' }),
    annotations: z
      .record(labelName, z.string())
      .optional()
      .meta({ description: 'Annotations such as summary and description (templates).' }),
    generator_url: z.string().optional().meta({
      description:
        "Each alert's link (a template), e.g. a Grafana dashboard; default: the alert in tally's API under server.external_url.",
    }),
    send_resolved: z.boolean().optional().meta({
      description: 'Notify when resolved (default true for condition rules, false for event rules).',
    }),
    repeat_interval: duration().optional().meta({ description: "Overrides the route's repeat_interval." }),
    inhibitable: z.boolean().optional().meta({
      description:
        "Muted while the org's upstream is down (default: true, except for rules about the upstream itself).",
    }),
  })
  .superRefine((rule, ctx) => {
    for (const p of checkRule(rule)) {
      ctx.addIssue({
        code: 'custom',
        input: undefined,
        message: p.message,
        path: p.path,
        ...(p.expression ? { params: { expression: p.expression } } : {}),
      });
    }
    for (const k of Object.keys(rule.labels ?? {})) {
      if (RESERVED_LABELS.has(k)) {
        ctx.addIssue({
          code: 'custom',
          input: undefined,
          message: `${k} is set by tally`,
          path: ['labels', k],
        });
      }
    }
  });

/** The rule list; names are unique. */
export const rulesSchema = z
  .array(ruleSchema)
  .superRefine((rules, ctx) => {
    const seen = new Map<string, number>();
    rules.forEach((r, i) => {
      const prev = seen.get(r.name);
      if (prev !== undefined) {
        ctx.addIssue({
          code: 'custom',
          input: undefined,
          message: `duplicate of rules[${prev}].name`,
          path: [i, 'name'],
        });
      } else seen.set(r.name, i);
    });
  })
  .meta({ description: 'Alert rules.' });

/** A node of the routing tree; children inherit what they do not set. */
export const routeSchema = z
  .strictObject({
    receiver: z.string().min(1).optional().meta({ description: 'Receiver name (inherited when absent).' }),
    matchers: z.array(matcherSchema).optional(),
    group_by: z
      .array(z.string().refine((s) => s === '...' || isLabelName(s), 'a label name or ...'))
      .optional()
      .meta({
        description: "Labels that form a group; ['...'] groups by all labels. Default [org, alertname].",
      }),
    group_wait: duration().optional().meta({ description: 'Wait before a new group is first sent (30s).' }),
    group_interval: duration({ min: '1s' })
      .optional()
      .meta({ description: 'Wait before changes to a group are sent (5m).' }),
    repeat_interval: duration({ min: '1s' })
      .optional()
      .meta({ description: 'Resend a still-firing group after this (4h).' }),
    continue: z
      .boolean()
      .default(false)
      .meta({ description: 'Keep matching sibling routes after this one.' }),
    get routes() {
      return z.array(routeSchema).optional();
    },
  })
  .meta({ description: 'A route: matchers select alerts, the receiver gets them, grouped.' });

/** The root route: it must name a receiver and has no matchers. */
export const rootRouteSchema = routeSchema.superRefine((r, ctx) => {
  if (r.receiver === undefined)
    ctx.addIssue({ code: 'custom', input: undefined, message: 'required', path: ['receiver'] });
  if (r.matchers !== undefined && r.matchers.length > 0) {
    ctx.addIssue({
      code: 'custom',
      input: undefined,
      message: 'the root route matches every alert',
      path: ['matchers'],
    });
  }
});

/** A silence written in the config. */
export const silenceConfigSchema = z
  .strictObject({
    id: z.string().min(1).optional().meta({ description: 'Stable id (default: derived from the content).' }),
    matchers: z.array(matcherSchema).min(1),
    starts_at: isoTime(),
    ends_at: isoTime(),
    created_by: z.string().min(1),
    comment: z.string().min(1),
  })
  .superRefine((s, ctx) => {
    if (s.ends_at <= s.starts_at) {
      ctx.addIssue({
        code: 'custom',
        input: undefined,
        message: 'must be after starts_at',
        path: ['ends_at'],
      });
    }
  });

/** A maintenance window: one-off (`starts_at`/`ends_at`) or recurring (`schedule` + `duration`). */
export const maintenanceSchema = z
  .strictObject({
    name: z.string().regex(/^[a-zA-Z0-9_.-]+$/, 'letters, digits, _ . -'),
    matchers: z.array(matcherSchema).optional().meta({ description: 'Alerts muted (default: all).' }),
    starts_at: isoTime().optional(),
    ends_at: isoTime().optional(),
    schedule: z.string().min(1).optional().meta({ description: 'Cron expression of each start.' }),
    duration: duration({ min: '1s' }).optional().meta({ description: 'Length of each recurring window.' }),
    time_zone: z.string().min(1).default('UTC').meta({ description: 'IANA time zone of the schedule.' }),
  })
  .superRefine((m, ctx) => {
    const once = m.starts_at !== undefined || m.ends_at !== undefined;
    const recurring = m.schedule !== undefined || m.duration !== undefined;
    if (once === recurring) {
      ctx.addIssue({
        code: 'custom',
        input: undefined,
        message: 'set either starts_at and ends_at, or schedule and duration',
      });
      return;
    }
    if (once) {
      if (m.starts_at === undefined)
        ctx.addIssue({ code: 'custom', input: undefined, message: 'required', path: ['starts_at'] });
      else if (m.ends_at === undefined)
        ctx.addIssue({ code: 'custom', input: undefined, message: 'required', path: ['ends_at'] });
      else if (m.ends_at <= m.starts_at) {
        ctx.addIssue({
          code: 'custom',
          input: undefined,
          message: 'must be after starts_at',
          path: ['ends_at'],
        });
      }
      return;
    }
    if (m.schedule === undefined)
      ctx.addIssue({ code: 'custom', input: undefined, message: 'required', path: ['schedule'] });
    if (m.duration === undefined)
      ctx.addIssue({ code: 'custom', input: undefined, message: 'required', path: ['duration'] });
    else if (m.duration <= 0)
      ctx.addIssue({ code: 'custom', input: undefined, message: 'must be positive', path: ['duration'] });
    if (!isTimeZone(m.time_zone)) {
      ctx.addIssue({
        code: 'custom',
        input: undefined,
        message: `unknown time zone ${m.time_zone}`,
        path: ['time_zone'],
      });
      return;
    }
    if (m.schedule !== undefined) {
      try {
        new Cron(m.schedule, { timezone: m.time_zone, paused: true });
      } catch (err) {
        ctx.addIssue({
          code: 'custom',
          input: undefined,
          message: `invalid cron: ${(err as Error).message}`,
          path: ['schedule'],
        });
      }
    }
  });

/** Whether a string names an IANA time zone this runtime knows. */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** Inhibition: what mutes what. */
export const inhibitSchema = z.strictObject({
  upstream: z.boolean().default(true).meta({
    description: "Mute an org's data alerts while its upstream is unreachable or refuses the token.",
  }),
});

/** The alert-layer fields of the config file, ready to spread into the root object. */
export const alertingFields = {
  rules: rulesSchema.default([]),
  route: rootRouteSchema.optional(),
  silences: z.array(silenceConfigSchema).default([]),
  maintenance: z
    .array(maintenanceSchema)
    .default([])
    .superRefine((ms, ctx) => {
      const seen = new Set<string>();
      ms.forEach((m, i) => {
        if (seen.has(m.name))
          ctx.addIssue({ code: 'custom', input: undefined, message: 'duplicate name', path: [i, 'name'] });
        seen.add(m.name);
      });
    }),
  inhibit: inhibitSchema.prefault({}),
};

/** The alert-layer sections as one object (what {@link alertingFields} parses to). */
export const alertingSchema = z.strictObject(alertingFields);

/** One validated rule. */
export type RuleConfig = z.output<typeof ruleSchema>;
/** One validated route node. */
export type RouteConfig = z.output<typeof routeSchema>;
/** One validated config silence. */
export type SilenceConfig = z.output<typeof silenceConfigSchema>;
/** One validated maintenance window. */
export type MaintenanceConfig = z.output<typeof maintenanceSchema>;
/** Validated inhibition options. */
export type InhibitConfig = z.output<typeof inhibitSchema>;
/** The validated alert-layer sections. */
export type AlertingConfig = z.output<typeof alertingSchema>;

/** Where each receiver name sits in a route tree (paths relative to `route`), for positioned errors. */
export function routeReceiverPaths(
  route: RouteConfig | undefined,
): { receiver: string; path: (string | number)[] }[] {
  const out: { receiver: string; path: (string | number)[] }[] = [];
  const walk = (r: RouteConfig, path: (string | number)[]) => {
    if (r.receiver !== undefined) out.push({ receiver: r.receiver, path: [...path, 'receiver'] });
    (r.routes ?? []).forEach((child, i) => {
      walk(child, [...path, 'routes', i]);
    });
  };
  if (route) walk(route, []);
  return out;
}

/** Every receiver name a route tree refers to, in order, once each (for checking against receivers). */
export function routeReceivers(route: RouteConfig | undefined): string[] {
  const out = new Set<string>();
  const walk = (r: RouteConfig) => {
    if (r.receiver !== undefined) out.add(r.receiver);
    for (const child of r.routes ?? []) walk(child);
  };
  if (route) walk(route);
  return [...out];
}
