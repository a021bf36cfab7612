/**
 * The routing tree, as in Alertmanager: an alert walks down from the root; at each level
 * the first matching child takes it (later siblings too when that child has `continue`);
 * where no child matches, the node itself is the match. Children inherit the receiver,
 * `group_by` and timings they do not set.
 */
import { type CompiledMatcher, compileMatchers, formatMatcher } from './matchers.js';
import type { RouteConfig } from './schema.js';

/** Defaults of the root route. */
export const ROUTE_DEFAULTS = {
  group_by: ['org', 'alertname'],
  group_wait: 30_000,
  group_interval: 5 * 60_000,
  repeat_interval: 4 * 3_600_000,
} as const;

/** A route node ready to match. */
export interface CompiledRoute {
  /** Stable id from the matchers on the path from the root: `{}/{severity="critical"}`. */
  id: string;
  receiver: string;
  matchers: CompiledMatcher[];
  /** Labels that form a group, or `all` for `['...']`. */
  groupBy: string[] | 'all';
  groupWait: number;
  groupInterval: number;
  repeatInterval: number;
  continue: boolean;
  routes: CompiledRoute[];
}

/** Compiles a route tree (already validated by the config schema). */
export function compileRoute(config: RouteConfig, parent?: CompiledRoute): CompiledRoute {
  const matchers = compileMatchers(config.matchers ?? []);
  const own = `{${matchers.map(formatMatcher).join(',')}}`;
  const groupBy = config.group_by ?? (parent ? parent.groupBy : [...ROUTE_DEFAULTS.group_by]);
  const node: CompiledRoute = {
    id: parent ? `${parent.id}/${own}` : own,
    receiver: config.receiver ?? parent?.receiver ?? '',
    matchers,
    groupBy: Array.isArray(groupBy) && groupBy.includes('...') ? 'all' : groupBy,
    groupWait: config.group_wait ?? parent?.groupWait ?? ROUTE_DEFAULTS.group_wait,
    groupInterval: config.group_interval ?? parent?.groupInterval ?? ROUTE_DEFAULTS.group_interval,
    repeatInterval: config.repeat_interval ?? parent?.repeatInterval ?? ROUTE_DEFAULTS.repeat_interval,
    continue: config.continue,
    routes: [],
  };
  const seen = new Map<string, number>();
  node.routes = (config.routes ?? []).map((child) => {
    const c = compileRoute(child, node);
    // Siblings with the same matchers still need distinct ids.
    const n = seen.get(c.id) ?? 0;
    seen.set(c.id, n + 1);
    if (n > 0) renumber(c, `${c.id}#${n}`);
    return c;
  });
  return node;
}

function renumber(node: CompiledRoute, id: string): void {
  const old = node.id;
  node.id = id;
  for (const child of node.routes) renumber(child, id + child.id.slice(old.length));
}

/** The routes an alert with these labels goes to (Alertmanager's semantics). */
export function matchRoutes(route: CompiledRoute, labels: Readonly<Record<string, string>>): CompiledRoute[] {
  if (!route.matchers.every((m) => m.test(labels))) return [];
  const all: CompiledRoute[] = [];
  for (const child of route.routes) {
    const matched = matchRoutes(child, labels);
    all.push(...matched);
    if (matched.length > 0 && !child.continue) break;
  }
  return all.length > 0 ? all : [route];
}

/** The labels of an alert that form its group on a route. */
export function groupLabels(
  route: CompiledRoute,
  labels: Readonly<Record<string, string>>,
): Record<string, string> {
  if (route.groupBy === 'all') return { ...labels };
  const out: Record<string, string> = {};
  for (const k of route.groupBy) {
    const v = labels[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/** The group key: route id and group labels, `{}:{alertname="x", org="acme"}`. */
export function groupKey(route: CompiledRoute, group: Readonly<Record<string, string>>): string {
  const parts = Object.keys(group)
    .sort()
    .map((k) => `${k}=${JSON.stringify(group[k])}`);
  return `${route.id}:{${parts.join(', ')}}`;
}

/** Every route node, depth first. */
export function allRoutes(route: CompiledRoute): CompiledRoute[] {
  return [route, ...route.routes.flatMap(allRoutes)];
}
