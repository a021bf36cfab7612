/**
 * Slack incoming-webhook body: `text` (the notification line and the fallback for
 * clients without blocks) and Block Kit `blocks`: a header, a section per alert, a footer.
 */
import type { Notification } from '../../../alerts/types.js';
import { subjectLine, truncate } from '../../summary.js';
import { labelText, listedAlerts } from './common.js';

/** Escapes the three characters Slack's mrkdwn treats as markup. */
export function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The Slack body of `n`. */
export function slackPayload(n: Notification): Record<string, unknown> {
  const { shown, more } = listedAlerts(n);
  const icon = n.status === 'firing' ? ':red_circle:' : ':white_check_mark:';
  const blocks: Record<string, unknown>[] = [
    { type: 'header', text: { type: 'plain_text', text: truncate(subjectLine(n), 150), emoji: true } },
  ];
  for (const a of shown) {
    const mark = a.status === 'firing' ? ':red_circle:' : ':white_check_mark:';
    const summary = slackEscape(a.summary);
    const head = a.generatorURL ? `<${a.generatorURL}|${summary}>` : summary;
    const lines = [`${mark} *${head}*`];
    if (a.description) lines.push(slackEscape(a.description));
    const labels = labelText(a);
    if (labels) lines.push(`\`${slackEscape(labels)}\``);
    lines.push(
      a.status === 'firing'
        ? `Firing since ${a.startsAtText}`
        : `Resolved ${a.endsAtText} (started ${a.startsAtText})`,
    );
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: truncate(lines.join('\n'), 3000) } });
  }
  const footer = [`Sent by tally to ${slackEscape(n.receiver)}`];
  if (more > 0) footer.unshift(`…and ${more} more`);
  if (n.externalURL) footer.push(`<${n.externalURL}|Open tally>`);
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: footer.join(' · ') }] });
  return { text: `${icon} ${slackEscape(subjectLine(n))}`, blocks };
}
