/**
 * A record as text, to tell identical records from differing ones. A body nested
 * thousands deep parses (JSON.parse does not recurse on the stack) but overflows
 * JSON.stringify's: such a record has no fingerprint, and whoever compares treats it as
 * unlike any other rather than failing the read.
 */
export function fingerprint(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}
