/**
 * Module hooks for bench children: the `croner` package resolves to a stand-in driven by
 * the injected clock (clock-cron.ts), because croner reads the wall clock and the bench
 * runs tally on an accelerated one. Registered by tally-child.ts before tally is loaded.
 */
const SHIM = new URL('./clock-cron.ts', import.meta.url).href;

/** Resolves `croner` to the stand-in; everything else as usual. */
export async function resolve(specifier, context, next) {
  if (specifier === 'croner') return { url: SHIM, shortCircuit: true };
  return next(specifier, context);
}
