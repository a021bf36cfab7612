/**
 * `tally once --explain`: per endpoint, the request that worked, the paging style, what
 * was learned and the source of every field, against servers that speak differently, and
 * an override in `upstream.shape` still winning.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onceCommand } from '../../src/cli/once.js';
import { startSimulator } from '../../src/sim/index.js';
import { captureIO } from '../helpers/io.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tally-explain-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function explain(dialect: string, extra = ''): Promise<{ code: number; out: string; err: string }> {
  const sim = await startSimulator({ orgs: ['demo'], channels: 3, seed: 2, frozen: true, dialect });
  try {
    const file = path.join(dir, `${dialect}.yaml`);
    await writeFile(
      file,
      `upstream:\n  base_url: ${sim.url}\n${extra}orgs:\n  - slug: demo\n    token: demo-token\n`,
    );
    const io = captureIO({}, dir);
    const code = await onceCommand(['--config', file, '--explain'], io);
    return { code, out: io.out(), err: io.err() };
  } finally {
    await sim.close();
  }
}

describe('tally once --explain', () => {
  it('names the learned page size, the paging style and each field source (rails)', async () => {
    const r = await explain('rails');
    expect(r.code).toBe(0);
    expect(r.out).toContain('request: GET /v1/demo/channels?per_page=25');
    expect(r.out).toContain('learned: page size 25');
    expect(r.out).toMatch(/list at: the body itself; paging: page/);
    expect(r.out).toContain('channel.status ← status');
    expect(r.out).toMatch(/session\.scheduledAt ← scheduled_at\n/);
    expect(r.out).toContain('server ignores the window filter (tally filters)');
  });

  it('names conversions: epoch seconds and minor units (stripe-cursor)', async () => {
    const r = await explain('stripe-cursor');
    expect(r.code).toBe(0);
    expect(r.out).toContain('session.scheduledAt ← scheduled_at (epoch seconds)');
    expect(r.out).toContain(
      'funding.balance ← details.wallet.balance_minor (÷ 100 (minor units; EUR: exponent 2))',
    );
    expect(r.out).toContain('learned: left out per_page');
    expect(r.out).toMatch(/paging: cursor/);
  });

  it('an override still wins and shows as the source', async () => {
    const r = await explain('default', "  shape:\n    fields:\n      'channel.name': [visibility]\n");
    expect(r.code).toBe(0);
    expect(r.out).toContain('channel.name ← visibility');
  });

  it('--json carries the explanation beside the snapshots', async () => {
    const sim = await startSimulator({
      orgs: ['demo'],
      channels: 2,
      seed: 2,
      frozen: true,
      dialect: 'spring',
    });
    try {
      const file = path.join(dir, 'json.yaml');
      await writeFile(
        file,
        `upstream:\n  base_url: ${sim.url}\norgs:\n  - slug: demo\n    token: demo-token\n`,
      );
      const io = captureIO({}, dir);
      expect(await onceCommand(['--config', file, '--json', '--explain'], io)).toBe(0);
      const body = JSON.parse(io.out()) as {
        explain: Record<
          string,
          Record<string, { paging: Record<string, number>; fields: Record<string, Record<string, number>> }>
        >;
      };
      expect(Object.keys(body.explain['demo']?.['channels']?.paging ?? {})).toEqual(['offset']);
      expect(Object.keys(body.explain['demo']?.['channels']?.fields['channel.status'] ?? {})).toEqual([
        'status',
      ]);
    } finally {
      await sim.close();
    }
  });
});
