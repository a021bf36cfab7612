/**
 * Hot reload of the alerting half, end to end through the App: rules, route and
 * receivers change without a restart; a firing alert of a rule that stays is not sent
 * again; events that arrive while the alerting half is swapped are not lost.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { type Simulator, startSimulator } from '../../src/sim/index.js';
import { type HttpReceiver, startHttpReceiver } from '../notify/helpers/http-receiver.js';
import { baselineDone, otherStatus, startTally, type Tally, tallyConfig, tempDir, until } from './helpers.js';

let sim: Simulator | undefined;
let tally: Tally | undefined;
let rx: HttpReceiver | undefined;
let cleanup: (() => Promise<void>) | undefined;

afterEach(async () => {
  await tally?.stop();
  await sim?.close();
  await rx?.close();
  await cleanup?.();
  tally = sim = rx = undefined;
});

/** Rules and receivers: `org_watched` always fires; `changeRule` fires on channel status changes. */
function alerting(changeRule: string, path: string): string {
  return `rules:
  - name: org_watched
    for_each: org
    when: 'true'
  - name: ${changeRule}
    on: channel.status_changed
route:
  receiver: hook
  group_by: ['...']
  group_wait: 0s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: hook
    webhook: { url: ${rx!.url}${path} }
delivery:
  timeout: 1s
  backoff: { base: 100ms, max: 300ms }
`;
}

const posts = (path: string, alertname: string) =>
  rx!.requests.filter((r) => r.url === path && r.body.includes(`"${alertname}"`));

describe('hot reload of rules, route and receivers', () => {
  it('applies them at once, keeps firing alerts without sending them again, and loses no event', async () => {
    const tmp = await tempDir('reload');
    cleanup = tmp.remove;
    rx = await startHttpReceiver();
    sim = await startSimulator({ seed: 5, channels: 4, sessionsPerChannel: 2, frozen: true });
    const s = sim;
    tally = await startTally({ sim, stateDir: tmp.dir, extra: alerting('channel_changed', '/a') });
    const t = tally;
    await until(() => baselineDone(t), 'the baseline');
    await until(() => posts('/a', 'org_watched').length === 1, 'the org_watched notification');

    const change = (index: number) => {
      const channel = s.view('demo').channels[index]!;
      s.trigger.channelStatus({ channel: String(channel['id']), status: otherStatus(channel['status']) });
    };
    change(0);
    await until(() => posts('/a', 'channel_changed').length === 1, 'channel_changed at /a');

    // The new config renames the event rule and sends to /b. The change is triggered while
    // the reload runs: it must reach the new rules, not fall between the two.
    const next = await parseConfig(
      tallyConfig({ sim, stateDir: tmp.dir, extra: alerting('channel_flipped', '/b') }),
      { source: 'test.yaml', env: {}, baseDir: tmp.dir },
    );
    const reloading = t.app.reload(next);
    change(1);
    await reloading;
    await until(() => posts('/b', 'channel_flipped').length === 1, 'channel_flipped at /b');

    // The removed rule's alert ends; the kept rule's alert still fires.
    const engine = t.app.alerting.engine;
    expect(
      engine
        .alerts({})
        .filter((a) => a.rule === 'channel_changed')
        .map((a) => a.state),
    ).toEqual(['resolved']);
    expect(
      engine
        .alerts({ state: 'firing' })
        .map((a) => a.rule)
        .sort(),
    ).toEqual(['channel_flipped', 'org_watched']);

    // Another change after the reload, then room for anything sent twice to show up.
    change(2);
    await until(
      () => posts('/b', 'channel_flipped').length === 2 && posts('/b', 'channel_changed').length >= 1,
      'the second channel_flipped and the resolved channel_changed at /b',
    );
    await new Promise((r) => setTimeout(r, 1500));
    expect(posts('/a', 'channel_changed')).toHaveLength(1);
    expect(posts('/a', 'channel_flipped')).toHaveLength(0);
    // The removed rule's alert is announced as resolved, to the receiver as it now is.
    const resolvedAtB = posts('/b', 'channel_changed').map(
      (r) => (JSON.parse(r.body) as { status: string }).status,
    );
    expect(resolvedAtB).toEqual(['resolved']);
    expect(rx.requests.filter((r) => r.body.includes('"org_watched"'))).toHaveLength(1);
  });
});
