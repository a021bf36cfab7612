/**
 * A one-screen, secret-free summary of a configuration, for `tally check` and the
 * daemon's start-up line.
 */
import type { Config } from './schema.js';
import { formatDuration } from '../core/units.js';
import { ROUTE_DEFAULTS } from '../alerts/route.js';

/** Removes credentials and query strings from a URL before it is shown. */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    u.search = '';
    return u.toString();
  } catch {
    return '(invalid URL)';
  }
}

/** Renders the summary lines (no secret ever appears in them). */
export function summarizeConfig(config: Config, source: string): string[] {
  const iv = config.intervals;
  const lines = [
    `config: ${source}`,
    `upstream: ${safeUrl(config.upstream.base_url)} (budget ${config.upstream.budget_per_minute} requests/minute, concurrency ${config.upstream.concurrency})`,
    `orgs: ${config.orgs.length}`,
  ];
  for (const org of config.orgs) {
    const parts = ['token set'];
    if (org.token_expires_at) parts.push(`expires ${org.token_expires_at}`);
    if (org.channels?.include) parts.push(`channels include ${org.channels.include.join(', ')}`);
    if (org.channels?.exclude) parts.push(`channels exclude ${org.channels.exclude.join(', ')}`);
    lines.push(`  - ${org.slug} (${parts.join('; ')})`);
  }
  lines.push(
    `intervals: org ${formatDuration(iv.org)}, team ${formatDuration(iv.team)}, subscription ${formatDuration(iv.subscription)}, ` +
      `channels ${formatDuration(iv.channels)}, live sessions ${formatDuration(iv.live_sessions)}, ` +
      `live detail ${formatDuration(iv.live_detail)}, sweep ${formatDuration(iv.sweep)} (jitter ${Math.round(iv.jitter * 100)}%)`,
    `session window: ${formatDuration(config.upstream.window.past)} back, ${formatDuration(config.upstream.window.future)} ahead`,
    `server: ${config.server.listen}${config.server.auth ? ' (auth on; writes need credentials)' : config.server.enable_writes ? ' (writes open)' : ' (writes closed)'}`,
    `state: ${config.state.dir}`,
    `log: ${config.log.level}, ${config.log.format}`,
    `rules: ${config.rules.length} (${config.rules.filter((r) => 'on' in r && r.on !== undefined).length} on events, ${config.rules.filter((r) => !('on' in r && r.on !== undefined)).length} on conditions)`,
    `receivers: ${config.receivers.length === 0 ? 'none' : config.receivers.map((r) => `${r.name} (${r.type})`).join(', ')}`,
    `route: ${config.route ? `to ${config.route.receiver ?? '(none)'}, grouped by ${groupedBy(config.route.group_by)}, ${config.route.routes?.length ?? 0} sub-routes` : 'none'}`,
    `silences: ${config.silences.length}, maintenance windows: ${config.maintenance.length}`,
  );
  return lines;
}

/** How the root route groups alerts, in words: its `group_by`, or the default it takes when unset. */
function groupedBy(groupBy: readonly string[] | undefined): string {
  if (groupBy === undefined) return `${ROUTE_DEFAULTS.group_by.join(', ')} (the default)`;
  if (groupBy.includes('...')) return 'every label';
  return groupBy.length === 0 ? 'nothing (one group for all alerts)' : groupBy.join(', ');
}
