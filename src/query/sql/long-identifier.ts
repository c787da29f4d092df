/**
 * Physical names past an engine's identifier limit (PostgreSQL keeps 63 bytes and silently truncates
 * the rest, so two long names could meet as one table): the name is cut and a hash of the whole name
 * appended, `<first 48 chars>$h<14 hex digits>`, so every long name maps to its own short one and the
 * mapping is the same in every process (no catalog needed). Names are validated ASCII (one byte per
 * character). The hash is two independent 32-bit FNV-1a passes (56 bits kept): collisions between
 * two real names of one database are about 1 in 2^28 at 10^6 long names.
 */

/** FNV-1a over the UTF-16 code units of `text` with a given offset basis, as 8 hex digits. */
function fnv1a(text: string, basis: number): string {
  let h = basis >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/** `name` when it fits in `limit` characters, else its cut-and-hashed form (exactly `limit` long). */
export function shortIdentifier(name: string, limit: number): string {
  if (name.length <= limit) return name;
  const hash = (fnv1a(name, 0x811c9dc5) + fnv1a(name, 0x050c5d1f)).slice(0, 14);
  return `${name.slice(0, limit - hash.length - 2)}$h${hash}`;
}
