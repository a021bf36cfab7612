/**
 * Writes docs/configuration.md, the configuration reference, from the JSON Schema
 * (schema/tally.schema.json, itself generated from src/config/schema.ts): every key path
 * with its type, default and description. Where the schema has no description for a key,
 * the comment config.example.yaml gives it is used. `npm run docs:config`; a unit test
 * (test/deploy/config-docs.test.ts) fails when the committed file is out of date.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { isMap, isScalar, isSeq, type Node, parseDocument } from 'yaml';
import { ENV_REFERENCE_COMMENT } from '../src/config/json-schema.js';

/** Where the reference is committed. */
export const CONFIG_DOCS_PATH = 'docs/configuration.md';
/** The schema it is generated from. */
export const SCHEMA_PATH = 'schema/tally.schema.json';
/** The example whose comments fill in missing descriptions. */
export const EXAMPLE_PATH = 'config.example.yaml';

/** The part of JSON Schema that tally's schema uses. */
export interface JsonSchema {
  type?: string;
  description?: string;
  default?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minItems?: number;
  minLength?: number;
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
}

/**
 * Descriptions for keys whose schema has none (the schema's own description wins). Kept
 * here, next to the generator, until the schema describes them; a test checks every key
 * still exists.
 */
export const FALLBACK_DESCRIPTIONS: Readonly<Record<string, string>> = {
  upstream: 'The upstream API: where it is and how hard tally may use it.',
  'upstream.timeouts': 'Limits of one HTTP exchange.',
  'upstream.timeouts.connect': 'Time to open a connection (TCP and TLS).',
  'upstream.timeouts.headers': 'Time from sending a request until its response headers arrive.',
  'upstream.timeouts.body': 'Time to read a whole response body.',
  'upstream.retries': 'Retries of failed reads (timeouts, network errors, 5xx, 429).',
  'upstream.retries.attempts': 'Tries per request, the first one included.',
  'upstream.retries.base_delay': 'Backoff before the first retry; exponential with full jitter from here …',
  'upstream.retries.max_delay': '… up to this.',
  'upstream.retries.deadline': 'No retry starts after this much time since the first try.',
  'upstream.window.past': 'How far back session lists reach.',
  'upstream.window.future': 'How far ahead session lists reach (scheduled sessions).',
  'upstream.shape.paging': 'How lists are paged; `auto` recognizes Link headers, cursors and page numbers.',
  'upstream.shape.cursor_param': 'Query parameter that carries the cursor (cursor paging).',
  'upstream.shape.page_param': 'Query parameter that carries the page number (page paging).',
  'upstream.shape.per_page_param': 'Query parameter that carries the page size.',
  'upstream.shape.per_page': 'Page size tally asks for.',
  'upstream.filters': 'Names and formats of the session-list filter parameters.',
  'upstream.filters.status_param': 'Query parameter of the status filter.',
  'upstream.filters.from_param': 'Query parameter of the start of the time window.',
  'upstream.filters.to_param': 'Query parameter of the end of the time window.',
  'upstream.filters.time_format': 'How window times are written: ISO 8601, or Unix seconds or milliseconds.',
  'upstream.filters.status_separator': 'Separator between several statuses in one status filter.',
  'upstream.user_agent': 'User-Agent header (default `tally/<version>`).',
  orgs: 'The organizations to watch, each with its own token.',
  'orgs[].slug':
    'The organization as the API paths name it (`/v1/{slug}/…`); the `org` label of metrics and alerts.',
  'orgs[].channels.include': 'Only these channels (ids or names; `*` matches any run of characters).',
  'orgs[].channels.exclude': 'Not these channels, even when included.',
  'orgs[].labels': 'Extra labels for this org: on `tally_org_labels` and on its alerts.',
  intervals:
    'How often each resource is read; the planner stretches them when the budget is too small (polling.md).',
  removals:
    'Evidence before removal: when a read that drops items is suspect, and the reads that must confirm it (polling.md).',
  server: 'The HTTP server: metrics, health, readiness and the JSON API (http-api.md).',
  'server.listen': 'Address and port, `host:port` (`0.0.0.0` for every IPv4 interface, `[::]` for IPv6).',
  'server.auth.bearer_token':
    'A token that grants access (`Authorization: Bearer …`). Prefer bearer_token_file.',
  'server.auth.bearer_token_file': 'File holding the bearer token.',
  'server.auth.basic': 'HTTP basic authentication, accepted as well as the bearer token.',
  'server.auth.basic.username': 'User name.',
  'server.auth.basic.password': 'Password. Prefer password_file.',
  'server.auth.basic.password_file': 'File holding the password.',
  state: 'The state directory: snapshots, event log, outbox and alert state (state.md).',
  'state.dir':
    'Path of the state directory. When unset: the environment variable `TALLY_STATE_DIR` (set to `/var/lib/tally`, the volume, in the container image), else `./.tally-state`. One tally per directory.',
  'state.events': 'Retention of the event log.',
  'state.events.max_bytes':
    'Size the retained event log may reach; the oldest segments are dropped beyond it (0: no limit).',
  'state.events.max_age': 'Segments whose newest event is older than this are dropped (0: no limit).',
  log: 'Logging, to standard output.',
  'log.level': 'Lowest level logged; the environment variable `TALLY_LOG_LEVEL` overrides it.',
  'log.format': '`auto`: pretty on a terminal, else JSON lines.',
  'intervals.team': 'The member list.',
  'intervals.subscription': 'Plan, limits, usage and AI funding.',
  'rules[].severity': 'The `severity` label.',
  'route.matchers':
    'Label matchers an alert must all match, e.g. `severity = "critical"` (not on the root route).',
  'route.routes':
    'Child routes, tried in order; the first that matches takes the alert unless it has `continue`.',
  silences: 'Silences mute matching alerts for a time; more can be added through the API.',
  'silences[].matchers': 'Label matchers of the alerts muted.',
  'silences[].created_by': 'Who made the silence.',
  'silences[].comment': 'Why.',
  'maintenance[].name': 'Name of the window.',
  'receivers[].email': 'Send notifications by e-mail (SMTP).',
  'receivers[].email.from': 'Sender address.',
  'receivers[].email.reply_to': 'Reply-To address.',
  'receivers[].email.smtp': 'The SMTP server.',
  'receivers[].email.smtp.host': 'Host name of the SMTP server.',
  'receivers[].email.smtp.port': '587 for STARTTLS, 465 for implicit TLS, 25 for a local relay.',
  'receivers[].email.smtp.username': 'SMTP user (with a password, or neither).',
  'receivers[].email.smtp.password': 'SMTP password. Prefer password_file.',
  'receivers[].email.headers': 'Extra mail headers.',
  'receivers[].webhook':
    'POST notifications to an HTTP endpoint: tally JSON, Slack, Discord, Teams, Alertmanager’s shape or a template.',
  'receivers[].webhook.content_type': 'Content-Type of the body.',
  'receivers[].alertmanager': 'Push alerts to Alertmanager, which groups, routes and deduplicates them.',
  'receivers[].alertmanager.bearer_token':
    'Bearer token for an Alertmanager behind authentication. Prefer bearer_token_file.',
  'receivers[].alertmanager.basic_auth': 'Basic authentication for an Alertmanager behind it.',
  'receivers[].alertmanager.basic_auth.username': 'User name.',
  'receivers[].alertmanager.basic_auth.password': 'Password. Prefer password_file.',
  'receivers[].alertmanager.basic_auth.password_file': 'File holding the password.',
  'receivers[].log': 'Print notifications to standard output.',
  'delivery.backoff.base': 'The first retry comes within 0 to this, then within twice as long, and so on …',
  'delivery.backoff.max': '… never later than this.',
};

