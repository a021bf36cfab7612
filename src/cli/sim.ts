/**
 * `tally sim`: runs the upstream simulator until stopped, printing its base URL and the
 * tokens to use. What it serves is described in docs/upstream-api.md.
 */
import { DIALECT_NAMES, DIALECTS } from '../sim/dialect.js';
import { FAITHFUL_DIALECT_NAMES, FAITHFUL_DIALECTS } from '../sim/dialects/index.js';
import { SimConfigError } from '../sim/errors.js';
import { startSimulator } from '../sim/index.js';
import {
  ENVELOPE_STYLES,
  type EnvelopeStyle,
  FIELD_CASES,
  type FieldCase,
  PAGING_STYLES,
  type ServedPaging,
  type Scenario,
  type SimOptions,
  type TokenSpec,
} from '../sim/types.js';
import { EXIT_USAGE, parseCommandArgs } from './args.js';
import type { Command } from './io.js';

const USAGE = `usage: tally sim [options]

Runs a simulated upstream API (see docs/upstream-api.md) until stopped.

options:
  --host HOST            address to listen on (default 127.0.0.1)
  --port N               port to listen on (default 0: a free port)
  --seed N               seed of the simulated world (default 1)
  --org SLUG             an organization to simulate; repeatable (default demo)
  --channels N           channels per organization, 0 to 5000 (default 8)
  --sessions N           initial sessions per channel (default 12)
  --token [ORG:]VALUE    a token, for the first org or for ORG; repeatable
                         (default: <org>-token for every org)
  --rate-limit N         requests per minute per client IP (default 300)
  --speed X              simulated seconds per real second (default 1)
  --scenario NAME        calm or lively (default calm); lively changes something every few seconds
  --incidents R          share of planned sessions that become an incident (no-show, drop,
                         early end, overrun, failure), 0 to 1 (default 0); truth at /_sim/incidents
  --hints                channel lists carry sessions_updated_at; session lists answer If-None-Match with 304
  --dialect NAME         a server dialect (default default; docs/upstream-shapes.md, "Dialects"):
                         faithful to a public API: ${FAITHFUL_DIALECT_NAMES.join(', ')};
                         parameter bundles: ${DIALECT_NAMES.join(', ')}
                         (--envelope, --paging and --case override a parameter bundle's style)
  --list-dialects        print every dialect with one line each, and exit
  --envelope STYLE       ${ENVELOPE_STYLES.join(', ')} (default data)
  --paging STYLE         ${PAGING_STYLES.join(', ')} (default link)
  --page-size N          default page size, 1 to 200 (default 50)
  --case CASE            ${FIELD_CASES.join(', ')} (default snake)
  --error-rate R         share of requests answered 5xx, 0 to 1 (default 0)
  --latency MS           milliseconds added to every response (default 0)
  -h, --help             print this help

The control surface (ground-truth change log, request log, styles, faults, triggers) is
under <base URL>/_sim/.`;

const OPTIONS = {
  host: { type: 'string' },
  port: { type: 'string' },
  seed: { type: 'string' },
  org: { type: 'string', multiple: true },
  channels: { type: 'string' },
  sessions: { type: 'string' },
  token: { type: 'string', multiple: true },
  'rate-limit': { type: 'string' },
  speed: { type: 'string' },
  scenario: { type: 'string' },
  incidents: { type: 'string' },
  dialect: { type: 'string' },
  'list-dialects': { type: 'boolean' },
  hints: { type: 'boolean' },
  envelope: { type: 'string' },
  paging: { type: 'string' },
  'page-size': { type: 'string' },
  case: { type: 'string' },
  'error-rate': { type: 'string' },
  latency: { type: 'string' },
} as const;

/** A command-line mistake; the message names the flag. */
class UsageError extends Error {}

function integer(flag: string, raw: string | undefined, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^-?\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new UsageError(`--${flag} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  }
  return Number(raw);
}

function decimal(flag: string, raw: string | undefined, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n < min || n > max) {
    throw new UsageError(`--${flag} must be a number from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  }
  return n;
}

function choice<T extends string>(
  flag: string,
  raw: string | undefined,
  allowed: readonly T[],
): T | undefined {
  if (raw === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new UsageError(`--${flag} must be one of ${allowed.join(', ')}, got ${JSON.stringify(raw)}`);
  }
  return raw as T;
}

function tokens(raw: string[] | undefined, orgs: string[]): TokenSpec[] | undefined {
  if (raw === undefined) return undefined;
  return raw.map((arg, i) => {
    const colon = arg.indexOf(':');
    const prefix = colon > 0 ? arg.slice(0, colon) : '';
    const forOrg = orgs.includes(prefix);
    const value = forOrg ? arg.slice(colon + 1) : arg;
    if (value === '') throw new UsageError(`--token ${JSON.stringify(arg)} has no value`);
    return { value, org: forOrg ? prefix : orgs[0]!, label: `cli-${i + 1}` };
  });
}

