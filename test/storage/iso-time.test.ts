import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoOfMs } from '../../src/core/time.js';

const runs = Number(process.env.FC_RUNS ?? 1000);

describe('isoOfMs', () => {
  it('equals Date#toISOString on any instant (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (ms) => {
        expect(isoOfMs(ms)).toBe(new Date(ms).toISOString());
      }),
      { seed: 42, numRuns: runs },
    );
  });

  it('handles the edges of its fast path and leap days', () => {
    for (const ms of [0, -1, 1, 951_782_400_000, 4_107_542_399_999, -62_167_219_200_000, 253_402_300_799_999, 253_402_300_800_000, -62_167_219_200_001, Date.UTC(2024, 1, 29, 23, 59, 59, 999)]) {
      expect(isoOfMs(ms)).toBe(new Date(ms).toISOString());
    }
  });
});