/** One documented key. */
export interface KeyDoc {
  path: string;
  type: string;
  default: string;
  required: boolean;
  description: string;
}

const DURATION_PATTERN = '^(\\d+(\\.\\d+)?(ms|s|m|h|d|w))+$|^0$';
const GENERIC = [/^A duration: /, /^A size in bytes/];

function isSize(s: JsonSchema): boolean {
  return (
    s.anyOf?.length === 2 &&
    s.anyOf.some((m) => m.type === 'integer') &&
    s.anyOf.some((m) => m.type === 'string' && (m.pattern ?? '').includes('[kKmMgG]'))
  );
}

function range(s: JsonSchema): string {
  const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? `>${s.exclusiveMinimum}` : undefined);
  const max = s.maximum !== undefined && s.maximum < Number.MAX_SAFE_INTEGER ? s.maximum : undefined;
  if (min !== undefined && max !== undefined) return `, ${min}–${max}`;
  if (min !== undefined) return typeof min === 'number' ? `, ≥ ${min}` : `, ${min}`;
  if (max !== undefined) return `, ≤ ${max}`;
  return '';
}

/** Renders a schema node's type in words: `duration`, `list of string`, `` `a` | `b` `` … */
export function typeOf(s: JsonSchema, refName: (ref: string) => string): string {
  if (s.$ref) return refName(s.$ref);
  if (isSize(s)) return 'size';
  if (s.anyOf) return [...new Set(s.anyOf.map((m) => typeOf(m, refName)))].join(' or ');
  if (s.const !== undefined) return `\`${JSON.stringify(s.const)}\``;
  if (s.enum) return s.enum.map((v) => `\`${String(v)}\``).join(' \\| ');
  switch (s.type) {
    case 'string':
      if (s.pattern === DURATION_PATTERN) return 'duration';
      if (s.format === 'uri') return 'URL';
      if (s.format === 'date-time') return 'date and time (ISO 8601)';
      if (s.format === 'date') return 'date (ISO 8601)';
      return 'string';
    case 'integer':
    case 'number':
      return `${s.type}${range(s)}`;
    case 'array':
      return `list of ${s.items ? typeOf(s.items, refName) : 'anything'}${s.minItems ? ` (at least ${s.minItems})` : ''}`;
    case 'object':
      if (s.properties) return 'object';
      if (typeof s.additionalProperties === 'object')
        return `map of ${typeOf(s.additionalProperties, refName)}`;
      return 'object';
    default:
      return s.type ?? 'any';
  }
}

