/** Waiting on real things in tests: poll a value until it is there, with a bound. */

/**
 * Polls `fn` every 50 ms until it returns (or resolves to) something other than
 * `undefined`; fails with `what` after `ms`.
 */
export async function waitFor<T>(
  fn: () => T | undefined | Promise<T | undefined>,
  what: string,
  ms = 10_000,
): Promise<T> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const v = await fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}`);
}
