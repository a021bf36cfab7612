/**
 * Lists whose records must stay told apart: ids beyond 2^53 sent as numbers, ids that
 * repeat, paging that does not advance or loops back. Real loopback servers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { UpstreamClient, type UpstreamClientOptions } from '../../src/upstream/client.js';
import type { DriftIssue } from '../../src/upstream/shape/index.js';
import {
  captureLogger,
  clientOptions,
  json,
  type Loopback,
  startServer,
  watchUnhandled,
} from './loopback.js';

const TOKEN = 'tok-ids-5e1f';
const ORG = { slug: 'acme', token: TOKEN };

const unhandled = watchUnhandled();
afterAll(() => {
  unhandled.stop();
  expect(unhandled.errors).toEqual([]);
});

let servers: Loopback[] = [];
let clients: UpstreamClient[] = [];
const logs = captureLogger();
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  clients = [];
});

async function serve(
  handler: (req: IncomingMessage, res: ServerResponse, n: number) => void,
): Promise<Loopback> {
  const s = await startServer(handler);
  servers.push(s);
  return s;
}

function client(baseUrl: string, over: Partial<UpstreamClientOptions> = {}): UpstreamClient {
  const c = new UpstreamClient(clientOptions(baseUrl, logs.logger, over));
  clients.push(c);
  return c;
}

/** Sends a JSON text as is (numbers a JSON.stringify could not write). */
function raw(res: ServerResponse, text: string): void {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const ids = (part: { state: string; value?: { id: string }[] }) => part.value?.map((c) => c.id);

describe('ids beyond 2^53 sent as JSON numbers', () => {
  it('stay distinct, exact and complete, and the session list is read under the exact id', async () => {
    const s = await serve((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/v1/acme/channels') {
        return raw(
          res,
          '{"channels":[{"id":1462947128391651330,"name":"Alpha","status":"live"},' +
            '{"id":1462947128391651331,"name":"Beta","status":"idle"}],"total":2}',
        );
      }
      if (url.pathname === '/v1/acme/channels/1462947128391651331/sessions') {
        return raw(res, '{"sessions":[{"id":1462947128391660003,"status":"scheduled"}]}');
      }
      res.writeHead(404).end();
    });
    const c = client(s.origin);
    const channels = await c.fetchChannels(ORG);
    expect(channels.state).toBe('complete');
    expect(ids(channels)).toEqual(['1462947128391651330', '1462947128391651331']);
    const sessions = await c.fetchSessions(ORG, '1462947128391651331');
    expect(sessions.state).toBe('complete');
    expect(ids(sessions)).toEqual(['1462947128391660003']);
  });
});

const channel = (i: number, extra: Record<string, unknown> = {}) => ({
  id: `c${i}`,
  name: `Chan ${i}`,
  status: 'idle',
  visibility: 'public',
  ...extra,
});
const FIVE = [1, 2, 3, 4, 5].map((i) => channel(i));

function observed(): { drift: DriftIssue[]; observer: { onDrift: (i: DriftIssue) => void } } {
  const drift: DriftIssue[] = [];
  return { drift, observer: { onDrift: (i) => drift.push(i) } };
}

describe('ids that repeat in one list', () => {
  it('identical repeats: one record kept per id, a note, and the list stays complete', async () => {
    const s = await serve((_req, res) => json(res, 200, { data: [...FIVE, FIVE[1], FIVE[3]] }));
    const { drift, observer } = observed();
    const part = await client(s.origin, { observer }).fetchChannels(ORG);
    expect(part.state).toBe('complete');
    expect(ids(part)).toEqual(['c1', 'c2', 'c3', 'c4', 'c5']);
    expect(drift).toEqual([
      expect.objectContaining({
        org: 'acme',
        endpoint: 'channels',
        field: 'channel.id',
        problem: expect.stringMatching(/^2 records have the same id as an earlier, identical record/),
        fatal: false,
      }),
    ]);
  });

  it('differing repeats: the first kept, and the list incomplete so nothing is inferred from it', async () => {
    const s = await serve((_req, res) =>
      json(res, 200, { data: [...FIVE, channel(2, { name: 'Not the same', status: 'live' })] }),
    );
    const { drift, observer } = observed();
    const part = await client(s.origin, { observer }).fetchChannels(ORG);
    expect(part).toMatchObject({
      state: 'incomplete',
      error: {
        reason: 'schema',
        message: 'GET /v1/acme/channels: 1 record(s) have the same id as a different record of the list',
      },
    });
    expect(part.state === 'incomplete' && part.value.find((c) => c.id === 'c2')?.name).toBe('Chan 2');
    expect(ids(part)).toHaveLength(5);
    expect(drift).toEqual([
      expect.objectContaining({ endpoint: 'channels', field: 'channel.id', fatal: true }),
    ]);
    expect(JSON.stringify(drift)).not.toContain('Not the same');
  });

  it('rounded ids are no longer a cause: snowflakes sent as numbers stay apart', async () => {
    const s = await serve((_req, res) =>
      raw(res, '[{"id":1462947128391651330,"status":"idle"},{"id":1462947128391651331,"status":"idle"}]'),
    );
    const { drift, observer } = observed();
    const part = await client(s.origin, { observer }).fetchChannels(ORG);
    expect(part.state).toBe('complete');
    expect(new Set(ids(part)).size).toBe(2);
    expect(drift).toEqual([]);
  });
});

describe('a null list beside a positive total', () => {
  it('is a failed read with drift naming the contradiction, not an empty list', async () => {
    const s = await serve((_req, res) => json(res, 200, { channels: null, total: 5 }));
    const { drift, observer } = observed();
    const part = await client(s.origin, { observer }).fetchChannels(ORG);
    expect(part).toMatchObject({ state: 'failed', error: { reason: 'schema' } });
    expect(part.state === 'failed' && part.error.message).toContain(
      "the list at 'channels' is null, yet the response counts 5 items",
    );
    expect(drift).toEqual([
      expect.objectContaining({ endpoint: 'channels', field: 'envelope', fatal: true }),
    ]);
  });
});
