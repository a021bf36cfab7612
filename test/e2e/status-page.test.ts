/**
 * The status page in a browser (Debian's headless Chromium driven by playwright-core)
 * against `tally run` and the simulator: it loads, shows the channels the simulator has
 * live, updates without a full reload when a channel goes live, filters, and shows a
 * channel named `<script>alert(1)</script>` as text. It also takes the screenshots in
 * docs/images/ (light and dark): into a temporary directory, or into TALLY_SHOTS_DIR
 * (`npm run screenshots:status`).
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/run.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { captureIO, type CapturedIO } from '../helpers/io.js';
import { waitFor } from '../helpers/wait.js';

const CHROMIUM = process.env['CHROMIUM'] ?? '/usr/bin/chromium';
const HOSTILE = '<script>alert(1)</script>';

describe.skipIf(!existsSync(CHROMIUM))('the status page in Chromium', () => {
  let dir: string;
  let sim: Simulator;
  let io: CapturedIO;
  let running: Promise<number>;
  let base: string;
  let browser: Browser;
  let hostileId: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'tally-status-page-'));
    sim = await startSimulator({ orgs: ['demo'], channels: 8, seed: 5, frozen: true });
    hostileId = sim.trigger.addChannel({ org: 'demo', name: HOSTILE }).id ?? '';
    expect(hostileId).not.toBe('');
    const file = path.join(dir, 'tally.yaml');
    await writeFile(
      file,
      `upstream:
  base_url: ${sim.url}
orgs:
  - slug: demo
    token: demo-token
intervals: { org: 5s, team: 5s, subscription: 5s, channels: 1s, live_sessions: 1s, live_detail: 1s, sweep: 5s, jitter: 0 }
server: { listen: 127.0.0.1:0 }
state: { dir: ${JSON.stringify(path.join(dir, 'state'))} }
log: { level: info, format: json }
rules:
  - name: channel_live
    on: channel.status_changed
    severity: info
    annotations: { summary: "{{ event.labels.channel }} is {{ event.to }}" }
route: { receiver: console }
receivers:
  - name: console
    log: {}
`,
    );
    io = captureIO({}, dir);
    running = runCommand(['--config', file], io);
    base = await waitFor(
      () => /"url":"(http:\/\/127\.0\.0\.1:\d+)","msg":"serving metrics/.exec(io.out())?.[1],
      'the HTTP server',
      15_000,
    );
    await waitFor(async () => ((await fetch(`${base}/-/ready`)).ok ? true : undefined), 'readiness', 20_000);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    io?.stop();
    await running;
    await sim?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('shows the live channels, updates in place, filters, and renders hostile names as text', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${base}/`);
    await expect.poll(() => page.title()).toBe('tally — status');

    // Every channel the simulator has live is shown as live.
    const liveIds = (sim.view('demo').channels as { id: string; status: string }[])
      .filter((c) => c.status === 'live')
      .map((c) => c.id);
    expect(liveIds.length).toBeGreaterThan(0);
    const shownLive = () => page.locator('tr.live code').allTextContents();
    await expect.poll(shownLive, { timeout: 10_000 }).toEqual(expect.arrayContaining(liveIds));

    // The hostile name is text: visible as typed, and nothing ran.
    await expect.poll(() => page.locator('table.channels').innerText()).toContain(HOSTILE);
    expect(await page.locator('table.channels script').count()).toBe(0);
    expect(dialogs).toEqual([]);

    // A channel goes live: the page shows it without a full reload.
    await page.evaluate('window.marker = 42');
    sim.trigger.channelStatus({ org: 'demo', channel: hostileId, status: 'live' });
    await expect
      .poll(
        async () => {
          await page.evaluate('window.tallyRefresh()');
          return page.locator('tr.live code').allTextContents();
        },
        { timeout: 15_000 },
      )
      .toContain(hostileId);
    expect(await page.evaluate('window.marker')).toBe(42);
    expect(dialogs).toEqual([]);

    // The status filter, by keyboard-free form submission: only live rows remain.
    await page.selectOption('select[name="status"]', 'live');
    await Promise.all([
      page.waitForURL(/status=live/),
      page.click('form.filters button[type="submit"] >> nth=0'),
    ]);
    const classes = await page
      .locator('table.channels tbody tr')
      .evaluateAll((rows) => rows.map((r) => r.className));
    expect(classes.length).toBe(liveIds.length + 1);
    expect(new Set(classes)).toEqual(new Set(['live']));
    // The search box finds the hostile channel by its name, still as text.
    await page.fill('input[name="q"]', '<script>');
    await Promise.all([page.waitForURL(/q=/), page.click('form.filters button[type="submit"] >> nth=0')]);
    expect(await page.locator('table.channels tbody tr code').allTextContents()).toEqual([hostileId]);
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('takes the screenshots, light and dark, usable at a glance', async () => {
    const out = process.env['TALLY_SHOTS_DIR'] ?? (await mkdtemp(path.join(tmpdir(), 'tally-status-shots-')));
    await mkdir(out, { recursive: true });
    for (const scheme of ['light', 'dark'] as const) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 1000 }, colorScheme: scheme });
      await page.goto(`${base}/`);
      await page.locator('table.channels').waitFor();
      const file = path.join(out, `status-page-${scheme}.png`);
      await page.screenshot({ path: file, fullPage: false });
      const png = await readFile(file);
      expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
      expect(png.readUInt32BE(16)).toBe(1280);
      const bg = await page.evaluate('getComputedStyle(document.body).backgroundColor');
      expect(bg).toBe(scheme === 'dark' ? 'rgb(13, 17, 23)' : 'rgb(255, 255, 255)');
      await page.close();
    }
  }, 60_000);
});
