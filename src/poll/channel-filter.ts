/** The channels an org watches: the `channels.include` / `exclude` patterns of its config. */
import type { Channel } from '../snapshot/model.js';

/** Which channels an org watches (from its config). */
export interface ChannelFilter {
  include?: readonly string[] | undefined;
  exclude?: readonly string[] | undefined;
}

/** Whether a channel passes an include/exclude filter (by id or name; `*` matches any run). */
export function channelMatches(channel: Channel, filter: ChannelFilter): boolean {
  const names = [channel.id, channel.name].filter((n): n is string => n !== undefined);
  const hit = (patterns: readonly string[]) => patterns.some((p) => names.some((n) => globMatch(p, n)));
  if (filter.include && filter.include.length > 0 && !hit(filter.include)) return false;
  if (filter.exclude && hit(filter.exclude)) return false;
  return true;
}

function globMatch(pattern: string, text: string): boolean {
  const re = new RegExp(`^${pattern.split('*').map(escapeRe).join('.*')}$`, 'i');
  return re.test(text);
}

function escapeRe(s: string): string {
  return s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}
