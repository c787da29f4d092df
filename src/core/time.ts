/**
 * Time formats of the wire. `createdAt`/`updatedAt` are shown as `YYYY-MM-DD HH:mm:ss` in the
 * application's time zone; Date values the same, with `.SSS` when they have milliseconds (so a value
 * read back writes and queries unchanged). Inputs without a zone are read in that zone.
 * Hot paths (every record of every list) format by hand: Intl formatting costs microseconds a call.
 */

const offsetCache = new Map<string, number>();
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** Throws a configuration error for an unknown IANA zone name. */
export function assertTimeZone(timeZone: string): void {
  try {
    formatterFor(timeZone);
  } catch {
    throw new Error(`[svcbase] [time] unknown time zone '${timeZone}'`);
  }
}

/** Offset of `timeZone` from UTC in ms at the instant `utcMs` (cached per zone and hour). */
export function zoneOffsetMs(timeZone: string, utcMs: number): number {
  if (timeZone === 'UTC' || timeZone === 'Etc/UTC') return 0;
  const hour = Math.floor(utcMs / 3_600_000);
  if (hour === lastHour && timeZone === lastZone) return lastOffset;
  const key = `${timeZone}|${hour}`;
  const cached = offsetCache.get(key);
  if (cached !== undefined) return remember(timeZone, hour, cached);
  const parts = formatterFor(timeZone).formatToParts(new Date(hour * 3_600_000));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  const offset = asUtc - hour * 3_600_000;
  if (offsetCache.size > 10_000) offsetCache.clear();
  offsetCache.set(key, offset);
  return remember(timeZone, hour, offset);
}

/** The last (zone, hour) answered: records of one list usually share it. */
let lastZone = '';
let lastHour = NaN;
let lastOffset = 0;

function remember(timeZone: string, hour: number, offset: number): number {
  lastZone = timeZone;
  lastHour = hour;
  lastOffset = offset;
  return offset;
}

const pad2 = (n: number) => (n < 10 ? '0' + n : String(n));

function wallClock(ms: number, timeZone: string): Date {
  return new Date(ms + zoneOffsetMs(timeZone, ms));
}

const isUtc = (timeZone: string) => timeZone === 'UTC' || timeZone === 'Etc/UTC';

/** `YYYY-MM-DD HH:mm:ss` of the instant `ms` in `timeZone`. */
export function formatDateTime(ms: number, timeZone: string): string {
  const wall = isUtc(timeZone) ? ms : ms + zoneOffsetMs(timeZone, ms);
  if (Number.isInteger(wall) && wall >= MIN_MS && wall <= MAX_MS) {
    // The canonical ISO text of the wall-clock instant holds the answer's digits.
    const iso = isoOfMs(wall);
    return iso.slice(0, 10) + ' ' + iso.slice(11, 19);
  }
  const d = wallClock(ms, timeZone);
  return (
    `${formatDay(ms, timeZone, d)} ` +
    `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}`
  );
}

/**
 * `formatDateTime(Date.parse(iso), timeZone)` for a Date value's ISO text, without `Date.parse`
 * for the canonical form (`YYYY-MM-DDTHH:mm:ss.sssZ`): in UTC the answer is a slice of the text.
 */
export function formatIsoDateTime(iso: string, timeZone: string): string {
  // A record's updatedAt often equals its createdAt: remember the last answer.
  if (iso === lastIso && timeZone === lastIsoZone) return lastIsoText;
  const text = isUtc(timeZone) && canonicalIsoValid(iso, true) ? iso.slice(0, 10) + ' ' + iso.slice(11, 19) : formatDateTime(isoMs(iso), timeZone);
  if (typeof iso === 'string') {
    lastIso = iso;
    lastIsoZone = timeZone;
    lastIsoText = text;
  }
  return text;
}

/**
 * A Date value's wire text: `YYYY-MM-DD HH:mm:ss` in `timeZone`, with `.SSS` appended when the
 * instant has milliseconds (PROTOCOL decision 4: nothing stored is lost on the way out).
 */
export function formatDateValue(iso: string, timeZone: string): string {
  const text = formatIsoDateTime(iso, timeZone);
  const milli = canonicalIsoValid(iso, false) ? iso.slice(20, 23) : THREE[((isoMs(iso) % 1000) + 1000) % 1000];
  return milli === '000' || milli === undefined ? text : `${text}.${milli}`;
}

let lastIso = '';
let lastIsoZone: string | null = null;
let lastIsoText = '';

/** `YYYY-MM-DD` of the instant `ms` in `timeZone` (statistics group dates by this day). */
export function formatDay(ms: number, timeZone: string, wall: Date = wallClock(ms, timeZone)): string {
  const y = wall.getUTCFullYear();
  return `${String(y).padStart(4, '0')}-${pad2(wall.getUTCMonth() + 1)}-${pad2(wall.getUTCDate())}`;
}

