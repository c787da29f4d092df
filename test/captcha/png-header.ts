/** The 8-byte PNG signature. */
export const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Decodes the signature and the IHDR chunk of PNG bytes (throws on anything else). */
export function readPngHeader(bytes: Uint8Array): { width: number; height: number; bitDepth: number; colourType: number } {
  PNG_SIGNATURE.forEach((b, i) => {
    if (bytes[i] !== b) throw new Error(`not a PNG: byte ${i} is ${bytes[i]}`);
  });
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = view.getUint32(8);
  const type = String.fromCharCode(...bytes.subarray(12, 16));
  if (type !== 'IHDR' || length !== 13) throw new Error(`first chunk is ${type} (${length} bytes), not IHDR`);
  return { width: view.getUint32(16), height: view.getUint32(20), bitDepth: view.getUint8(24), colourType: view.getUint8(25) };
}
