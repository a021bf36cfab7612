/**
 * The upstream client: budgeted, retried, paged, origin-safe reads of the Organization
 * Data Read API, normalized into tally's model. See docs/upstream-client.md.
 */
export {
  API_LIMIT_PER_MINUTE,
  type BudgetOptions,
  type BudgetStats,
  clampBudget,
  type PauseDecision,
  PRIORITIES,
  type Priority,
  type Release,
  RequestBudget,
} from './budget.js';
export {
  type FetchOptions,
  type OrgAuth,
  type SessionsOptions,
  shapeFromConfig,
  UpstreamClient,
  type UpstreamClientOptions,
} from './client.js';
export { UpstreamError, type UpstreamReason } from './errors.js';
export { DEFAULT_FILTERS, type SessionFilters } from './filters.js';
export type { HttpTimeouts } from './http.js';
export {
  noopObserver,
  type RequestEvent,
  type StatusClass,
  statusClass,
  type UpstreamObserver,
} from './observer.js';
export type { ReadAllOptions } from './read-org.js';
export { parseRetryAfter } from './retry-after.js';
export { backoffDelay, decideRetry, type RetryPolicy } from './retry.js';
