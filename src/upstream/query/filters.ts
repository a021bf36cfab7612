/**
 * Query parameters of a session list: the time window and, optionally, statuses, with
 * the names and time format of `upstream.filters` (the API document leaves them open).
 */
import type { TimeWindow } from '../../snapshot/model.js';

/** The `upstream.filters` config section. */
export interface SessionFilters {
  status_param: string;
  from_param: string;
  to_param: string;
  time_format: 'iso' | 'epoch_s' | 'epoch_ms';
  status_separator: string;
  /** Whether a status filter is sent to the server (else applied after reading). */
  send_status: boolean;
}

/** Defaults of {@link SessionFilters}, as in the config schema. */
export const DEFAULT_FILTERS: SessionFilters = {
  status_param: 'status',
  from_param: 'from',
  to_param: 'to',
  time_format: 'iso',
  status_separator: ',',
  send_status: false,
};

/** Formats a time (ms) the way the server expects it. */
export function formatFilterTime(ms: number, format: SessionFilters['time_format']): string {
  if (format === 'epoch_s') return String(Math.floor(ms / 1000));
  if (format === 'epoch_ms') return String(Math.floor(ms));
  return new Date(ms).toISOString();
}

/** The window `[now - past, now + future]`. */
export function defaultWindow(now: number, window: { pastMs: number; futureMs: number }): TimeWindow {
  return { from: now - window.pastMs, to: now + window.futureMs };
}

/** Query parameters for one session list read. */
export function sessionQuery(
  filters: SessionFilters,
  window: TimeWindow,
  statuses: readonly string[] | undefined,
): Record<string, string> {
  const q: Record<string, string> = {
    [filters.from_param]: formatFilterTime(window.from, filters.time_format),
    [filters.to_param]: formatFilterTime(window.to, filters.time_format),
  };
  if (filters.send_status && statuses && statuses.length > 0) {
    q[filters.status_param] = statuses.join(filters.status_separator);
  }
  return q;
}

export { outsideWindow } from '../../snapshot/diff-window.js';
