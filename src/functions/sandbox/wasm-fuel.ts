/**
 * Fuel for a WebAssembly binary: a mutable i32 global, exported as `FUEL_EXPORT`, that every loop
 * header and the entry of every function that calls another decrement (one unit), and every bulk
 * memory operation (memory.fill, memory.copy) decrements by its size in `BULK_BYTES_PER_UNIT` units;
 * below one unit the code traps (`unreachable`). Straight-line code between two checks is bounded by
 * the binary's own size (a function that calls none runs once per call of a caller that paid), so
 * the fuel bounds the work of one call into the module, builtins and recursion included: a loop
 * inside a C function never reaches QuickJS's interrupt handler, but it passes a loop header on each
 * turn.
 *
 * A trap unwinds the wasm frames mid-operation: the instance's heap is in an unknown state and must
 * be thrown away. The rewriter decodes the MVP instruction set with sign extension, saturating
 * truncation and bulk memory (what the QuickJS build uses); any other opcode throws, and the caller
 * runs without fuel.
 */

/** The name the fuel global is exported under. */
export const FUEL_EXPORT = 'svcbase_fuel';
/** Bytes of a memory.fill or memory.copy that cost one unit (about as long as a loop turn). */
export const BULK_BYTES_PER_UNIT = 32;
const BULK_SHIFT = Math.log2(BULK_BYTES_PER_UNIT);

class Reader {
  at: number;
  constructor(
    readonly bytes: Uint8Array,
    at = 0,
  ) {
    this.at = at;
  }
  byte(): number {
    if (this.at >= this.bytes.length) throw new Error('wasm-fuel: unexpected end of the binary');
    return this.bytes[this.at++]!;
  }
  u32(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = this.byte();
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
      shift += 7;
      if (shift > 35) throw new Error('wasm-fuel: LEB128 too long');
    }
  }
  /** Skips a signed LEB128 (up to 64 bits). */
  skipSigned(): void {
    for (let i = 0; i < 10; i++) if ((this.byte() & 0x80) === 0) return;
    throw new Error('wasm-fuel: LEB128 too long');
  }
  skip(n: number): void {
    this.at += n;
  }
}

/** A growable byte buffer. */
class Writer {
  private buffer: Uint8Array;
  length = 0;
  constructor(capacity: number) {
    this.buffer = new Uint8Array(capacity);
  }
  private room(n: number): void {
    if (this.length + n <= this.buffer.length) return;
    const bigger = new Uint8Array(Math.max(this.buffer.length * 2, this.length + n));
    bigger.set(this.buffer.subarray(0, this.length));
    this.buffer = bigger;
  }
  write(bytes: ArrayLike<number>): void {
    this.room(bytes.length);
    this.buffer.set(bytes, this.length);
    this.length += bytes.length;
  }
  bytes(): Uint8Array {
    return this.buffer.subarray(0, this.length);
  }
}

function u32Bytes(value: number): number[] {
  const out: number[] = [];
  let v = value;
  do {
    let b = v & 0x7f;
    v = Math.floor(v / 128);
    if (v !== 0) b |= 0x80;
    out.push(b);
  } while (v !== 0);
  return out;
}

