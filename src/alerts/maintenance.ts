/**
 * Maintenance windows: one-off (`starts_at` to `ends_at`) or recurring (a cron schedule
 * in a time zone, each start opening a window of `duration`). Alerts they match are
 * tracked but not sent, like silenced ones. Recurring windows follow the wall clock of
 * their time zone through daylight-saving changes (croner's rules for skipped and
 * repeated hours).
 */
import { Cron } from 'croner';
import { type CompiledMatcher, compileMatchers, matchesAll } from './matchers.js';
import type { MaintenanceConfig } from './schema.js';

interface Window {
  name: string;
  matchers: CompiledMatcher[];
  /** The window that contains `at`, if any. */
  containing(at: number): { start: number; end: number } | undefined;
  /** The next window starting after `at`. */
  next(at: number): { start: number; end: number } | undefined;
}

/** A maintenance window as the API lists it. */
export interface MaintenanceView {
  name: string;
  matchers: string[];
  schedule?: string;
  time_zone?: string;
  active: boolean;
  /** The current window when active, else the next one. */
  starts_at?: string;
  ends_at?: string;
}

/** The configured maintenance windows. */
export class MaintenanceWindows {
  private readonly windows: Window[];

  constructor(private readonly config: readonly MaintenanceConfig[]) {
    this.windows = config.map(toWindow);
  }

  /** Names of the windows open at `now` that match the labels. */
  matching(labels: Readonly<Record<string, string>>, now: number): string[] {
    const out: string[] = [];
    for (const w of this.windows) {
      if (w.containing(now) && matchesAll(w.matchers, labels)) out.push(w.name);
    }
    return out;
  }

  /** Every window with whether it is open now and its current or next occurrence. */
  list(now: number): MaintenanceView[] {
    return this.windows.map((w, i) => {
      const c = this.config[i]!;
      const cur = w.containing(now);
      const span = cur ?? w.next(now);
      const v: MaintenanceView = {
        name: w.name,
        matchers: [...(c.matchers ?? [])],
        active: cur !== undefined,
      };
      if (c.schedule !== undefined) {
        v.schedule = c.schedule;
        v.time_zone = c.time_zone;
      }
      if (span) {
        v.starts_at = new Date(span.start).toISOString();
        v.ends_at = new Date(span.end).toISOString();
      }
      return v;
    });
  }
}

function toWindow(c: MaintenanceConfig): Window {
  const matchers = compileMatchers(c.matchers ?? []);
  if (c.schedule === undefined) {
    const span = { start: c.starts_at!, end: c.ends_at! };
    return {
      name: c.name,
      matchers,
      containing: (at) => (span.start <= at && at < span.end ? span : undefined),
      next: (at) => (at < span.start ? span : undefined),
    };
  }
  const cron = new Cron(c.schedule, { timezone: c.time_zone, paused: true });
  const length = c.duration!;
  return {
    name: c.name,
    matchers,
    // The window open at `at` started in (at - length, at]: the first start after at - length.
    containing(at) {
      const start = cron.nextRun(new Date(at - length))?.getTime();
      return start !== undefined && start <= at ? { start, end: start + length } : undefined;
    },
    next(at) {
      const start = cron.nextRun(new Date(at))?.getTime();
      return start === undefined ? undefined : { start, end: start + length };
    },
  };
}
