/**
 * A real Prometheus scrapes a real tally that polls the upstream simulator. PromQL answers
 * must match the simulator's world, and follow it when it changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { hasPromtool, promtoolProblems } from '../metrics/promtool.js';
import {
  eventually,
  type PrometheusHandle,
  type ScrapedTally,
  startScrapedTally,
} from '../helpers/prometheus.js';

const ORG = 'acme';
const SCRAPE_TOKEN = 'scrape-token-for-e2e';

interface Row {
  id: string;
  status: string;
}

let sim: Simulator;
let scraped: ScrapedTally;
let prom: PrometheusHandle;
let tallyUrl: string;
/** The formats tally served to its scrapers. */
const served = new Set<string>();

beforeAll(async () => {
  sim = await startSimulator({ orgs: [ORG], channels: 6, sessionsPerChannel: 4, seed: 11, scenario: 'calm' });
  scraped = await startScrapedTally({
    prefix: 'prom',
    config: (dir) => `
upstream:
  base_url: ${sim.url}
  window: { past: 3650d, future: 3650d }
orgs:
  - slug: ${ORG}
    token: ${ORG}-token
    labels: { team: radio }
intervals: { org: 5s, team: 5s, subscription: 5s, channels: 1s, live_sessions: 1s, live_detail: 1s, sweep: 6s, jitter: 0 }
state: { dir: ${JSON.stringify(dir)} }
server: { listen: 127.0.0.1:0, auth: { bearer_token: ${SCRAPE_TOKEN} } }
`,
    bearerToken: SCRAPE_TOKEN,
    // Record which exposition format each scrape negotiated.
    beforeStart: (app) => {
      const render = app.metrics.render.bind(app.metrics);
      app.metrics.render = async (accept) => {
        const page = await render(accept);
        served.add(page.format);
        return page;
      };
    },
  });
  prom = scraped.prom;
  tallyUrl = scraped.app.url()!;
});

afterAll(async () => {
  await scraped?.stop();
  await sim?.close();
});

/** The one value of a query that must return exactly one series. */
async function scalar(promql: string): Promise<number> {
  const result = await prom.query(promql);
  if (result.length !== 1) throw new Error(`${promql}: expected one series, got ${JSON.stringify(result)}`);
  return result[0]!.value;
}

/** Ground truth: the simulator's channels and sessions now. */
function world() {
  const v = sim.view(ORG);
  const channels = v.channels as unknown as Row[];
  const sessions = Object.values(v.sessions).flat() as unknown as Row[];
  return { channels, sessions, live: sessions.filter((s) => s.status === 'live') };
}

/** Waits until a query answers `expected()` (re-read each try, since the world moves on its own). */
async function follows(promql: string, expected: () => number, timeoutMs = 40_000): Promise<void> {
  await eventually(async () => {
    const want = expected();
    const got = await scalar(promql);
    if (got !== want) throw new Error(`${promql} = ${got}, want ${want}`);
  }, timeoutMs);
}

async function control(route: string, body: Record<string, unknown>): Promise<{ id?: string }> {
  const res = await fetch(`${sim.url}/_sim/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ org: ORG, ...body }),
  });
  if (!res.ok) throw new Error(`POST /_sim/${route}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { id?: string };
}

describe('tally scraped by a real Prometheus', () => {
  it('is scraped without errors, in OpenMetrics, behind bearer auth', async () => {
    await eventually(async () => {
      const [target] = await prom.targets();
      if (target?.health !== 'up')
        throw new Error(`target not up yet: ${JSON.stringify(target)}\n${prom.output()}`);
      expect(target.lastError).toBe('');
    });
    expect(await scalar('up{job="tally"}')).toBe(1);
    // Prometheus prefers OpenMetrics: counter, info and histogram families came through it.
    expect([...served]).toEqual(['openmetrics']);
    expect(await scalar('tally_build_info')).toBe(1);
    expect(await scalar(`tally_changes_total{org="${ORG}",kind="channel.added"}`)).toBeGreaterThanOrEqual(0);
    expect(await scalar('sum(tally_upstream_request_duration_seconds_count)')).toBeGreaterThan(0);
  });

  it('answers PromQL with the channel and session counts of the simulated world', async () => {
    await follows(`sum(tally_channels{org="${ORG}"})`, () => world().channels.length);
    await follows(`count(tally_channel_status{org="${ORG}"} == 1)`, () => world().channels.length);
    for (const status of ['live', 'idle', 'offline']) {
      await follows(
        `sum(tally_channels{org="${ORG}",status="${status}"}) or vector(0)`,
        () => world().channels.filter((c) => c.status === status).length,
      );
    }
    // Every channel's sessions are in once the background sweep went round.
    await follows(`sum(tally_sessions{org="${ORG}"})`, () => world().sessions.length, 75_000);
    await follows(`tally_live_sessions{org="${ORG}"}`, () => world().live.length);
    expect(await scalar(`tally_up{org="${ORG}"}`)).toBe(1);
    expect(await scalar(`tally_org_labels{org="${ORG}",team="radio"}`)).toBe(1);
  });

  it('follows the world as it changes', async () => {
    const [first] = world().channels;
    const target = first!.status === 'offline' ? 'live' : 'offline';
    await control('channel-status', { channel: first!.id, status: target });
    await follows(`tally_channel_status{org="${ORG}",channel_id="${first!.id}",status="${target}"}`, () => 1);

    const added = await control('add-channel', { name: 'Late Show', status: 'idle' });
    await follows(`sum(tally_channels{org="${ORG}"})`, () => world().channels.length);
    await follows(`count(tally_channel_status{org="${ORG}",channel="Late Show"} == 1)`, () => 1);

    const started = await control('start-session', { channel: added.id, title: 'Pilot' });
    await follows(`tally_live_sessions{org="${ORG}"}`, () => world().live.length);
    await control('add-question', { session: started.id, text: 'Is this on?' });
    await control('add-question', { session: started.id, text: 'Can you hear me?' });
    // The calm world may add questions of its own: follow the simulator's count.
    const questions = () =>
      (sim.sessionDetail(ORG, String(started.id))?.['questions'] as unknown[] | undefined)?.length ?? 0;
    expect(questions()).toBeGreaterThanOrEqual(2);
    await follows(`tally_session_questions{org="${ORG}",session_id="${started.id}"}`, questions);

    await control('remove-channel', { channel: added.id });
    await follows(`sum(tally_channels{org="${ORG}"})`, () => world().channels.length);
    // The removed channel's series are gone, not left stale.
    await follows(`count(tally_channel_status{org="${ORG}",channel_id="${added.id}"}) or vector(0)`, () => 0);
    await follows(`count(tally_session_questions{session_id="${started.id}"}) or vector(0)`, () => 0);
    expect(await scalar(`tally_changes_total{org="${ORG}",kind="channel.added"}`)).toBeGreaterThanOrEqual(1);
  });

  it('passes promtool check metrics', async () => {
    expect(hasPromtool(), 'promtool must be on PATH in the e2e tier').toBe(true);
    const res = await fetch(`${tallyUrl}/metrics`, { headers: { authorization: `Bearer ${SCRAPE_TOKEN}` } });
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(await promtoolProblems(await res.text())).toEqual([]);
  });
});
