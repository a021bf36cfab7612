/**
 * The memory drift bookkeeping keeps is bounded, whatever a server sends: the status
 * API's board holds at most {@link MAX_BOARD_PER_ORG} problems per org (the most recently
 * seen), and the drift reporter logs at most 20 distinct problems per org, endpoint and
 * field while the observer (metrics, events) still hears every one.
 */
import { describe, expect, it } from 'vitest';
import { DriftBoard, MAX_BOARD_PER_ORG } from '../../src/app/drift-events.js';
import type { UpstreamClient } from '../../src/upstream/client.js';
import { DriftReporter } from '../../src/upstream/drift-reporter.js';
import type { DriftIssue } from '../../src/upstream/shape/index.js';
import { captureLogger, json, type Loopback, loopbackSuite } from './loopback.js';

const suite = loopbackSuite();

const FLOOD = 10_000;
/** The per-field cap of drift-reporter.ts (not exported). */
const PER_FIELD = 20;

const word = (i: number): DriftIssue => ({
  endpoint: 'channels',
  field: 'channel.status',
  problem: `unknown status word "w${i}"; its class is unknown`,
  fatal: false,
});

describe('DriftBoard under a flood of distinct problems', () => {
  it('keeps the cap per org, newest first', () => {
    const board = new DriftBoard();
    for (let i = 0; i < FLOOD; i++) board.add({ ...word(i), org: 'acme' }, i);
    const kept = board.of('acme');
    expect(MAX_BOARD_PER_ORG).toBe(32);
    expect(kept).toHaveLength(MAX_BOARD_PER_ORG);
    expect(kept.map((e) => e.lastAt)).toEqual(
      Array.from({ length: MAX_BOARD_PER_ORG }, (_, k) => FLOOD - 1 - k),
    );
    expect(kept[0]).toMatchObject({
      endpoint: 'channels',
      field: 'channel.status',
      reason: 'unknown_word',
      fatal: false,
      count: 1,
    });
  });

  it('a problem seen again keeps its place and its first sighting, and counts', () => {
    const board = new DriftBoard();
    for (let i = 0; i < MAX_BOARD_PER_ORG; i++) board.add({ ...word(i), org: 'acme' }, i);
    // The oldest is seen again: it becomes the newest instead of the next to go.
    board.add({ ...word(0), org: 'acme' }, 1000);
    board.add({ ...word(9999), org: 'acme' }, 1001);
    const kept = board.of('acme');
    expect(kept).toHaveLength(MAX_BOARD_PER_ORG);
    expect(kept[0]?.problem).toContain('"w9999"');
    expect(kept[1]).toMatchObject({ firstAt: 0, lastAt: 1000, count: 2 });
    expect(kept[1]?.problem).toContain('"w0"');
    // What went instead is the least recently seen: w1.
    expect(kept.some((e) => e.problem.includes('"w1"'))).toBe(false);
    expect(kept.some((e) => e.problem.includes('"w2"'))).toBe(true);
  });

  it('bounds every org on its own, and forgets an org as a whole', () => {
    const board = new DriftBoard();
    for (let i = 0; i < FLOOD; i++) board.add({ ...word(i), org: i % 2 === 0 ? 'acme' : 'globex' }, i);
    board.add({ ...word(1), org: 'initech' }, FLOOD);
    expect(board.of('acme')).toHaveLength(MAX_BOARD_PER_ORG);
    expect(board.of('globex')).toHaveLength(MAX_BOARD_PER_ORG);
    expect(board.of('initech')).toHaveLength(1);
    expect(board.of('acme').every((e) => Number(/w(\d+)/.exec(e.problem)?.[1]) % 2 === 0)).toBe(true);
    board.forget('acme');
    expect(board.of('acme')).toEqual([]);
    expect(board.of('globex')).toHaveLength(MAX_BOARD_PER_ORG);
  });

  // A flood of distinct non-fatal notes (free-text status words, say) must not push a fatal
  // problem of another endpoint — a read that failed — off the status API.
  it('keeps a fatal problem visible while a flood of notes passes', () => {
    const board = new DriftBoard();
    board.add({ org: 'acme', endpoint: 'team', field: 'envelope', problem: 'no list found', fatal: true }, 0);
    for (let i = 0; i < 100; i++) board.add({ ...word(i), org: 'acme' }, 1 + i);
    expect(
      board
        .of('acme')
        .filter((e) => e.fatal)
        .map((e) => e.endpoint),
    ).toEqual(['team']);
  });
});