function defaultOf(s: JsonSchema): string {
  if (s.default === undefined) return '';
  const v = s.default;
  // An empty object default only says "the section may be left out": its keys have their own.
  if (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0) return '';
  return `\`${typeof v === 'string' ? v : JSON.stringify(v)}\``;
}

function descriptionOf(s: JsonSchema): string {
  const own = s.description ?? s.anyOf?.find((m) => m.description)?.description ?? '';
  return GENERIC.some((g) => g.test(own)) ? '' : own;
}

/** `At least 1s.` when the generic description of a duration names its least value. */
function leastOf(s: JsonSchema): string {
  const own = s.description ?? s.anyOf?.find((m) => m.description)?.description ?? '';
  return /(At least [^.]+\.)$/.exec(own)?.[1] ?? '';
}

/** An example comment, unless it only lists the values an enum allows (the type says that). */
function usefulComment(comment: string | undefined, s: JsonSchema): string {
  if (!comment) return '';
  const values = new Set((s.enum ?? []).map(String));
  if (values.size > 0 && comment.split('|').every((t) => values.has(t.trim()))) return '';
  return comment;
}

/** Walks the schema: one entry per key path, `[]` for list items; a repeated `$ref` stops the walk. */
export function documentKeys(root: JsonSchema, comments: ReadonlyMap<string, string> = new Map()): KeyDoc[] {
  const out: KeyDoc[] = [];
  const firstSeenAt = new Map<string, string>();
  const resolve = (ref: string): JsonSchema => {
    const name = ref.replace('#/$defs/', '');
    const def = root.$defs?.[name];
    if (!def) throw new Error(`unknown $ref ${ref}`);
    return def;
  };
  const refName = (ref: string) => {
    const at = firstSeenAt.get(ref);
    return at ? `object like \`${at}\`` : 'object';
  };
  const visit = (path: string, node: JsonSchema, required: boolean): void => {
    let s = node;
    if (s.$ref) {
      if (firstSeenAt.has(s.$ref)) {
        out.push({
          path,
          type: refName(s.$ref),
          default: '',
          required,
          description: descriptionOf(resolve(s.$ref)),
        });
        return;
      }
      firstSeenAt.set(s.$ref, path);
      s = { ...resolve(s.$ref), ...(node.description ? { description: node.description } : {}) };
    }
    const described = descriptionOf(s) || FALLBACK_DESCRIPTIONS[path] || usefulComment(comments.get(path), s);
    const least = leastOf(s);
    let description = described;
    if (least !== '' && described === '') description = least;
    else if (least !== '' && /[.…]$/.test(described)) description = `${described} ${least}`;
    else if (least !== '') description = `${described} (${least.replace(/^At/, 'at').replace(/\.$/, '')})`;
    out.push({ path, type: typeOf(s, refName), default: defaultOf(s), required, description });
    children(path, s);
  };
  const children = (path: string, s: JsonSchema): void => {
    if (s.properties) {
      for (const [key, child] of Object.entries(s.properties))
        visit(path ? `${path}.${key}` : key, child, s.required?.includes(key) ?? false);
    }
    if (s.type === 'array' && s.items && (s.items.properties || s.items.$ref || s.items.anyOf)) {
      const items = s.items.$ref && firstSeenAt.has(s.items.$ref) ? undefined : s.items;
      if (items?.$ref) {
        firstSeenAt.set(items.$ref, `${path}[]`);
        children(`${path}[]`, resolve(items.$ref));
      } else if (items?.properties) children(`${path}[]`, items);
    }
    if (typeof s.additionalProperties === 'object' && s.additionalProperties.properties)
      children(`${path}.<name>`, s.additionalProperties);
  };
  children('', root);
  return out;
}

