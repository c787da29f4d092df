import { deflateSync } from 'node:zlib';

/**
 * A PNG of opaque RGBA pixels, written as 8-bit RGB (the captcha never has transparency) with the
 * `Sub` filter on every row and zlib level 6: about a third of the time of Skia's own encoder for a
 * captcha-sized image, and smaller output.
 */
export function encodeOpaquePng(rgba: Uint8Array | Uint8ClampedArray, width: number, height: number): Uint8Array {
  const stride = width * 3 + 1;
  const filtered = Buffer.allocUnsafe(stride * height);
  for (let y = 0; y < height; y++) {
    const row = y * stride;
    filtered[row] = 1; // Sub: each byte minus the same channel of the pixel to its left
    let left0 = 0;
    let left1 = 0;
    let left2 = 0;
    for (let x = 0, from = y * width * 4, to = row + 1; x < width; x++, from += 4, to += 3) {
      const r = rgba[from]!;
      const g = rgba[from + 1]!;
      const b = rgba[from + 2]!;
      filtered[to] = (r - left0) & 0xff;
      filtered[to + 1] = (g - left1) & 0xff;
      filtered[to + 2] = (b - left2) & 0xff;
      left0 = r;
      left1 = g;
      left2 = b;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: RGB
  return Buffer.concat([SIGNATURE, chunk('IHDR', header), chunk('IDAT', deflateSync(filtered, { level: 6 })), chunk('IEND', Buffer.alloc(0))]);
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  out.set(data, 8);
  out.writeUInt32BE(crc32(out, 4, 8 + data.length), 8 + data.length);
  return out;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 of `bytes[start, end)` (PNG's chunk checksum over type and data). */
function crc32(bytes: Uint8Array, start: number, end: number): number {
  let c = 0xffffffff;
  for (let i = start; i < end; i++) c = CRC_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
