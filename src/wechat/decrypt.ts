import { createDecipheriv } from 'node:crypto';
import { svcError } from '../core/errors.js';
import type { JsonObject } from '../core/wire-values.js';

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

function bytesOf(value: unknown, name: string, length?: number): Buffer {
  if (typeof value !== 'string' || value === '' || !BASE64.test(value)) throw svcError('decryptFailed', `${name} must be base64`);
  const bytes = Buffer.from(value, 'base64');
  if (length !== undefined && bytes.length !== length) throw svcError('decryptFailed', `${name} must be ${length} bytes`);
  return bytes;
}

/**
 * Decrypts a mini-program's `encryptedData` (user info, phone number, share info): AES-128-CBC with
 * the session key as key and `iv`, PKCS#7 padding, UTF-8 JSON inside. The `watermark.appid` must be
 * the application's own appid, so data encrypted for another mini-program is refused (11208).
 */
export function decryptUserData(input: { sk: unknown; encryptedData: unknown; iv: unknown }, appId: string): JsonObject {
  const key = bytesOf(input.sk, 'sk', 16);
  const iv = bytesOf(input.iv, 'iv', 16);
  const data = bytesOf(input.encryptedData, 'encryptedData');
  let text: string;
  try {
    const decipher = createDecipheriv('aes-128-cbc', key, iv);
    text = Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
  } catch {
    throw svcError('decryptFailed', 'wrong session key, iv or data');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw svcError('decryptFailed', 'the data is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw svcError('decryptFailed', 'the data is not an object');
  const watermark = (value as { watermark?: { appid?: unknown } }).watermark;
  if (!watermark || watermark.appid !== appId) throw svcError('decryptFailed', 'the watermark names another appid');
  return value as JsonObject;
}
