/**
 * What a config reload changes. `orgs` and the alerting sections apply at once; the rest
 * keep their running values until a restart (docs/operations.md, "Hot reload").
 */
import type { Config } from '../config/schema.js';

/** Config sections the alerting half is built from; a reload that changes one rebuilds it. */
export const ALERTING_SECTIONS = [
  'rules',
  'route',
  'silences',
  'maintenance',
  'inhibit',
  'receivers',
  'delivery',
] as const;

/** Config sections that keep their running value until a restart. */
export const RESTART_SECTIONS = ['upstream', 'intervals', 'removals', 'server', 'state', 'log'] as const;

/** The sections a reload applies. */
export type Reloadable = Pick<Config, 'orgs' | (typeof ALERTING_SECTIONS)[number]>;

/** What a reload from `running` to `next` must do. */
export interface ReloadPlan {
  /** The alerting half must be rebuilt (its sections, or the orgs' slugs or labels, changed). */
  alerting: boolean;
  /** Sections that changed but apply only on restart. */
  restartNeeded: (typeof RESTART_SECTIONS)[number][];
}

/** Compares two configs section by section. */
export function planReload(running: Config, next: Config): ReloadPlan {
  const changed = (k: keyof Config) => JSON.stringify(next[k]) !== JSON.stringify(running[k]);
  const orgKey = (c: Config) => JSON.stringify(c.orgs.map((o) => [o.slug, o.labels ?? {}]));
  return {
    alerting: ALERTING_SECTIONS.some((k) => changed(k)) || orgKey(next) !== orgKey(running),
    restartNeeded: RESTART_SECTIONS.filter((k) => changed(k)),
  };
}

/** The sections of `config` that apply on a reload: orgs and the alerting half. */
export function reloadable(config: Config): Reloadable {
  return {
    orgs: config.orgs,
    rules: config.rules,
    route: config.route,
    silences: config.silences,
    maintenance: config.maintenance,
    inhibit: config.inhibit,
    receivers: config.receivers,
    delivery: config.delivery,
  };
}
