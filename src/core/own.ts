/**
 * Writing a key taken from outside (an id, a label, a setting) into a plain object. An
 * assignment `obj[key] = v` with `key` = `__proto__` sets the object's prototype instead
 * of a property, and the entry is silently lost; defining the property cannot be
 * mistaken. Reading such keys back is safe with `Object.hasOwn` and `Object.keys`.
 */

/** Sets `obj[key]` as an own, enumerable property, whatever `key` is. */
export function setOwn<T>(obj: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** `obj[key]` when it is the object's own property: `constructor` or `toString` never answer from the prototype. */
export function getOwn<T>(obj: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}