/** A YAML comment's prose: the last paragraph, without commented-out YAML and banners. */
function prose(comment: string | null | undefined): string {
  if (!comment) return '';
  const paragraphs = comment.split(/\n\s*\n/);
  const last = paragraphs.at(-1) ?? '';
  return last
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !/^-?\s*[\w.]+:(\s|$)/.test(l) && !/^- /.test(l) && !/---/.test(l))
    .join(' ');
}

/** The comments of an example config, by key path (`orgs[].token`): above a key, or after a scalar. */
export function exampleComments(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (node: unknown, path: string): void => {
    if (isMap(node)) {
      node.items.forEach((pair, i) => {
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        const p = path ? `${path}.${key}` : key;
        const keyNode = pair.key as Node | null;
        const value = pair.value as Node | null;
        // A comment above a map's first key is parsed as the comment before the map itself.
        const above = prose(keyNode?.commentBefore) || (i === 0 ? prose((node as Node).commentBefore) : '');
        const after = isScalar(value) ? prose(value.comment) : '';
        const text = above || after;
        if (text && !out.has(p)) out.set(p, text);
        walk(value, p);
      });
    } else if (isSeq(node)) {
      for (const item of node.items) walk(item, `${path}[]`);
    }
  };
  walk(parseDocument(text).contents, '');
  return out;
}

/** Every key path an example config sets (`orgs[].slug`), for checking the reference covers it. */
export function exampleKeyPaths(text: string): string[] {
  const out = new Set<string>();
  const walk = (node: unknown, path: string): void => {
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        const p = path ? `${path}.${key}` : key;
        out.add(p);
        walk(pair.value, p);
      }
    } else if (isSeq(node)) {
      for (const item of node.items) walk(item, `${path}[]`);
    }
  };
  walk(parseDocument(text).contents, '');
  return [...out];
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function row(k: KeyDoc): string {
  const description = k.required ? `**Required.** ${k.description}`.trim() : k.description;
  // Types are rendered with their pipes escaped already.
  return `| \`${k.path}\` | ${k.type} | ${k.default} | ${cell(description)} |`;
}

const INTRO = `# Configuration reference

<!-- Generated by \`npm run docs:config\` (scripts/write-config-docs.ts) from
schema/tally.schema.json and the comments of config.example.yaml. Do not edit by hand:
change src/config/schema.ts (or the schemas it includes), then run \`npm run schema\` and
\`npm run docs:config\`. -->

tally reads one YAML file: \`--config PATH\`, else \`$TALLY_CONFIG\`, else \`./tally.yaml\`.
[config.example.yaml](../config.example.yaml) shows the common options with their
defaults; \`tally check --config FILE\` validates a file and lists every problem with its
path and line. This page lists every key.

- **Paths.** \`upstream.timeouts.connect\` is the key \`connect\` in the map \`timeouts\` in
  \`upstream\`; \`orgs[].slug\` is \`slug\` in each item of the list \`orgs\`; \`<name>\` stands
  for a key you choose.
- **Durations** are a number and a unit, several may follow each other: \`500ms\`, \`30s\`,
  \`5m\`, \`1h30m\`, \`7d\`, \`2w\`; \`0\` is zero. Where zero would make tally loop, flood a
  receiver or give up at once, a duration has a least value, which \`tally check\` names:
  1 s for polling intervals, \`resend_interval\`, \`group_interval\`, \`repeat_interval\`,
  a maintenance window's \`duration\`, \`delivery.max_age\` and \`upstream.retries.deadline\`;
  100 ms for \`upstream.timeouts.*\` and delivery timeouts; 10 ms for \`delivery.backoff\`.
- **Sizes** are bytes, or a number with a unit: \`512KB\`, \`10MiB\`, \`1GB\` (KB/MB/GB are powers
  of 1000, KiB/MiB/GiB of 1024).
- **Environment.** Any value may use \`\${VAR}\` or \`\${VAR:-default}\` (a variable set to
  the empty string counts as unset; \`$\${\` is a literal \`\${\`). A plain value that is
  nothing but references, such as \`budget_per_minute: \${BUDGET:-200}\`, is read the way
  YAML reads the resulting text: \`200\` or \`0x10\` is a number, \`true\` or \`false\` a boolean,
  anything else text; \`null\`, \`~\` and an empty result stay text. Where a key takes text
  (a slug, a token, a label) the value stays text, so a token of digits works. A quoted
  value (\`"\${VAR}"\` or \`'\${VAR}'\`), a \`!!str\` value and a reference inside longer text
  (\`\${HOST}:8080\`) are always text. The environment never changes the file's structure:
  a value cannot add keys or list items.
- **Secrets** have a \`*_file\` form (\`token_file\`, \`password_file\`, \`secret_file\`,
  \`bearer_token_file\`) that reads the value from a file, e.g. a Docker or Kubernetes
  secret; relative paths are relative to the config file's directory. A problem with a
  secret (\`tally check\`, a refused reload) names only the kind of value found, never the value.
- **Unknown keys are errors**, so a misspelt key never goes unnoticed.
- **Reloading.** SIGHUP or \`POST /-/reload\` applies \`orgs\` and the alerting sections
  (\`rules\`, \`route\`, \`silences\`, \`maintenance\`, \`inhibit\`, \`receivers\`, \`delivery\`)
  at once; \`upstream\`, \`intervals\`, \`removals\`, \`server\`, \`state\` and \`log\` keep their running
  values until a restart ([operations.md](operations.md#hot-reload)).

Where an option is explained at length: [polling.md](polling.md) (intervals, budget),
[upstream-client.md](upstream-client.md) and [upstream-shapes.md](upstream-shapes.md)
(\`upstream\`), [http-api.md](http-api.md) (\`server\`), [state.md](state.md) (\`state\`),
[alerts.md](alerts.md) (\`rules\`, \`route\`, \`silences\`, \`maintenance\`, \`inhibit\`),
[notifications.md](notifications.md) (\`receivers\`, \`delivery\`).
`;

