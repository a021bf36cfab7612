/**
 * Renders the default alert e-mail (firing and resolved) to PNG with headless Chromium,
 * for docs/images/. Run: `npx tsx scripts/render-email.ts` (needs `chromium` on PATH).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
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

const outDir = path.resolve('docs/images');
const work = mkdtempSync(path.join(tmpdir(), 'tally-render-'));
try {
  const templates = new EmailTemplates();
  for (const [name, n, height] of [
    ['alert-email.png', firing, 720],
    ['alert-email-resolved.png', resolved, 600],
  ] as const) {
    const html = path.join(work, `${name}.html`);
    writeFileSync(html, templates.render(n).html);
    execFileSync(
      'chromium',
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--hide-scrollbars',
        `--user-data-dir=${path.join(work, `profile-${name}`)}`,
        `--screenshot=${path.join(outDir, name)}`,
        `--window-size=900,${height}`,
        `file://${html}`,
      ],
      { stdio: 'ignore' },
    );
    process.stdout.write(`wrote docs/images/${name}\n`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