const TWO = Array.from({ length: 100 }, (_, i) => (i < 10 ? '0' : '') + String(i));
const THREE = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
/** 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z: the fast paths' range. */
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

/** Digit value of the character at `i`, or -100000 (making any field's sum of digits negative) otherwise. */
function digit(s: string, i: number): number {
  const c = s.charCodeAt(i) - 48;
  return c >= 0 && c <= 9 ? c : -100_000;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * Whether `iso` is `YYYY-MM-DDTHH:mm:ss.sssZ` with fields `Date.parse` reads as written (month
 * 1-12, day 1-31, hour 0-23, minute and second 0-59); `exactDay` also refuses days past the end of
 * the month (which `Date.parse` rolls over into the next month).
 */
function canonicalIsoValid(iso: string, exactDay: boolean): boolean {
  if (typeof iso !== 'string' || iso.length !== 24 || iso.charCodeAt(4) !== 45 || iso.charCodeAt(7) !== 45 || iso.charCodeAt(10) !== 84 || iso.charCodeAt(13) !== 58 ||
    iso.charCodeAt(16) !== 58 || iso.charCodeAt(19) !== 46 || iso.charCodeAt(23) !== 90) return false;
  const year = digit(iso, 0) * 1000 + digit(iso, 1) * 100 + digit(iso, 2) * 10 + digit(iso, 3);
  const month = digit(iso, 5) * 10 + digit(iso, 6);
  const day = digit(iso, 8) * 10 + digit(iso, 9);
  const hour = digit(iso, 11) * 10 + digit(iso, 12);
  const minute = digit(iso, 14) * 10 + digit(iso, 15);
  const second = digit(iso, 17) * 10 + digit(iso, 18);
  const milli = digit(iso, 20) * 100 + digit(iso, 21) * 10 + digit(iso, 22);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > 31 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59 || milli < 0) return false;
  return !exactDay || day <= 28 || day <= daysInMonth(year, month);
}

/**
 * `Date.parse(iso)` for a Date value's ISO text; the canonical form (`YYYY-MM-DDTHH:mm:ss.sssZ`,
 * what every stored Date holds) is read by arithmetic on its digits, anything else by `Date.parse`.
 */
export function isoMs(iso: string): number {
  if (!canonicalIsoValid(iso, false)) return Date.parse(iso);
  const year = digit(iso, 0) * 1000 + digit(iso, 1) * 100 + digit(iso, 2) * 10 + digit(iso, 3);
  const month = digit(iso, 5) * 10 + digit(iso, 6);
  const day = digit(iso, 8) * 10 + digit(iso, 9);
  // Civil date to days (Howard Hinnant's algorithm); linear in the day, so day 30 of February
  // rolls over into March exactly as Date.parse does.
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  const days = era * 146_097 + doe - 719_468;
  const hour = digit(iso, 11) * 10 + digit(iso, 12);
  const minute = digit(iso, 14) * 10 + digit(iso, 15);
  const second = digit(iso, 17) * 10 + digit(iso, 18);
  const milli = digit(iso, 20) * 100 + digit(iso, 21) * 10 + digit(iso, 22);
  return days * 86_400_000 + ((hour * 60 + minute) * 60 + second) * 1000 + milli;
}

/** Canonical internal form of a Date: ISO 8601 UTC with milliseconds, e.g. `2026-01-02T03:04:05.678Z`. */
export function toIso(ms: number): string {
  return new Date(ms).toISOString();
}

const DATE_INPUT =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * Parses the seed's three input forms (`YYYY-MM-DDTHH:MM:SS.MMMZ`, `YYYY-MM-DDTHH:MM:SS`,
 * `YYYY-MM-DD HH:MM:SS`) plus a bare date and explicit offsets. Without a zone the wall-clock time is
 * read in `timeZone`. Returns epoch ms, or `null` when the text is not a valid date.
 */
export function parseDateInput(text: string, timeZone: string): number | null {
  const m = DATE_INPUT.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone] = m;
  const year = Number(y), month = Number(mo), day = Number(d);
  const hour = Number(h), minute = Number(mi), second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return null;
  const ms = frac ? Math.floor(Number(frac.padEnd(3, '0').slice(0, 3))) : 0;
  // Date.UTC alone reads years 0-99 as 1900-1999: set the year separately.
  const date = new Date(Date.UTC(2000, 0, 1, hour, minute, second, ms));
  date.setUTCFullYear(year, month - 1, day);
  const wall = date.getTime();
  // 2026-02-31 rolls over into March: refuse instead.
  if (date.getUTCDate() !== day) return null;
  if (zone) {
    if (zone === 'Z') return wall;
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    const offset = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
    return wall - offset;
  }
  // Two passes settle the offset around DST changes.
  let utc = wall - zoneOffsetMs(timeZone, wall);
  utc = wall - zoneOffsetMs(timeZone, utc);
  return utc;
}