/**
 * The schema without the `${VAR}` alternatives the published schema adds to every
 * constrained scalar: the reference documents the values themselves, and says once, in
 * its introduction, that any value may be a reference.
 */
export function withoutEnvReferences<T>(node: T): T {
  if (Array.isArray(node)) return node.map(withoutEnvReferences) as T;
  if (node === null || typeof node !== 'object') return node;
  const s = Object.fromEntries(
    Object.entries(node as Record<string, unknown>).map(([k, v]) => [k, withoutEnvReferences(v)]),
  ) as Record<string, unknown>;
  const any = s['anyOf'] as { $comment?: string }[] | undefined;
  if (!any?.some((m) => m.$comment === ENV_REFERENCE_COMMENT)) return s as T;
  const rest = any.filter((m) => m.$comment !== ENV_REFERENCE_COMMENT);
  const { anyOf: _, ...outer } = s;
  return (rest.length === 1 ? { ...rest[0], ...outer } : { ...outer, anyOf: rest }) as T;
}

/** Renders the whole reference. */
export function renderConfigDocs(published: JsonSchema, exampleText: string): string {
  const schema = withoutEnvReferences(published);
  const keys = documentKeys(schema, exampleComments(exampleText));
  const sections: string[] = [INTRO];
  const tops = Object.keys(schema.properties ?? {});
  sections.push(`## Sections\n\n${tops.map((t) => `[\`${t}\`](#${t})`).join(' · ')}\n`);
  for (const top of tops) {
    const rows = keys.filter(
      (k) => k.path === top || k.path.startsWith(`${top}.`) || k.path.startsWith(`${top}[]`),
    );
    const head = rows[0]!;
    const lines = [`## ${top}`, ''];
    if (head.description) lines.push(head.description, '');
    lines.push(
      `${head.type}${head.required ? ', required' : ''}${head.default ? `, default ${head.default}` : ''}.`,
      '',
    );
    const body = rows.slice(1);
    if (body.length > 0) {
      lines.push('| key | type | default | description |', '| --- | --- | --- | --- |', ...body.map(row), '');
    }
    sections.push(lines.join('\n'));
  }
  return `${sections.join('\n').trimEnd()}\n`;
}

/** Reads the schema and the example from the repository and renders the reference. */
export function renderConfigDocsFromRepo(root = '.'): string {
  const schema = JSON.parse(readFileSync(`${root}/${SCHEMA_PATH}`, 'utf8')) as JsonSchema;
  return renderConfigDocs(schema, readFileSync(`${root}/${EXAMPLE_PATH}`, 'utf8'));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(CONFIG_DOCS_PATH, renderConfigDocsFromRepo());
  console.log(`wrote ${CONFIG_DOCS_PATH}`);
}
