/** A WebSocket close reason of at most 123 bytes (the close frame's limit), cut on a character boundary. */
export function closeReason(text: string): string {
  let reason = text.slice(0, 123);
  while (Buffer.byteLength(reason) > 123) reason = reason.slice(0, -1);
  return reason;
}
