/**
 * Reads a Grafana dashboard's JSON: its panels with their PromQL targets and its template
 * variables, and fills a query's variables in the way Grafana does before sending it.
 */

/** One PromQL target of a panel. */
export interface PanelTarget {
  refId: string;
  expr: string;
  instant: boolean;
}

/** A panel that queries (rows left out), with its targets. */
export interface QueryPanel {
  id: number;
  title: string;
  type: string;
  datasource: unknown;
  targets: PanelTarget[];
}

interface RawPanel {
  id?: number;
  title?: string;
  type?: string;
  datasource?: unknown;
  targets?: { refId?: string; expr?: string; instant?: boolean }[];
  panels?: RawPanel[];
}

/** Every panel with queries, those inside collapsed rows included. */
export function dashboardPanels(dashboard: Record<string, unknown>): QueryPanel[] {
  const out: QueryPanel[] = [];
  const visit = (list: RawPanel[] | undefined) => {
    for (const p of list ?? []) {
      if (p.type === 'row') {
        visit(p.panels);
        continue;
      }
      out.push({
        id: p.id ?? 0,
        title: p.title ?? '',
        type: p.type ?? '',
        datasource: p.datasource,
        targets: (p.targets ?? []).map((t) => ({
          refId: t.refId ?? '',
          expr: t.expr ?? '',
          instant: t.instant ?? false,
        })),
      });
    }
  };
  visit(dashboard['panels'] as RawPanel[] | undefined);
  return out;
}

/** One template variable. */
export interface DashboardVariable {
  name: string;
  type: string;
  query?: unknown;
}

/** The dashboard's template variables. */
export function dashboardVariables(dashboard: Record<string, unknown>): DashboardVariable[] {
  const templating = dashboard['templating'] as { list?: DashboardVariable[] } | undefined;
  return templating?.list ?? [];
}

/**
 * Fills Grafana's variables into a query: `$name` and `${name}` from `values` (each value
 * as the query should see it, e.g. a regex for a multi-value variable), and the interval
 * variables `$__rate_interval`, `$__interval` and `$__range`.
 */
export function fillVariables(
  expr: string,
  values: Readonly<Record<string, string>>,
  interval = '1m',
): string {
  const builtins: Record<string, string> = {
    __rate_interval: interval,
    __interval: interval,
    __range: interval,
  };
  return expr.replace(
    /\$\{(\w+)\}|\$(\w+)/g,
    (_whole, braced: string | undefined, bare: string | undefined) => {
      const name = (braced ?? bare)!;
      const value = builtins[name] ?? values[name];
      if (value === undefined) throw new Error(`no value for $${name} in ${expr}`);
      return value;
    },
  );
}
