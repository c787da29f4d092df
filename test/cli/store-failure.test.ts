import { describe, expect, it } from 'vitest';
import { isKnownDriverCrash } from '../../src/cli/driver-crash-guard.js';
import { unreachableStore } from '../../src/core/store-failure.js';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('which failures mean a store is away (issue 40)', () => {
  it('names the store for connection failures only, following causes', () => {
    expect(unreachableStore(withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'))).toBe('database');
    expect(unreachableStore(withCode('write CONNECT_TIMEOUT 127.0.0.1:5432', 'CONNECT_TIMEOUT'))).toBe('database');
    expect(unreachableStore(withCode('terminating connection due to administrator command', '57P01'))).toBe('database');
    expect(unreachableStore(withCode('connection failure', '08006'))).toBe('database');
    expect(unreachableStore(new Error("Stream isn't writeable and enableOfflineQueue options is false"))).toBe('shared store');
    expect(unreachableStore(new Error('Command timed out'))).toBe('shared store');
    expect(unreachableStore(new Error('wrapped', { cause: new Error('Connection is closed.') }))).toBe('shared store');
    // Anything else stays an internal error: a constraint, a syntax error, a bug.
    expect(unreachableStore(withCode('duplicate key value', '23505'))).toBeNull();
    expect(unreachableStore(withCode('syntax error', '42601'))).toBeNull();
    expect(unreachableStore(new TypeError('x is undefined'))).toBeNull();
    expect(unreachableStore('ECONNREFUSED')).toBeNull();
  });

  it("recognises the postgres driver's write-after-close exception and nothing else", () => {
    const crash = new TypeError("Cannot read properties of null (reading 'write')");
    crash.stack = `TypeError: ${crash.message}\n    at Immediate.nextWrite (/app/node_modules/postgres/cjs/src/connection.js:255:22)\n    at process.processImmediate (node:internal/timers:483:21)`;
    expect(isKnownDriverCrash(crash)).toBe(true);
    const elsewhere = new TypeError(crash.message);
    elsewhere.stack = `TypeError: ${crash.message}\n    at write (/app/src/mine.js:1:1)`;
    expect(isKnownDriverCrash(elsewhere)).toBe(false);
    expect(isKnownDriverCrash(new Error(crash.message))).toBe(false);
  });
});
