/** Content types by extension (lower case, no dot). Unknown extensions are `application/octet-stream`. */
const BY_EXTENSION: Readonly<Record<string, string>> = {
  txt: 'text/plain; charset=utf-8', csv: 'text/csv; charset=utf-8', md: 'text/markdown; charset=utf-8',
  json: 'application/json', html: 'text/html; charset=utf-8', htm: 'text/html; charset=utf-8',
  xhtml: 'application/xhtml+xml', xml: 'application/xml', svg: 'image/svg+xml', js: 'text/javascript',
  mjs: 'text/javascript', css: 'text/css', png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg',
  gif: 'image/gif', webp: 'image/webp', bmp: 'image/bmp', ico: 'image/x-icon', avif: 'image/avif',
  pdf: 'application/pdf', zip: 'application/zip', gz: 'application/gzip', mp3: 'audio/mpeg',
  wav: 'audio/wav', ogg: 'audio/ogg', aac: 'audio/aac', mp4: 'video/mp4', mov: 'video/quicktime',
  webm: 'video/webm', avi: 'video/x-msvideo', mkv: 'video/x-matroska', flv: 'video/x-flv',
  doc: 'application/msword', docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel', xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  wasm: 'application/wasm', swf: 'application/x-shockwave-flash',
};

/** The content type an extension names. */
export function typeOfExtension(ext: string): string {
  return BY_EXTENSION[ext] ?? 'application/octet-stream';
}

/** The bare media type (`text/html; charset=utf-8` → `text/html`). */
export function mediaType(contentType: string): string {
  return contentType.split(';')[0]!.trim().toLowerCase();
}

const startsWith = (bytes: Uint8Array, sig: readonly number[], at = 0) => sig.every((b, i) => bytes[at + i] === b);
const ascii = (bytes: Uint8Array, text: string, at = 0) => startsWith(bytes, [...text].map((c) => c.charCodeAt(0)), at);

/**
 * The type the first bytes show (magic numbers and markup), or undefined when they show nothing
 * definite. Markup is looked for after leading whitespace and a BOM, case-insensitively, like a
 * browser's sniffer would: a `.txt` that starts with `<html>` is HTML to a browser.
 */
export function sniffType(head: Uint8Array): string | undefined {
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(head, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (ascii(head, 'GIF87a') || ascii(head, 'GIF89a')) return 'image/gif';
  if (ascii(head, 'RIFF') && ascii(head, 'WEBP', 8)) return 'image/webp';
  if (ascii(head, 'RIFF') && ascii(head, 'WAVE', 8)) return 'audio/wav';
  if (ascii(head, 'RIFF') && ascii(head, 'AVI ', 8)) return 'video/x-msvideo';
  if (ascii(head, 'BM') && head.length > 14) return 'image/bmp';
  if (ascii(head, '%PDF-')) return 'application/pdf';
  if (ascii(head, 'ftyp', 4)) return ascii(head, 'qt  ', 8) ? 'video/quicktime' : ascii(head, 'avif', 8) ? 'image/avif' : 'video/mp4';
  if (startsWith(head, [0x1a, 0x45, 0xdf, 0xa3])) return 'video/webm';
  if (ascii(head, 'PK\u0003\u0004')) return 'application/zip';
  if (startsWith(head, [0x1f, 0x8b])) return 'application/gzip';
  if (ascii(head, 'ID3') || startsWith(head, [0xff, 0xfb])) return 'audio/mpeg';
  if (ascii(head, 'OggS')) return 'audio/ogg';
  if (ascii(head, 'FLV')) return 'video/x-flv';
  if (ascii(head, 'FWS') || ascii(head, 'CWS')) return 'application/x-shockwave-flash';
  return sniffMarkup(head);
}

const MARKUP: ReadonlyArray<[RegExp, string]> = [
  [/^<(?:!doctype\s+html|html|head|body|script|iframe|title|style|div|a\s|img|p[\s>]|br|table|h1|font|b[\s>]|!--)/i, 'text/html'],
  [/^<svg[\s>]/i, 'image/svg+xml'],
  [/^<\?xml/i, 'application/xml'],
];

function sniffMarkup(head: Uint8Array): string | undefined {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(head).replace(/^\ufeff?\s*/, '');
  for (const [pattern, type] of MARKUP) if (pattern.test(text)) return type;
  // An XML document that turns out to be SVG or XHTML.
  if (/^<\?xml[^>]*>\s*(?:<!--[\s\S]*?-->\s*)*<svg[\s>]/i.test(text) || /<svg[\s>]/i.test(text.slice(0, 512))) return 'image/svg+xml';
  return undefined;
}

/**
 * Types a browser may run script in or render as a page on the API's origin: served with
 * `Content-Disposition: attachment` (and a sandboxing CSP), never inline.
 */
export function isActiveType(contentType: string): boolean {
  const type = mediaType(contentType);
  return !INLINE_SAFE.has(type) && !type.startsWith('video/') && !type.startsWith('audio/');
}

/** Types shown inline: images browsers decode without script, plain text. Everything else downloads. */
const INLINE_SAFE = new Set([
  'image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/bmp', 'image/avif', 'image/x-icon',
  'text/plain', 'text/csv', 'application/json',
]);
