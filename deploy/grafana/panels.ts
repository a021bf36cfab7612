/**
 * Small helpers for tally's Grafana dashboard: PromQL targets on the dashboard's data
 * source, and panels of each kind with the options tally's panels share.
 */
import * as common from '@grafana/grafana-foundation-sdk/common';
import * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import { PanelBuilder as BarGauge } from '@grafana/grafana-foundation-sdk/bargauge';
import { DataqueryBuilder, PromQueryFormat } from '@grafana/grafana-foundation-sdk/prometheus';
import { PanelBuilder as Stat } from '@grafana/grafana-foundation-sdk/stat';
import { PanelBuilder as StateTimeline } from '@grafana/grafana-foundation-sdk/statetimeline';
import { PanelBuilder as Table } from '@grafana/grafana-foundation-sdk/table';
import { PanelBuilder as TimeSeries } from '@grafana/grafana-foundation-sdk/timeseries';

/** The Prometheus data source, picked with the dashboard's `datasource` variable. */
export const DATASOURCE: common.DataSourceRef = { type: 'prometheus', uid: '${datasource}' };

/** Series of the selected tally instances. */
export const INSTANCE = 'instance=~"$instance"';
/** Series of the selected orgs on the selected instances. */
export const ORG = 'instance=~"$instance",org=~"$org"';

/** One query of a panel. */
export interface Query {
  expr: string;
  legend?: string;
  /** An instant query shown as a table (current values), rather than a range. */
  table?: boolean;
}

function target(q: Query, refId: string): DataqueryBuilder {
  const t = new DataqueryBuilder().expr(q.expr).refId(refId).datasource(DATASOURCE);
  if (q.legend !== undefined) t.legendFormat(q.legend);
  if (q.table) t.instant().format(PromQueryFormat.Table);
  else t.range();
  return t;
}

/** What every panel has: a title, a description, a place on the grid and its queries. */
interface PanelBase {
  title: string;
  description: string;
  /** Width in grid columns (of 24). */
  width: number;
  height?: number;
  unit?: string;
  queries: Query[];
}

interface Common {
  title(t: string): unknown;
  description(d: string): unknown;
  span(n: number): unknown;
  height(n: number): unknown;
  datasource(d: common.DataSourceRef): unknown;
  unit(u: string): unknown;
  withTarget(t: DataqueryBuilder): unknown;
}

function base<T extends Common>(panel: T, p: PanelBase): T {
  panel.title(p.title);
  panel.description(p.description);
  panel.span(p.width);
  panel.height(p.height ?? 8);
  panel.datasource(DATASOURCE);
  if (p.unit) panel.unit(p.unit);
  p.queries.forEach((q, i) => {
    panel.withTarget(target(q, String.fromCharCode(65 + i)));
  });
  return panel;
}

/** Thresholds from a base colour and `[value, colour]` steps upwards. */
export function thresholds(
  baseColor: string,
  steps: [number, string][] = [],
): dashboard.ThresholdsConfigBuilder {
  return new dashboard.ThresholdsConfigBuilder()
    .mode(dashboard.ThresholdsMode.Absolute)
    .steps([{ value: null, color: baseColor }, ...steps.map(([value, color]) => ({ value, color }))]);
}

/** Value mappings from numbers to text and colour. */
export function valueText(map: Record<number, [string, string]>): dashboard.ValueMapping[] {
  const options: Record<string, dashboard.ValueMappingResult> = {};
  Object.entries(map).forEach(([value, [text, color]], index) => {
    options[value] = { text, color, index };
  });
  return [{ type: dashboard.MappingType.ValueToText, options }];
}

function legend(table: boolean): common.VizLegendOptionsBuilder {
  return new common.VizLegendOptionsBuilder()
    .showLegend(true)
    .displayMode(table ? common.LegendDisplayMode.Table : common.LegendDisplayMode.List)
    .placement(table ? common.LegendPlacement.Right : common.LegendPlacement.Bottom)
    .calcs(table ? ['lastNotNull', 'max'] : []);
}

/** A time series panel. */
export function timeSeries(
  p: PanelBase & { stack?: boolean; bars?: boolean; legendTable?: boolean; min?: number },
): TimeSeries {
  const panel = base(new TimeSeries(), p)
    .legend(legend(p.legendTable ?? false))
    .tooltip(
      new common.VizTooltipOptionsBuilder()
        .mode(common.TooltipDisplayMode.Multi)
        .sort(common.SortOrder.Descending),
    )
    .fillOpacity(p.stack || p.bars ? 60 : 10)
    .lineWidth(1)
    .showPoints(common.VisibilityMode.Never);
  if (p.min !== undefined) panel.min(p.min);
  if (p.bars) panel.drawStyle(common.GraphDrawStyle.Bars);
  if (p.stack) panel.stacking(new common.StackingConfigBuilder().mode(common.StackingMode.Normal));
  return panel;
}

/** A single-value panel showing the last value of each series. */
export function stat(
  p: PanelBase & {
    thresholds?: dashboard.ThresholdsConfigBuilder;
    mappings?: dashboard.ValueMapping[];
    names?: boolean;
  },
): Stat {
  const panel = base(new Stat(), p)
    .reduceOptions(new common.ReduceDataOptionsBuilder().calcs(['lastNotNull']).values(false))
    .graphMode(common.BigValueGraphMode.Area)
    .colorMode(common.BigValueColorMode.Value)
    .textMode(p.names ? common.BigValueTextMode.ValueAndName : common.BigValueTextMode.Auto)
    .thresholds(p.thresholds ?? thresholds('green'));
  if (p.mappings) panel.mappings(p.mappings);
  return panel;
}

/** A state timeline: one row per series, coloured by value mappings. */
export function stateTimeline(p: PanelBase & { mappings: dashboard.ValueMapping[] }): StateTimeline {
  return base(new StateTimeline(), p)
    .mappings(p.mappings)
    .showValue(common.VisibilityMode.Never)
    .mergeValues(true)
    .rowHeight(0.8)
    .fillOpacity(80)
    .legend(new common.VizLegendOptionsBuilder().showLegend(true).displayMode(common.LegendDisplayMode.List))
    .colorScheme(new dashboard.FieldColorBuilder().mode(dashboard.FieldColorModeId.Thresholds))
    .thresholds(thresholds('text'));
}

/** Horizontal bars, one per series, against thresholds. */
export function barGauge(
  p: PanelBase & { thresholds?: dashboard.ThresholdsConfigBuilder; min?: number; max?: number },
): BarGauge {
  const panel = base(new BarGauge(), p)
    .reduceOptions(new common.ReduceDataOptionsBuilder().calcs(['lastNotNull']).values(false))
    .orientation(common.VizOrientation.Horizontal)
    .displayMode(common.BarGaugeDisplayMode.Gradient)
    .showUnfilled(true)
    .thresholds(p.thresholds ?? thresholds('blue'));
  if (p.min !== undefined) panel.min(p.min);
  if (p.max !== undefined) panel.max(p.max);
  return panel;
}

/** A table of an instant query's series, one row each, without the Time and Value columns. */
export function table(p: PanelBase & { hide?: string[] }): Table {
  const hidden = ['Time', 'Value', '__name__', 'job', ...(p.hide ?? [])];
  return base(new Table(), p)
    .withTransformation({
      id: 'organize',
      options: { excludeByName: Object.fromEntries(hidden.map((h) => [h, true])) },
    })
    .filterable(true);
}
