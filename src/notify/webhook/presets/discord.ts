/**
 * Discord webhook body: one embed coloured by status, a field per alert. Mentions are
 * switched off so that alert text can never ping a channel.
 */
import type { Notification } from '../../../alerts/types.js';
import { isoTime, subjectLine, truncate } from '../../summary.js';
import { labelText, listedAlerts } from './common.js';

const RED = 0xc62828;
const GREEN = 0x2e7d32;

/** Escapes Discord markdown so that label values show as written. */
export function discordEscape(text: string): string {
  return text.replace(/([\\*_~`|>[\]()#-])/g, '\\$1');
}

/** The Discord body of `n`. */
export function discordPayload(n: Notification): Record<string, unknown> {
  const { shown, more } = listedAlerts(n);
  const fields = shown.map((a) => {
    const lines: string[] = [];
    if (a.description) lines.push(discordEscape(a.description));
    const labels = labelText(a);
    if (labels) lines.push(`\`${labels.replace(/`/g, "'")}\``);
    lines.push(a.status === 'firing' ? `Firing since ${a.startsAtText}` : `Resolved ${a.endsAtText}`);
    if (a.generatorURL) lines.push(`[Details](${a.generatorURL})`);
    return {
      name: truncate(`${a.status === 'firing' ? '🔴' : '✅'} ${a.summary}`, 256),
      value: truncate(lines.join('\n'), 1024),
      inline: false,
    };
  });
  const embed: Record<string, unknown> = {
    title: truncate(subjectLine(n), 256),
    color: n.status === 'firing' ? RED : GREEN,
    fields,
    footer: { text: truncate(`tally · ${n.receiver}${more > 0 ? ` · …and ${more} more` : ''}`, 2048) },
  };
  const summary = n.commonAnnotations['summary'];
  if (summary && n.alerts.length > 1) embed['description'] = truncate(discordEscape(summary), 4096);
  if (n.externalURL) embed['url'] = n.externalURL;
  const ts = isoTime(n.createdAt);
  if (ts) embed['timestamp'] = ts;
  return { username: 'tally', embeds: [embed], allowed_mentions: { parse: [] } };
}
