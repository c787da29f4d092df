/**
 * Time formats of the wire. `createdAt`/`updatedAt` and Date values are shown as
 * `YYYY-MM-DD HH:mm:ss` in the application's time zone; inputs without a zone are read in that zone.
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
  const key = `${timeZone}|${hour}`;
  const cached = offsetCache.get(key);
  if (cached !== undefined) return cached;
  const parts = formatterFor(timeZone).formatToParts(new Date(hour * 3_600_000));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  const offset = asUtc - hour * 3_600_000;
  if (offsetCache.size > 10_000) offsetCache.clear();
  offsetCache.set(key, offset);
  return offset;
}

const pad2 = (n: number) => (n < 10 ? '0' + n : String(n));

function wallClock(ms: number, timeZone: string): Date {
  return new Date(ms + zoneOffsetMs(timeZone, ms));
}

/** `YYYY-MM-DD HH:mm:ss` of the instant `ms` in `timeZone`. */
export function formatDateTime(ms: number, timeZone: string): string {
  const d = wallClock(ms, timeZone);
  return (
    `${formatDay(ms, timeZone, d)} ` +
    `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}`
  );
}

/** `YYYY-MM-DD` of the instant `ms` in `timeZone` (statistics group dates by this day). */
export function formatDay(ms: number, timeZone: string, wall: Date = wallClock(ms, timeZone)): string {
  const y = wall.getUTCFullYear();
  return `${String(y).padStart(4, '0')}-${pad2(wall.getUTCMonth() + 1)}-${pad2(wall.getUTCDate())}`;
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
  const wall = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  // Date.UTC rolls 2026-02-31 over into March: refuse instead.
  if (new Date(wall).getUTCDate() !== day) return null;
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
