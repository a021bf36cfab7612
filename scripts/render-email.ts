/**
 * Renders the default alert e-mail (firing and resolved) to PNG with headless Chromium
 * (Debian's /usr/bin/chromium, or CHROMIUM), driven by playwright-core, for docs/images/.
 * Run: `npx tsx scripts/render-email.ts [OUT_DIR]`. The e2e test
 * test/e2e/email-render.test.ts runs it into a temporary directory.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import type { Alert, Notification } from '../src/alerts/types.js';
import { EmailTemplates } from '../src/notify/email/templates.js';

const T = Date.parse('2025-03-01T14:05:09Z');

function alert(channel: string, summary: string, description: string, offsetMin: number): Alert {
  return {
    fingerprint: `fp-${channel}`,
    labels: { alertname: 'ChannelOffline', org: 'acme', channel, severity: 'critical' },
    annotations: { summary, description },
    state: 'firing',
    activeAt: T + offsetMin * 60_000 - 60_000,
    startsAt: T + offsetMin * 60_000,
    generatorURL: `https://tally.example.com/orgs/acme/channels/${channel}`,
  };
}

const alerts = [
  alert(
    'morning-news',
    'Channel morning-news went offline',
    'The channel stopped streaming during a scheduled session (Morning briefing, 14:00–15:00).',
    0,
  ),
  alert(
    'sports-live',
    'Channel sports-live went offline',
    'No stream for 2 minutes while 1,204 listeners were connected.',
    3,
  ),
  alert(
    'talk-radio',
    'Channel talk-radio went offline',
    'The channel reports status "offline" since its last session ended early.',
    7,
  ),
];

const firing: Notification = {
  id: 'example:1',
  receiver: 'ops-mail',
  groupKey: '{}:{alertname="ChannelOffline", org="acme"}',
  status: 'firing',
  alerts,
  groupLabels: { alertname: 'ChannelOffline', org: 'acme' },
  commonLabels: { alertname: 'ChannelOffline', org: 'acme', severity: 'critical' },
  commonAnnotations: {},
  createdAt: T + 8 * 60_000,
  externalURL: 'https://tally.example.com',
};

const resolved: Notification = {
  ...firing,
  id: 'example:2',
  status: 'resolved',
  alerts: alerts
    .slice(0, 2)
    .map((a) => ({ ...a, state: 'resolved' as const, endsAt: (a.startsAt ?? T) + 12 * 60_000 })),
  createdAt: T + 22 * 60_000,
};

/** The screenshots {@link renderEmails} writes, by file name. */
export const EMAIL_SHOTS = { 'alert-email.png': firing, 'alert-email-resolved.png': resolved } as const;

/** Renders every mail of {@link EMAIL_SHOTS} to `outDir`; returns the files written. */
export async function renderEmails(
  outDir: string,
  executablePath = process.env['CHROMIUM'] ?? '/usr/bin/chromium',
): Promise<string[]> {
  const templates = new EmailTemplates();
  const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu'] });
  const written: string[] = [];
  try {
    const page = await browser.newPage({ viewport: { width: 760, height: 400 }, deviceScaleFactor: 1 });
    // Nothing from the network: the mail is self-contained, and the page must not fetch.
    const fetched: string[] = [];
    await page.route('**/*', (route) => {
      fetched.push(route.request().url());
      return route.abort();
    });
    for (const [name, n] of Object.entries(EMAIL_SHOTS)) {
      await page.setContent(templates.render(n).html, { waitUntil: 'load' });
      const file = path.join(outDir, name);
      await page.screenshot({ path: file, fullPage: true });
      written.push(file);
    }
    if (fetched.length > 0) throw new Error(`the mail fetched ${fetched.join(', ')}`);
  } finally {
    await browser.close();
  }
  return written;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const out = path.resolve(process.argv[2] ?? 'docs/images');
  for (const file of await renderEmails(out))
    process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`);
}