type Values = {
  [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K] extends { multiple: true }
    ? string[]
    : (typeof OPTIONS)[K] extends { type: 'boolean' }
      ? boolean
      : string;
};

function toOptions(v: Values): SimOptions {
  const orgs = v.org ?? ['demo'];
  const o: SimOptions = { orgs };
  const set = <K extends keyof SimOptions>(key: K, value: SimOptions[K] | undefined) => {
    if (value !== undefined) o[key] = value;
  };
  set('host', v.host);
  set('port', integer('port', v.port, 0, 65535));
  set('seed', integer('seed', v.seed, -(2 ** 53 - 1), 2 ** 53 - 1));
  set('channels', integer('channels', v.channels, 0, 5000));
  set('sessionsPerChannel', integer('sessions', v.sessions, 0, 10_000));
  set('tokens', tokens(v.token, orgs));
  set('rateLimitPerMinute', integer('rate-limit', v['rate-limit'], 1, 1_000_000));
  set('speed', decimal('speed', v.speed, Number.MIN_VALUE, 1_000_000));
  set('scenario', choice<Scenario>('scenario', v.scenario, ['calm', 'lively']));
  set('incidents', decimal('incidents', v.incidents, 0, 1));
  set('dialect', choice<string>('dialect', v.dialect, [...DIALECT_NAMES, ...FAITHFUL_DIALECT_NAMES]));
  if (v.hints === true) o.hints = true;
  set('envelope', choice<EnvelopeStyle>('envelope', v.envelope, ENVELOPE_STYLES));
  set('paging', choice<ServedPaging>('paging', v.paging, PAGING_STYLES));
  set('pageSize', integer('page-size', v['page-size'], 1, 200));
  set('fieldCase', choice<FieldCase>('case', v.case, FIELD_CASES));
  const errorRate = decimal('error-rate', v['error-rate'], 0, 1);
  const latencyMs = integer('latency', v.latency, 0, 600_000);
  if ((errorRate ?? 0) > 0 || (latencyMs ?? 0) > 0) {
    o.faults = [{ ...(errorRate ? { errorRate } : {}), ...(latencyMs ? { latencyMs } : {}) }];
  }
  return o;
}

/** One line per dialect: name, kind and what it follows. */
function dialectList(): string {
  const width = Math.max(...[...DIALECT_NAMES, ...FAITHFUL_DIALECT_NAMES].map((n) => n.length));
  const line = (name: string, kind: string, text: string) => `${name.padEnd(width)}  ${kind}  ${text}`;
  return [
    ...FAITHFUL_DIALECT_NAMES.map((n) => line(n, 'faithful ', FAITHFUL_DIALECTS[n]!.description)),
    ...DIALECT_NAMES.map((n) => line(n, 'parameter', DIALECTS[n]!.description)),
    '',
  ].join('\n');
}

/** The `sim` command. */
export const simCommand: Command = async (args, io) => {
  const parsed = parseCommandArgs(args, OPTIONS, USAGE, io);
  if (!parsed.ok) return parsed.exitCode;
  if ((parsed.values as Values)['list-dialects'] === true) {
    io.stdout.write(dialectList());
    return 0;
  }
  let options: SimOptions;
  try {
    options = toOptions(parsed.values as Values);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr.write(`tally sim: ${err.message}\n\n${USAGE}\n`);
    return EXIT_USAGE;
  }
  if (io.signal.aborted) return 0;
  let sim: Awaited<ReturnType<typeof startSimulator>>;
  try {
    sim = await startSimulator(options);
  } catch (err) {
    if (err instanceof SimConfigError) {
      io.stderr.write(`tally sim: ${err.message}\n`);
      return EXIT_USAGE;
    }
    io.stderr.write(`tally sim: cannot start: ${(err as Error).message}\n`);
    return 1;
  }
  const style = sim.style();
  io.stdout.write(
    [
      `tally sim: serving ${sim.orgs.join(', ')} on ${sim.url} (seed ${sim.seed}, scenario ${sim.scenario}, speed ${sim.speed}x)`,
      options.dialect !== undefined && Object.hasOwn(FAITHFUL_DIALECTS, options.dialect as string)
        ? `  dialect: ${options.dialect} (${FAITHFUL_DIALECTS[options.dialect as string]!.description})`
        : `  style: envelope=${style.envelope} paging=${style.paging} page-size=${style.pageSize} case=${style.fieldCase}`,
      `  control surface: ${sim.url}/_sim/`,
      '  tokens:',
      ...sim.tokens.map((t) => `    org=${t.org} label=${t.label} validity=${t.validity} token=${t.value}`),
      '',
    ].join('\n'),
  );
  await new Promise<void>((resolve) => {
    if (io.signal.aborted) resolve();
    else io.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await sim.close();
  io.stdout.write('tally sim: stopped\n');
  return 0;
};
