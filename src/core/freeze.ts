/**
 * Freezes a tree of plain objects and arrays in place, so that a value shared between callers (an
 * application's settings, a cached query plan) cannot be changed by one of them: a write throws in
 * strict code. Byte arrays are left as they are (a non-empty typed array cannot be frozen).
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !ArrayBuffer.isView(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