function s32Bytes(value: number): number[] {
  const out: number[] = [];
  let v = value | 0;
  for (;;) {
    const b = v & 0x7f;
    v >>= 7;
    if ((v === 0 && (b & 0x40) === 0) || (v === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

function nameBytes(name: string): number[] {
  const utf8 = [...new TextEncoder().encode(name)];
  return [...u32Bytes(utf8.length), ...utf8];
}

interface Section {
  readonly id: number;
  readonly start: number;
  readonly end: number;
}

function sectionsOf(bytes: Uint8Array): Section[] {
  if (bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d || bytes[4] !== 1) throw new Error('wasm-fuel: not a WebAssembly 1 binary');
  const sections: Section[] = [];
  const r = new Reader(bytes, 8);
  while (r.at < bytes.length) {
    const id = r.byte();
    const size = r.u32();
    sections.push({ id, start: r.at, end: r.at + size });
    r.at += size;
  }
  return sections;
}

/** Skips one instruction's immediates; returns the opcode (0xfc-prefixed ones as 0xfc00 + sub-opcode). */
function skipInstruction(r: Reader): number {
  const op = r.byte();
  if (op === 0x02 || op === 0x03 || op === 0x04) {
    const type = r.bytes[r.at]!;
    if (type === 0x40 || (type >= 0x7b && type <= 0x7f) || type === 0x70 || type === 0x6f) r.skip(1);
    else r.skipSigned();
  } else if (op === 0x0c || op === 0x0d || op === 0x10 || op === 0xd2 || (op >= 0x20 && op <= 0x26)) r.u32();
  else if (op === 0x0e) {
    const count = r.u32();
    for (let i = 0; i <= count; i++) r.u32();
  } else if (op === 0x11 || (op >= 0x28 && op <= 0x3e)) {
    r.u32();
    r.u32();
  } else if (op === 0x1c) r.skip(r.u32());
  else if (op === 0x3f || op === 0x40 || op === 0xd0) r.skip(1);
  else if (op === 0x41 || op === 0x42) r.skipSigned();
  else if (op === 0x43) r.skip(4);
  else if (op === 0x44) r.skip(8);
  else if (op === 0xfc) {
    const sub = r.u32();
    if (sub <= 7) return 0xfc00 + sub;
    if (sub === 8) {
      r.u32();
      r.skip(1);
    } else if (sub === 9 || sub === 13 || (sub >= 15 && sub <= 17)) r.u32();
    else if (sub === 10) r.skip(2);
    else if (sub === 11) r.skip(1);
    else if (sub === 12 || sub === 14) {
      r.u32();
      r.u32();
    } else throw new Error(`wasm-fuel: unknown opcode 0xfc ${sub}`);
    return 0xfc00 + sub;
  } else if (op > 0xc4 && op !== 0xd1) throw new Error(`wasm-fuel: unsupported opcode 0x${op.toString(16)}`);
  return op;
}

/** Parameter counts of the module's functions, by defined-function index (imports excluded). */
function paramCounts(bytes: Uint8Array, sections: readonly Section[]): number[] {
  const types: number[] = [];
  const typeSection = sections.find((s) => s.id === 1);
  if (typeSection) {
    const r = new Reader(bytes, typeSection.start);
    const count = r.u32();
    for (let i = 0; i < count; i++) {
      if (r.byte() !== 0x60) throw new Error('wasm-fuel: unsupported type form');
      const params = r.u32();
      r.skip(params);
      r.skip(r.u32());
      types.push(params);
    }
  }
  const functionSection = sections.find((s) => s.id === 3);
  const out: number[] = [];
  if (functionSection) {
    const r = new Reader(bytes, functionSection.start);
    const count = r.u32();
    for (let i = 0; i < count; i++) out.push(types[r.u32()] ?? 0);
  }
  return out;
}

/**
 * The check at a function entry or a loop header: trap below one unit, else one unit less. Below,
 * not at zero: a trap that a host callback's wrapper caught leaves the fuel at or under zero, and
 * the next check traps again.
 */
function unitCheck(fuel: number[]): number[] {
  return [0x23, ...fuel, 0x41, 0x01, 0x48, 0x04, 0x40, 0x00, 0x0b, 0x23, ...fuel, 0x41, 0x7f, 0x6a, 0x24, ...fuel];
}

/** Before memory.fill/copy (size on top of the stack): the size's units taken, a trap past zero, the size put back. */
function bulkCharge(fuel: number[], local: number[]): number[] {
  return [
    0x21, ...local, // local.set $size
    0x23, ...fuel, 0x20, ...local, 0x41, BULK_SHIFT, 0x76, 0x6b, 0x24, ...fuel, // fuel -= size >>> shift
    0x23, ...fuel, 0x41, 0x00, 0x48, 0x04, 0x40, 0x00, 0x0b, // if (fuel < 0) unreachable
    0x20, ...local, // local.get $size
  ];
}

/** One function body with its checks; `params`: its parameter count (the size local goes after its locals). */
function fuelBody(bytes: Uint8Array, start: number, end: number, params: number, check: Uint8Array, fuel: number[]): Uint8Array {
  const r = new Reader(bytes, start);
  const groups = r.u32();
  const declarations = r.at;
  let localCount = 0;
  for (let i = 0; i < groups; i++) {
    localCount += r.u32();
    r.skip(1);
  }
  const code = r.at;
  // A first pass finds whether a bulk operation needs the size local, and whether the function calls any.
  let bulk = false;
  let calls = false;
  while (r.at < end) {
    const op = skipInstruction(r);
    if (op === 0xfc0a || op === 0xfc0b) bulk = true;
    else if (op === 0x10 || op === 0x11) calls = true;
  }
  if (r.at !== end) throw new Error('wasm-fuel: a function body did not decode to its end');
  const out = new Writer((end - start) * 2 + 64);
  out.write(u32Bytes(groups + (bulk ? 1 : 0)));
  out.write(bytes.subarray(declarations, code));
  if (bulk) out.write([0x01, 0x7f]);
  // A function that calls none runs its straight line once per call of its caller, which paid:
  // only its loops need checks.
  if (calls) out.write(check);
  const charge = bulk ? Uint8Array.from(bulkCharge(fuel, u32Bytes(params + localCount))) : null;
  r.at = code;
  let copied = code;
  while (r.at < end) {
    const from = r.at;
    const op = skipInstruction(r);
    if (charge && (op === 0xfc0a || op === 0xfc0b)) {
      out.write(bytes.subarray(copied, from));
      out.write(charge);
      copied = from;
    }
    if (op === 0x03) {
      out.write(bytes.subarray(copied, r.at));
      out.write(check);
      copied = r.at;
    }
  }
  out.write(bytes.subarray(copied, end));
  return out.bytes();
}

/**
 * The binary with fuel checks and the exported fuel global (starting at 2^31 - 1). Throws on a
 * binary it cannot decode.
 */
export function addFuel(binary: Uint8Array): Uint8Array {
  const sections = sectionsOf(binary);
  let importedGlobals = 0;
  const importSection = sections.find((s) => s.id === 2);
  if (importSection) {
    const r = new Reader(binary, importSection.start);
    const count = r.u32();
    for (let i = 0; i < count; i++) {
      r.skip(r.u32());
      r.skip(r.u32());
      const kind = r.byte();
      if (kind === 0x00) r.u32();
      else if (kind === 0x01) {
        r.skip(1);
        const flags = r.byte();
        r.u32();
        if (flags & 1) r.u32();
      } else if (kind === 0x02) {
        const flags = r.byte();
        r.u32();
        if (flags & 1) r.u32();
      } else if (kind === 0x03) {
        r.skip(2);
        importedGlobals++;
      } else throw new Error('wasm-fuel: unsupported import kind');
    }
  }
  const globalSection = sections.find((s) => s.id === 6);
  const exportSection = sections.find((s) => s.id === 7);
  const codeSection = sections.find((s) => s.id === 10);
  if (!globalSection || !exportSection || !codeSection) throw new Error('wasm-fuel: expected global, export and code sections');
  const globalsReader = new Reader(binary, globalSection.start);
  const definedGlobals = globalsReader.u32();
  const fuelIndex = importedGlobals + definedGlobals;
  const fuel = u32Bytes(fuelIndex);
  const params = paramCounts(binary, sections);

  const check = Uint8Array.from(unitCheck(fuel));
  const out = new Writer(binary.length * 2);
  out.write(binary.subarray(0, 8));
  const emit = (id: number, content: Uint8Array | readonly number[]) => {
    out.write([id, ...u32Bytes(content.length)]);
    out.write(content);
  };
  for (const section of sections) {
    if (section.id === 6) {
      emit(6, [...u32Bytes(definedGlobals + 1), ...binary.subarray(globalsReader.at, section.end), 0x7f, 0x01, 0x41, ...s32Bytes(0x7fffffff), 0x0b]);
    } else if (section.id === 7) {
      const r = new Reader(binary, section.start);
      const count = r.u32();
      emit(7, [...u32Bytes(count + 1), ...binary.subarray(r.at, section.end), ...nameBytes(FUEL_EXPORT), 0x03, ...fuel]);
    } else if (section.id === 10) {
      const r = new Reader(binary, section.start);
      const count = r.u32();
      const content = new Writer((section.end - section.start) * 2);
      content.write(u32Bytes(count));
      for (let i = 0; i < count; i++) {
        const size = r.u32();
        const body = fuelBody(binary, r.at, r.at + size, params[i] ?? 0, check, fuel);
        content.write(u32Bytes(body.length));
        content.write(body);
        r.at += size;
      }
      emit(10, content.bytes());
    } else {
      emit(section.id, binary.subarray(section.start, section.end));
    }
  }
  return out.bytes().slice();
}
