/**
 * Loud drift, end to end: a server that refuses every page size tally tries for the
 * channel list, and one whose team body is unreadable, never look like an empty org.
 * Within one interval `tally run` logs a warn line naming the endpoint, counts it, shows
 * it in the status API, and the default rules fire `upstream_unreadable`.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCommand } from '../../src/cli/run.js';
import { captureIO } from '../helpers/io.js';
import { waitFor } from '../helpers/wait.js';
import { json, type Loopback, startServer } from '../upstream/loopback.js';

let dir: string;
let server: Loopback;

/** The poll interval of every resource in the config below. */
const INTERVAL_MS = 2_000;
/** The route's group_wait below. */
const GROUP_WAIT_MS = 0;
/**
 * How long after the first request the server sees the warn line and the firing alert
 * may come: one interval for the read that finds the problem, one more for a loaded
 * machine, and the route's group wait.
 */
const BOUND_MS = 2 * INTERVAL_MS + GROUP_WAIT_MS;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tally-drift-alert-'));
  server = await startServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/v1/acme') return json(res, 200, { name: 'Acme', plan: 'pro' });
    if (url.pathname === '/v1/acme/subscription') return json(res, 200, { plan: 'pro' });
    // Unreadable: an object with none of the keys of a list or a member.
    if (url.pathname === '/v1/acme/team') return json(res, 200, { message: 'ok', version: 3 });
    if (url.pathname === '/v1/acme/channels') {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('page size rejected');
      return;
    }
    json(res, 404, { error: 'not found' });
  });
});

afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('drift is loud', () => {
  it('warns, counts, shows in the status API and fires the default rule within one interval', async () => {
    const defaults = parse(
      readFileSync(new URL('../../src/alerts/default-rules.yaml', import.meta.url), 'utf8'),
    ) as {
      rules: unknown[];
    };
    const file = path.join(dir, 'tally.yaml');
    await writeFile(
      file,
      `upstream:
  base_url: ${server.origin}
  retries: { attempts: 1, base_delay: 10ms, max_delay: 20ms, deadline: 1s }
orgs:
  - slug: acme
    token: acme-token
intervals: { org: 2s, team: 2s, subscription: 2s, channels: 2s, live_sessions: 2s, live_detail: 2s, sweep: 4s, jitter: 0 }
server: { listen: 127.0.0.1:0 }
state: { dir: ${JSON.stringify(path.join(dir, 'state'))} }
log: { level: info, format: json }
rules: ${JSON.stringify(defaults.rules)}
route: { receiver: console, group_wait: 0s, group_interval: 1s }
receivers:
  - name: console
    log: {}
`,
    );
    const io = captureIO({}, dir);
    const running = runCommand(['--config', file], io);
    try {
      const base = await waitFor(
        () => /"url":"(http:\/\/127\.0\.0\.1:\d+)","msg":"serving metrics/.exec(io.out())?.[1],
        'the HTTP server',
        15_000,
      );
      const firing = await waitFor(
        async () => {
          const body = (await (await fetch(`${base}/api/v1/alerts?state=firing`)).json()) as {
            alerts: { rule: string; labels: Record<string, string>; starts_at?: string }[];
          };
          const hits = body.alerts.filter((a) => a.rule === 'upstream_unreadable');
          return hits.length >= 2 ? hits : undefined;
        },
        'upstream_unreadable firing for channels and team',
        10_000,
      );
      const seenAt = Date.now();
      // The notifications that carry them, as the console receiver wrote them.
      const parse = () =>
        io
          .out()
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as Record<string, unknown>);
      const sent = (endpoint: string) =>
        parse().find(
          (l) =>
            l['component'] === 'notification' &&
            l['status'] === 'firing' &&
            JSON.stringify(l['notification']).includes(`"endpoint":"${endpoint}"`),
        );
      await waitFor(
        () => (sent('channels') && sent('team') ? true : undefined),
        'the notifications on the console receiver',
        10_000,
      );
      expect(firing.map((a) => a.labels['endpoint']).sort()).toEqual(['channels', 'team']);
      const lines = parse();
      const warn = lines.filter((l) => l['msg'] === 'schema drift' && l['level'] === 'warn');
      expect(warn.map((l) => l['endpoint']).sort()).toEqual(expect.arrayContaining(['channels', 'team']));

      // Within one interval (plus the allowance of BOUND_MS) of the first request the server saw.
      const first = server.received[0]!.at;
      const at = (iso: unknown) => Date.parse(String(iso)) - first;
      for (const endpoint of ['channels', 'team']) {
        const line = warn.find((l) => l['endpoint'] === endpoint);
        expect(at(line?.['time']), `warn line for ${endpoint}`).toBeLessThanOrEqual(BOUND_MS);
        const alert = firing.find((a) => a.labels['endpoint'] === endpoint);
        expect(at(alert?.starts_at), `alert for ${endpoint} firing`).toBeLessThanOrEqual(BOUND_MS);
        // The notification that carries it reached the console receiver as soon.
        expect(at(sent(endpoint)?.['time']), `notification for ${endpoint}`).toBeLessThanOrEqual(BOUND_MS);
      }
      // The test saw both firing no later than that either (its polls add at most 50 ms).
      expect(seenAt - first).toBeLessThanOrEqual(BOUND_MS + 250);
      // Keys seen, never values.
      expect(JSON.stringify(warn)).not.toContain('"ok"');
      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metrics).toMatch(
        /tally_schema_drift_total\{org="acme",endpoint="channels",field="query",reason="query_refused"\} [1-9]/,
      );
      const status = (await (await fetch(`${base}/api/v1/status`)).json()) as {
        ready: boolean;
        orgs: { drift: { endpoint: string; fatal: boolean; reason: string }[] }[];
      };
      expect(status.ready).toBe(false);
      expect(
        status.orgs[0]?.drift
          .filter((d) => d.fatal)
          .map((d) => `${d.endpoint}:${d.reason}`)
          .sort(),
      ).toEqual(['channels:query_refused', 'team:no_list']);
    } finally {
      io.stop();
      expect(await running).toBe(0);
    }
  });
});
