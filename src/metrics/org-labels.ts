/**
 * `tally_org_labels`: one series per org carrying the extra labels of its config entry
 * (`orgs[].labels`), to be joined onto any org metric:
 *
 *   tally_channels * on (org) group_left (team) tally_org_labels
 *
 * The label names are whatever the config says and may change on a reload, which a
 * prom-client Gauge cannot follow (its label names are fixed when it is made), so this is
 * a listed family whose label names are chosen at scrape time.
 */
import type { Registry } from 'prom-client';
import type { StatusSource } from '../poll/status.js';
import { listedFamily } from './collected.js';
import { getOwn, setOwn } from '../core/own.js';

/** Label names an org's config may not take over: the metric's own, and Prometheus's reserved ones. */
function usable(name: string): boolean {
  return name !== 'org' && !name.startsWith('__');
}

/** Registers `tally_org_labels` on the registry. */
export function registerOrgLabels(registry: Registry, source: StatusSource): void {
  listedFamily<string>(
    registry,
    'tally_org_labels',
    'Extra labels of each org from its config entry (orgs[].labels); always 1, for joins on org.',
    ['org'],
    (emit) => {
      const orgs = [...source.orgs()].sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
      const names = new Set<string>();
      for (const o of orgs) for (const k of Object.keys(o.labels)) if (usable(k)) names.add(k);
      const sorted = [...names].sort();
      for (const o of orgs) {
        const labels: Record<string, string> = { org: o.slug };
        // Every series carries every name: an empty value is the same as no label to Prometheus.
        for (const k of sorted) setOwn(labels, k, getOwn(o.labels, k) ?? '');
        emit(labels, 1);
      }
    },
  );
}
