/**
 * Microsoft Teams body for a Workflows ("Post to a channel when a webhook request is
 * received") URL: a message with one Adaptive Card (schema 1.4), a container per alert.
 */
import type { Notification } from '../../../alerts/types.js';
import { subjectLine } from '../../summary.js';
import { listedAlerts } from './common.js';

/** The Teams body of `n`. */
export function teamsPayload(n: Notification): Record<string, unknown> {
  const { shown, more } = listedAlerts(n);
  const body: Record<string, unknown>[] = [
    {
      type: 'TextBlock',
      text: subjectLine(n),
      weight: 'Bolder',
      size: 'Large',
      color: n.status === 'firing' ? 'Attention' : 'Good',
      wrap: true,
    },
  ];
  for (const a of shown) {
    const items: Record<string, unknown>[] = [
      {
        type: 'TextBlock',
        text: `${a.status === 'firing' ? 'FIRING' : 'RESOLVED'}: ${a.summary}`,
        weight: 'Bolder',
        color: a.status === 'firing' ? 'Attention' : 'Good',
        wrap: true,
      },
    ];
    if (a.description) items.push({ type: 'TextBlock', text: a.description, isSubtle: true, wrap: true });
    const facts = a.labelList.map((l) => ({ title: l.name, value: l.value }));
    facts.push(
      a.status === 'firing'
        ? { title: 'since', value: a.startsAtText }
        : { title: 'resolved', value: a.endsAtText },
    );
    items.push({ type: 'FactSet', facts });
    const container: Record<string, unknown> = {
      type: 'Container',
      separator: true,
      spacing: 'Medium',
      items,
    };
    if (a.generatorURL) container['selectAction'] = { type: 'Action.OpenUrl', url: a.generatorURL };
    body.push(container);
  }
  if (more > 0) body.push({ type: 'TextBlock', text: `…and ${more} more`, isSubtle: true, wrap: true });
  body.push({
    type: 'TextBlock',
    text: `Sent by tally to ${n.receiver}`,
    isSubtle: true,
    size: 'Small',
    wrap: true,
  });
  const card: Record<string, unknown> = {
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    type: 'AdaptiveCard',
    version: '1.4',
    msteams: { width: 'Full' },
    body,
  };
  if (n.externalURL) card['actions'] = [{ type: 'Action.OpenUrl', title: 'Open tally', url: n.externalURL }];
  return {
    type: 'message',
    attachments: [
      { contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content: card },
    ],
  };
}
