/** The channels an org watches: the `channels.include` / `exclude` patterns of its config. */
import type { ChangeEvent } from '../snapshot/events.js';
import type { Channel, Part } from '../snapshot/model.js';

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

/**
 * An org's channel list seen whole through its filter: the ids of the whole list, of the
 * read being folded and of the last one committed. A channel that leaves or enters the
 * filter (renamed, or the filter changed on reload) is not a channel removed or added.
 */
export class FilteredList {
  private read: Set<string> | undefined;
  private committed: Set<string> | undefined;

  /** The channels of a list read that pass `filter`; the whole list's ids are kept for {@link review}. */
  apply(part: Part<Channel[]>, filter: ChannelFilter | undefined): Part<Channel[]> {
    if (part.state === 'failed' || !filter) return part;
    this.read = new Set(part.value.map((c) => c.id));
    return { ...part, value: part.value.filter((c) => channelMatches(c, filter)) };
  }

  /**
   * The events of a channel-list read as the whole list sees them: a channel gone from
   * the filtered list but still in the whole one left the filter (`left`), one new to the
   * filtered list but in the whole list last time entered it (`entered`); neither is a
   * channel removed or added. Without a filter, or before a whole list was seen, the
   * events are as the diff found them.
   */
  review(
    found: ChangeEvent[],
    filter: ChannelFilter | undefined,
  ): { events: ChangeEvent[]; left: string[]; entered: string[] } {
    const whole = this.read;
    const before = this.committed;
    this.read = undefined;
    if (whole !== undefined) this.committed = whole;
    if (!filter || whole === undefined) return { events: found, left: [], entered: [] };
    const left: string[] = [];
    const entered: string[] = [];
    const events = found.filter((e) => {
      if (e.kind === 'channel.removed' && whole.has(e.entity.id)) {
        left.push(e.entity.id);
        return false;
      }
      if (e.kind === 'channel.added' && before?.has(e.entity.id)) {
        entered.push(e.entity.id);
        return false;
      }
      return true;
    });
    return { events, left, entered };
  }
}
