import { createHash } from 'node:crypto';

/**
 * The request signature of signed (secret-key) mode:
 * `lowercase hex md5(path + timestamp + securityCode + nonce + body + sdkVersion)`.
 * `path` is the percent-decoded request path without the query string and the host's mount prefix,
 * double and trailing slashes kept; `body` is the raw body text for POST/PUT and empty for GET/DELETE.
 */
export function requestSignature(parts: {
  path: string;
  timestamp: string;
  securityCode: string;
  nonce: string;
  body: string;
  sdkVersion: string;
}): string {
  return createHash('md5')
    .update(parts.path + parts.timestamp + parts.securityCode + parts.nonce + parts.body + parts.sdkVersion, 'utf8')
    .digest('hex');
}

/** Methods whose body is part of the signature (the SDK signs an empty body for GET and DELETE). */
export function isSignedBodyMethod(method: string): boolean {
  return method !== 'GET' && method !== 'DELETE' && method !== 'HEAD';
}

/**
 * Reads a signed-request timestamp in seconds (the SDK) or milliseconds (the docs) and returns epoch
 * ms, or null when it is not a positive integer.
 */
export function timestampMs(text: string): number | null {
  if (!/^\d{1,16}$/.test(text)) return null;
  const n = Number(text);
  return n >= 1e12 ? n : n * 1000;
}

/** Percent-decodes a path for signing; null when the encoding is broken. */
export function decodeSignedPath(rawPath: string): string | null {
  try {
    return decodeURIComponent(rawPath);
  } catch {
    return null;
  }
}
