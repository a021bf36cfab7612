/**
 * liquidjs, loaded at its first use: only a config with a template (a rule's labels or
 * annotations, a webhook body, an email receiver) needs it, and a daemon without
 * templates is spared its resident memory (docs/performance.md, footprint). Templates
 * still parse when the config loads, so a syntax error shows at startup and in
 * `tally check` as before; a config with templates loads liquidjs then.
 */
import { createRequire } from 'node:module';
import type * as LiquidJs from 'liquidjs';

let loaded: typeof LiquidJs | undefined;

/** The liquidjs module, required synchronously on the first call. */
export function liquidjs(): typeof LiquidJs {
  loaded ??= createRequire(import.meta.url)('liquidjs') as typeof LiquidJs;
  return loaded;
}
