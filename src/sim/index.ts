/**
 * The upstream simulator: a real HTTP server that speaks the Organization Data Read API
 * in one plausible shape (docs/upstream-api.md), with a world that evolves from a seed,
 * switchable response styles, fault injection, and a control surface under `/_sim/`.
 */
export { MAX_ACTIVE_TOKENS } from './auth.js';
export { SimConfigError, SimRequestError } from './errors.js';
export { TICK_MS } from './evolve.js';
export { DEFAULT_STYLE, MAX_CHANNELS, MAX_PAGE_SIZE } from './options.js';
export { type Simulator, startSimulator, type WorldView } from './simulator.js';
export {
  TRIGGERS,
  type TriggerInput,
  type TriggerName,
  type TriggerResult,
  type Triggers,
} from './triggers.js';
export {
  type Change,
  type ChangeEntityKind,
  type ChangeValue,
  ENVELOPE_STYLES,
  type EnvelopeStyle,
  FIELD_CASES,
  type FaultSpec,
  type FieldCase,
  type OrgSpec,
  PAGING_STYLES,
  type ServedPaging,
  type Plan,
  type RequestLogEntry,
  type Scenario,
  type SimOptions,
  type SimStyle,
  type SimToken,
  type TokenSpec,
  type TokenValidity,
} from './types.js';
