/**
 * tally's Prometheus metrics: one {@link TallyMetrics} per process, on a registry the
 * app creates. See docs/metrics.md for every family.
 */
export { DEFAULT_SERIES_CAPS, type SeriesCaps } from './cardinality.js';
export { CONTENT_TYPES, type ExpositionFormat, negotiate } from './negotiate.js';
export { freshness, type ResourceFreshness } from './freshness.js';
export { RESOURCES, type Resource, type SnapshotSummary, summarize } from './snapshot-summary.js';
export { TallyMetrics, type TallyMetricsOptions } from './tally-metrics.js';
export type { StatusClass, UpstreamObserver, UpstreamRequestInfo } from './upstream-metrics.js';
