import { describe, expect, it } from 'vitest';
import { requestSignature, timestampMs } from '../../src/http/signature.js';

// Test vectors computed with the official SDK's MD5 (protocol notes, sdk-wire §2.4).
const vectors = [
  { path: '/1/classes/GameScore', timestamp: '1700000000', nonce: 'AbCdEfGhIjKlMnOp', body: '', sign: '69fb29af6507395c7df64ae133871804' },
  { path: '/1/classes/GameScore/', timestamp: '1700000000', nonce: 'AbCdEfGhIjKlMnOp', body: '{"name":"Bmob 后端云","score":5}', sign: 'e5762e0b1006f456051c41a1b2446df6' },
  { path: '/1/batch', timestamp: '1700000001', nonce: '0123456789ABCDEF', body: '{"requests":[{"method":"DELETE","path":"/1/classes/T/o1"}]}', sign: '9ec4c530c9d4a8e55c890a05210f4f24' },
  { path: '/2/files/hello world.txt', timestamp: '1700000002', nonce: 'QWERTYUIOPasdfgh', body: '"hello content"', sign: 'e2b03c42ccceebdbe5c4d41685840176' },
];

describe('request signature', () => {
  it.each(vectors)('matches the SDK for $path', (v) => {
    expect(requestSignature({ ...v, securityCode: 'mycode123', sdkVersion: '10' })).toBe(v.sign);
  });

  it('reads timestamps in seconds or milliseconds', () => {
    expect(timestampMs('1700000000')).toBe(1_700_000_000_000);
    expect(timestampMs('1700000000123')).toBe(1_700_000_000_123);
    expect(timestampMs('17e8')).toBeNull();
    expect(timestampMs('-1')).toBeNull();
  });
});
