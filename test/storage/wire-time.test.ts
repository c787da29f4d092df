import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDateTime, formatIsoDateTime, isoMs, zoneOffsetMs } from '../../src/core/time.js';
import { encodeRecord, encodeValue } from '../../src/core/wire-values.js';

const runs = Number(process.env.FC_RUNS ?? 1000);
const pad2 = (n: number) => (n < 10 ? '0' + n : String(n));

/** The formatter before the fast path: Date getters on the wall-clock instant. */
function referenceFormat(ms: number, timeZone: string): string {
  const wall = new Date(ms + zoneOffsetMs(timeZone, ms));
  const y = wall.getUTCFullYear();
  return (
    `${String(y).padStart(4, '0')}-${pad2(wall.getUTCMonth() + 1)}-${pad2(wall.getUTCDate())} ` +
    `${pad2(wall.getUTCHours())}:${pad2(wall.getUTCMinutes())}:${pad2(wall.getUTCSeconds())}`
  );
}

const ZONES = ['UTC', 'Etc/UTC', 'Asia/Shanghai', 'America/New_York', 'Australia/Lord_Howe'];

describe('wire time fast paths', () => {
  it('isoMs equals Date.parse on canonical ISO texts (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -62_167_219_200_000, max: 253_402_300_799_999 }), (ms) => {
        const iso = new Date(ms).toISOString();
        expect(isoMs(iso)).toBe(Date.parse(iso));
      }),
      { seed: 7, numRuns: runs },
    );
  });

  it('isoMs equals Date.parse on odd texts', () => {
    const texts = [
      '2024-02-30T00:00:00.000Z', '2023-02-29T12:00:00.000Z', '2024-04-31T00:00:00.000Z', '2024-01-32T00:00:00.000Z',
      '2024-01-01T24:00:00.000Z', '2024-01-01T23:59:60.000Z', '2024-13-01T00:00:00.000Z', '2024-00-01T00:00:00.000Z',
      '0000-01-01T00:00:00.000Z', '0000-02-29T00:00:00.000Z', '9999-12-31T23:59:59.999Z', '+010000-01-01T00:00:00.000Z',
      '2024-01-01T00:00:00Z', '2024-01-01', '2024-01-0aT00:00:00.000Z', '2024-01-01T00:00:00.00aZ', 'a024-01-01T00:00:00.000Z',
      '2024-01-01T00:00:00.000+', '2024/01/01T00:00:00.000Z', '', 'garbage garbage garbage!',
    ];
    for (const t of texts) expect(isoMs(t), t).toBe(Date.parse(t));
  });

  it('formatDateTime matches the Date-getter formatting in several zones (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -62_000_000_000_000, max: 253_000_000_000_000 }), fc.constantFrom(...ZONES), (ms, zone) => {
        expect(formatDateTime(ms, zone)).toBe(referenceFormat(ms, zone));
      }),
      { seed: 11, numRuns: runs },
    );
    for (const ms of [NaN, 1.5, -0.5, 8.64e15, -8.64e15, 253_402_300_799_999, 253_402_300_800_000]) {
      expect(formatDateTime(ms, 'UTC')).toBe(referenceFormat(ms, 'UTC'));
    }
  });

  it('formatIsoDateTime equals formatDateTime(Date.parse(iso))', () => {
    fc.assert(
      fc.property(fc.integer({ min: -62_167_219_200_000, max: 253_402_300_799_999 }), fc.constantFrom(...ZONES), (ms, zone) => {
        const iso = new Date(ms).toISOString();
        expect(formatIsoDateTime(iso, zone)).toBe(formatDateTime(Date.parse(iso), zone));
      }),
      { seed: 13, numRuns: runs },
    );
    for (const iso of ['2024-02-30T10:00:00.000Z', '2023-02-29T00:00:00.000Z', '2024-01-01T24:00:00.000Z', 'nope', '2024-01-01']) {
      for (const zone of ZONES) {
        let expected: string;
        try {
          expected = formatDateTime(Date.parse(iso), zone);
        } catch {
          // An invalid instant in a zone other than UTC throws (Intl), before and after.
          expect(() => formatIsoDateTime(iso, zone), iso).toThrow();
          continue;
        }
        expect(formatIsoDateTime(iso, zone), iso).toBe(expected);
      }
    }
  });

  it('encodes record timestamps and nested Dates', () => {
    const record = {
      objectId: 'a',
      createdAt: { __type: 'Date', iso: '2026-01-02T03:04:05.678Z' },
      updatedAt: { __type: 'Date', iso: '2026-01-02T23:04:05.678Z' },
      when: { __type: 'Date', iso: '1999-12-31T23:59:59.999Z' },
      list: [{ __type: 'Date', iso: '2024-02-29T00:00:00.000Z' }],
    } as const;
    expect(encodeRecord(record as never, 'UTC')).toEqual({
      objectId: 'a',
      createdAt: '2026-01-02 03:04:05',
      updatedAt: '2026-01-02 23:04:05',
      when: { __type: 'Date', iso: '1999-12-31 23:59:59.999' },
      list: [{ __type: 'Date', iso: '2024-02-29 00:00:00' }],
    });
    expect(encodeRecord(record as never, 'Asia/Shanghai')).toMatchObject({ createdAt: '2026-01-02 11:04:05', updatedAt: '2026-01-03 07:04:05' });
    expect(encodeValue({ __type: 'Date', iso: '2026-01-02T03:04:05.678Z' } as never, 'America/New_York')).toEqual({ __type: 'Date', iso: '2026-01-01 22:04:05.678' });
  });
});