describe('DriftReporter under a flood of distinct problems', () => {
  /** Warn lines `schema drift` the reporter wrote, as parsed objects. */
  const driftLines = (text: string) =>
    text
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l['msg'] === 'schema drift');

  it('logs at most the per-field cap, remembers no more, and the observer hears everything', () => {
    const logs = captureLogger();
    const heard: DriftIssue[] = [];
    const reporter = new DriftReporter(logs.logger, { onDrift: (i) => heard.push(i) });
    // One read with a thousand distinct words, then many reads with one each.
    reporter.report(
      'acme',
      Array.from({ length: 1000 }, (_, i) => word(i)),
    );
    for (let i = 1000; i < FLOOD; i++) reporter.report('acme', [word(i)]);
    expect(heard).toHaveLength(FLOOD);
    const lines = driftLines(logs.text());
    expect(lines).toHaveLength(PER_FIELD);
    // The first problems seen are the ones logged.
    expect(lines.map((l) => l['problem'])).toEqual(
      Array.from({ length: PER_FIELD }, (_, i) => word(i).problem),
    );
    const logged = (reporter as unknown as { logged: Map<string, Set<string>> }).logged;
    expect(logged.size).toBe(1);
    expect([...logged.values()][0]?.size).toBe(PER_FIELD);
  });

  it('a full field does not silence other fields, endpoints or orgs', () => {
    const logs = captureLogger();
    const reporter = new DriftReporter(logs.logger, {});
    for (let i = 0; i < FLOOD; i++) reporter.report('acme', [word(i)]);
    reporter.report('acme', [
      {
        endpoint: 'channels',
        field: 'channel.visibility',
        problem: 'unknown visibility word "x"',
        fatal: false,
      },
      { endpoint: 'sessions', field: 'session.status', problem: 'unknown status word "w1"', fatal: false },
      { endpoint: 'team', field: 'envelope', problem: 'no list found', fatal: true },
    ]);
    reporter.report('globex', [word(0)]);
    const lines = driftLines(logs.text()).slice(PER_FIELD);
    expect(lines.map((l) => `${l['org']} ${l['endpoint']} ${l['field']} ${l['fatal']}`)).toEqual([
      'acme channels channel.visibility false',
      'acme sessions session.status false',
      'acme team envelope true',
      'globex channels channel.status false',
    ]);
  });

  it('logs a problem once however many reads repeat it', () => {
    const logs = captureLogger();
    const heard: DriftIssue[] = [];
    const reporter = new DriftReporter(logs.logger, { onDrift: (i) => heard.push(i) });
    for (let i = 0; i < 1000; i++) reporter.report('acme', [word(7), word(7)]);
    expect(driftLines(logs.text())).toHaveLength(1);
    // Duplicates within one read reach the observer once; every read is heard.
    expect(heard).toHaveLength(1000);
  });
});

describe('a server whose every channel has its own status word', () => {
  let server: Loopback | undefined;
  let client: UpstreamClient | undefined;

  it('costs the board and the log no more than their caps, read after read', async () => {
    let round = 0;
    server = await suite.serve((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const page = Number(url.searchParams.get('page') ?? 1);
      const items = Array.from({ length: 100 }, (_, i) => {
        const n = (page - 1) * 100 + i;
        return { id: `c${n}`, name: `C${n}`, status: `state-${round}-${n}` };
      });
      json(res, 200, { data: items, meta: { page, per_page: 100, total: 2000 } });
    });
    const logs = captureLogger();
    const board = new DriftBoard();
    let heard = 0;
    client = suite.client(server.origin, {
      logger: logs.logger,
      observer: {
        onDrift: (issue) => {
          heard += 1;
          board.add(issue, Date.now());
        },
      },
    });
    for (round = 0; round < 3; round++) {
      const part = await client.fetchChannels({ slug: 'acme', token: 'tok-flood-0001' });
      // Unknown words leave the channels readable (class unknown): the read is not failed.
      expect(part.state === 'complete' && part.value).toHaveLength(2000);
    }
    expect(heard).toBe(6000);
    const kept = board.of('acme');
    expect(kept).toHaveLength(MAX_BOARD_PER_ORG);
    // The newest: the last channels of the last read.
    expect(kept[0]?.problem).toContain('state-2-1999');
    const warned = logs.text().match(/"msg":"schema drift"/g) ?? [];
    expect(warned).toHaveLength(PER_FIELD);
  });
});
