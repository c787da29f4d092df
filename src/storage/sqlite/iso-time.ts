const TWO = Array.from({ length: 100 }, (_, i) => (i < 10 ? '0' : '') + String(i));
const THREE = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
/** 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z: the fast path's range. */
const MIN_MS = -62_167_219_200_000;
const MAX_MS = 253_402_300_799_999;

/**
 * `new Date(ms).toISOString()`, several times faster: decoding a row turns two or more epoch-ms
 * integers into canonical ISO strings, which dominated the cost of reading records. Years outside
 * 0000-9999 fall back to `toISOString`.
 */
export function isoOfMs(ms: number): string {
  if (!Number.isInteger(ms) || ms < MIN_MS || ms > MAX_MS) return new Date(ms).toISOString();
  const dayNumber = Math.floor(ms / 86_400_000);
  let rest = ms - dayNumber * 86_400_000;
  const milli = rest % 1000;
  rest = (rest - milli) / 1000;
  const second = rest % 60;
  rest = (rest - second) / 60;
  const minute = rest % 60;
  const hour = (rest - minute) / 60;
  // Days to civil date (Howard Hinnant's algorithm).
  const z = dayNumber + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return (
    TWO[Math.floor(year / 100)]! + TWO[year % 100]! + '-' + TWO[month]! + '-' + TWO[day]! + 'T' +
    TWO[hour]! + ':' + TWO[minute]! + ':' + TWO[second]! + '.' + THREE[milli]! + 'Z'
  );
}
