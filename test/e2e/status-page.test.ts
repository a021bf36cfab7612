/**
 * The status page in a browser (Debian's headless Chromium driven by playwright-core)
 * against `tally run` and the simulator (two orgs): it loads, shows the channels the
 * simulator has live, updates without a full reload when a channel goes live (by its own
 * timer too), keeps the keyboard focus across an update, filters channels by status, org
 * and search and changes by kind and entity, shows a channel named
 * `<script>alert(1)</script>` as text, and its text has a contrast of at least 4.5:1 in
 * light and dark. It also takes the full-page screenshots in docs/images/ (light and
 * dark): into a temporary directory, or into TALLY_SHOTS_DIR (`npm run screenshots:status`).
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/run.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { captureIO, type CapturedIO } from '../helpers/io.js';
import { waitFor } from '../helpers/wait.js';
import { CHROMIUM, hasChromium, needs } from './harness/tools.js';

const HAS_CHROMIUM = needs(hasChromium(), `Chromium (${CHROMIUM})`, 'apt-get install chromium');
const HOSTILE = '<script>alert(1)</script>';

describe.skipIf(!HAS_CHROMIUM)('the status page in Chromium', () => {
  let dir: string;
  let sim: Simulator;
  let io: CapturedIO;
  let running: Promise<number>;
  let base: string;
  let browser: Browser;
  let hostileId: string;
  /** Ids of the channels the simulator has live in the given orgs. */
  const liveOf = (...orgs: string[]) =>
    orgs.flatMap((org) =>
      (sim.view(org).channels as { id: string; status: string }[])
        .filter((c) => c.status === 'live')
        .map((c) => c.id),
    );

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'tally-status-page-'));
    sim = await startSimulator({ orgs: ['demo', 'other'], channels: 8, seed: 5, frozen: true });
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
  - slug: other
    token: other-token
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
    const liveIds = liveOf('demo', 'other');
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

  it('refreshes by its own timer, at the interval the page was asked for', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${base}/?refresh=1`);
    expect(await page.evaluate('document.documentElement.dataset.refresh')).toBe('1000');
    await page.evaluate('window.marker = 7');
    const id = sim.trigger.addChannel({ org: 'demo', name: 'Timer check' }).id ?? '';
    // Nothing but the page's own timer updates it: the new channel appears, then goes live.
    await expect
      .poll(() => page.locator('table.channels code').allTextContents(), { timeout: 15_000 })
      .toContain(id);
    sim.trigger.channelStatus({ org: 'demo', channel: id, status: 'live' });
    await expect
      .poll(() => page.locator('tr.live code').allTextContents(), { timeout: 15_000 })
      .toContain(id);
    // ...and lists it as the channel that changed last.
    await expect
      .poll(() => page.locator('ol.changed li code').first().textContent(), { timeout: 15_000 })
      .toBe(id);
    expect(await page.evaluate('window.marker')).toBe(7);
    expect(await page.locator('#refreshed').textContent()).toMatch(/^updated /);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('keeps the keyboard focus on the same link across a refresh', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${base}/?refresh=1`);
    await page.locator('table.channels').waitFor();
    // Tab from the top of the page to the first link in the channel table.
    let inTable = false;
    for (let i = 0; i < 60 && !inTable; i++) {
      await page.keyboard.press('Tab');
      inTable = await page.evaluate(
        "document.activeElement?.tagName === 'A' && !!document.activeElement.closest('table.channels')",
      );
    }
    expect(inTable).toBe(true);
    const href = await page.evaluate("(window.focused = document.activeElement).getAttribute('href')");
    expect(href).toMatch(/entity=/);
    // Wait for a refresh to replace that very element, then look where the focus is.
    await expect.poll(() => page.evaluate('window.focused.isConnected'), { timeout: 10_000 }).toBe(false);
    const after = await page.evaluate(
      "({ tag: document.activeElement.tagName, href: document.activeElement.getAttribute('href'), inTable: !!document.activeElement.closest('table.channels') })",
    );
    expect(after).toEqual({ tag: 'A', href, inTable: true });
    // The main part is not a live region that re-reads everything.
    expect(await page.locator('[aria-live]').count()).toBe(0);
    await page.close();
  }, 60_000);

  it('filters channels by org and changes by kind and entity', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${base}/`);
    await page.selectOption('select[name="org"]', 'other');
    await Promise.all([
      page.waitForURL(/org=other/),
      page.click('form.filters button[type="submit"] >> nth=0'),
    ]);
    const orgCells = await page.locator('table.channels tbody tr td:first-child').allTextContents();
    expect(orgCells.length).toBe((sim.view('other').channels as unknown[]).length);
    expect(new Set(orgCells)).toEqual(new Set(['other']));
    const otherIds = new Set((sim.view('other').channels as { id: string }[]).map((c) => c.id));
    for (const id of await page.locator('table.channels tbody code').allTextContents())
      expect(otherIds.has(id)).toBe(true);

    // Changes by kind: the demo org's channels went live, so its changes are the ones asked for.
    await page.goto(`${base}/`);
    await page.fill('input[name="kind"]', 'channel.status_changed');
    await Promise.all([
      page.waitForURL(/kind=channel\.status_changed/),
      page.click('form.filters >> nth=1 >> button'),
    ]);
    const events = page.locator('section[aria-labelledby="events"] tbody tr');
    expect(await events.count()).toBeGreaterThan(0);
    expect(new Set(await events.locator('td:nth-child(3)').allTextContents())).toEqual(
      new Set(['channel.status_changed']),
    );
    // An entity's link leads to its history only.
    const first = events.first().locator('td:nth-child(4) a');
    const entity = new URL((await first.getAttribute('href')) ?? '', base).searchParams.get('entity') ?? '';
    expect(entity).not.toBe('');
    await Promise.all([page.waitForURL(/entity=/), first.click()]);
    await expect.poll(() => page.locator('#events').textContent()).toBe(`Recent changes of ${entity}`);
    const hrefs = (
      await page
        .locator('section[aria-labelledby="events"] tbody td:nth-child(4) a')
        .evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''))
    ).map((href) => new URL(href, base).searchParams.get('entity'));
    expect(hrefs.length).toBeGreaterThan(0);
    expect(new Set(hrefs)).toEqual(new Set([entity]));
    await page.close();
  }, 60_000);

  it('has text with a contrast of at least 4.5:1 against its background, light and dark', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${base}/`);
    await page.locator('table.channels').waitFor();
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const found = (await page.evaluate(CONTRAST)) as {
        text: string;
        fg: string;
        bg: string;
        ratio: number;
      }[];
      // Body text, muted text, links, badges, state colours on the page and on the org cards.
      expect(found.length).toBeGreaterThan(50);
      const low = found.filter((f) => f.ratio < 4.5);
      expect(low, `${scheme}: text below 4.5:1`).toEqual([]);
    }
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
      await page.screenshot({ path: file, fullPage: true });
      const png = await readFile(file);
      expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
      expect(png.readUInt32BE(16)).toBe(1280);
      const bg = await page.evaluate('getComputedStyle(document.body).backgroundColor');
      expect(bg).toBe(scheme === 'dark' ? 'rgb(13, 17, 23)' : 'rgb(255, 255, 255)');
      await page.close();
    }
  }, 60_000);
});

/**
 * Every element with text of its own on the page: its colour, the first opaque background
 * behind it, and their WCAG contrast ratio. Run in the page.
 */
const CONTRAST = `(() => {
  const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const background = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] === 1)) return c.slice(0, 3);
    }
    return rgb(getComputedStyle(document.documentElement).backgroundColor).slice(0, 3);
  };
  const out = [];
  for (const el of document.body.querySelectorAll('*')) {
    const own = Array.from(el.childNodes).some((n) => n.nodeType === 3 && n.textContent.trim() !== '');
    if (!own || el.getClientRects().length === 0) continue;
    const style = getComputedStyle(el);
    const fg = rgb(style.color);
    const bg = background(el);
    const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
    out.push({ text: el.textContent.trim().slice(0, 40), fg: style.color, bg: 'rgb(' + bg.join(', ') + ')', ratio: (hi + 0.05) / (lo + 0.05) });
  }
  return out;
})()`;
