import { describe, expect, it } from 'vitest';
import { notificationTitle, statusTag, subjectLine, truncate } from '../../src/notify/summary.js';
import { firingNotification, resolvedNotification } from './helpers/fixtures.js';

describe('summary words', () => {
  const mixed = firingNotification();
  mixed.alerts[0] = { ...mixed.alerts[0]!, state: 'resolved', endsAt: 1 };

  it.each([
    ['firing with 3 alerts', firingNotification(), '[FIRING:3]', '[FIRING:3] ChannelOffline (org=acme)'],
    ['firing with one of 3 resolved', mixed, '[FIRING:2]', '[FIRING:2] ChannelOffline (org=acme)'],
    ['resolved', resolvedNotification(), '[RESOLVED]', '[RESOLVED] ChannelOffline (org=acme)'],
    [
      'test',
      firingNotification({ test: true }, 1),
      '[FIRING:1]',
      '[TEST] [FIRING:1] Channel news-1 went offline',
    ],
    [
      'one alert resolved: how it ended',
      (() => {
        const n = firingNotification({ status: 'resolved' }, 1);
        n.alerts[0] = {
          ...n.alerts[0]!,
          state: 'resolved',
          annotations: {
            summary: 'No-show: A on B',
            resolved_summary: 'Started late: A on B went live at 10:12',
          },
        };
        return n;
      })(),
      '[RESOLVED]',
      '[RESOLVED] Started late: A on B went live at 10:12',
    ],
  ])('%s', (_name, n, tag, subject) => {
    expect(statusTag(n)).toBe(tag);
    expect(subjectLine(n)).toBe(subject);
  });

  it.each([
    [{ alertname: 'A' }, {}, 'A'],
    [{ alertname: 'A', org: 'x', channel: 'y' }, {}, 'A (org=x, channel=y)'],
    [{}, { alertname: 'FromCommon' }, 'FromCommon'],
    [{}, {}, 'tally alert'],
  ])('title of group labels %j, common %j → %s', (groupLabels, commonLabels, title) => {
    expect(notificationTitle(firingNotification({ groupLabels, commonLabels }))).toBe(title);
  });

  it.each([
    ['short', 10, 'short'],
    ['exactly10!', 10, 'exactly10!'],
    ['much too long', 5, 'much…'],
  ])('truncate(%s, %i)', (text, max, out) => {
    expect(truncate(text, max)).toBe(out);
  });
});
