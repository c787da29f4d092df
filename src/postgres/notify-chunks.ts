/**
 * Framing of EventBus messages over NOTIFY, whose payload must stay under 8000 bytes: a message is
 * sent as one or more notifications `<id>:<index>:<count>:<part>`, all in one transaction, so
 * PostgreSQL delivers them together, in order and never interleaved with another transaction's.
 * The index also keeps parts distinct (PostgreSQL drops duplicate notifications of one transaction).
 */

/** UTF-8 bytes per part: the payload limit (7999) minus room for the header. */
export const NOTIFY_PART_BYTES = 7900;

/** Splits `message` into parts of at most `maxBytes` UTF-8 bytes, never inside a character. */
export function splitMessage(message: string, maxBytes = NOTIFY_PART_BYTES): string[] {
  if (Buffer.byteLength(message) <= maxBytes) return [message];
  const parts: string[] = [];
  let start = 0;
  let bytes = 0;
  for (let i = 0; i < message.length; ) {
    const code = message.codePointAt(i)!;
    const units = code > 0xffff ? 2 : 1;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (bytes + size > maxBytes) {
      parts.push(message.slice(start, i));
      start = i;
      bytes = 0;
    }
    bytes += size;
    i += units;
  }
  parts.push(message.slice(start));
  return parts;
}

/** The notification payloads of one message. */
export function frameMessage(id: string, message: string): string[] {
  const parts = splitMessage(message);
  return parts.map((part, index) => `${id}:${index}:${parts.length}:${part}`);
}

/** Reassembles framed parts per channel; a message is delivered when its last part arrives. */
export class PartAssembler {
  private readonly partial = new Map<string, string[]>();

  /** Returns the whole message when `payload` completes one, else null (a malformed payload is dropped). */
  accept(payload: string): string | null {
    const match = /^([^:]+):(\d+):(\d+):/.exec(payload);
    if (!match) return null;
    const [head, id, indexText, countText] = match as unknown as [string, string, string, string];
    const index = Number(indexText);
    const count = Number(countText);
    const part = payload.slice(head.length);
    if (count === 1) return index === 0 ? part : null;
    const parts = this.partial.get(id) ?? [];
    // Parts of one message arrive contiguously and in order; anything else is a broken message.
    if (parts.length !== index) {
      this.partial.delete(id);
      return null;
    }
    parts.push(part);
    if (parts.length < count) {
      this.partial.set(id, parts);
      if (this.partial.size > 64) this.partial.delete(this.partial.keys().next().value!);
      return null;
    }
    this.partial.delete(id);
    return parts.join('');
  }
}
