/**
 * Time as Dolibarr keeps it: its date-time columns hold the wall time of the server's time zone
 * (PHP's date.timezone; dol_now() and $db->idate()), not UTC. A Dolibarr in Europe/Berlin reads
 * '2026-03-29 10:00:00' as 10:00 Berlin time (08:00 UTC in summer). So what goes into Dolibarr's
 * own columns is written, and what comes out read, in the configured time zone (TIME_ZONE); the
 * module's own tables keep UTC. Pages a person reads (PDF, signature sheet, the public check) show
 * local times with their zone (MEZ/MESZ); machine-readable metadata stays UTC ISO 8601.
 */

import { BoundedMap } from '../bounded-map.js';

const partsFormatters = new Map<string, Intl.DateTimeFormat>();

interface WallParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

// What the en-US formatter below prints for years 1 to 9999: '03/29/2026, 01:30:00'.
const EN_US_WALL = /^(\d{2})\/(\d{2})\/(\d{4}), (\d{2}):(\d{2}):(\d{2})$/;

/**
 * The wall time of `date` in `timeZone`. format() and one regular expression cost a third of
 * formatToParts(), which remains for what the expression does not take (years outside 1-9999).
 */
function partsIn(timeZone: string, date: Date): WallParts {
  let format = partsFormatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    partsFormatters.set(timeZone, format);
  }
  const m = EN_US_WALL.exec(format.format(date));
  if (m)
    return { year: Number(m[3]), month: Number(m[1]), day: Number(m[2]), hour: Number(m[4]), minute: Number(m[5]), second: Number(m[6]) };
  const out: Record<string, number> = {};
  for (const part of format.formatToParts(date)) if (part.type !== 'literal') out[part.type] = Number(part.value);
  return out as unknown as WallParts;
}

/** Whether `timeZone` is a time zone this runtime knows (an IANA name such as Europe/Berlin). */
export function isTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** Milliseconds that `timeZone` is ahead of UTC at the instant `ms`. */
function offsetAt(timeZone: string, ms: number): number {
  const p = partsIn(timeZone, new Date(ms));
  const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return wall - Math.floor(ms / 1000) * 1000;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** 'YYYY-MM-DD HH:MM:SS' of `date` as the wall time in `timeZone`, as Dolibarr writes it. */
export function toDolibarrDateTime(date: Date | number = new Date(), timeZone: string): string {
  const d = typeof date === 'number' ? new Date(date * 1000) : date;
  const p = partsIn(timeZone, d);
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)} ${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}`;
}

/** Each zone's last conversions the slow way (a day the clock is turned, an odd form). @default 4096 */
const FROM_CACHE_SIZE = 4096;
const fromCache = new Map<string, BoundedMap<string, number | null>>();
/**
 * Each zone's offset for a day (by its midnight as if UTC), when it is the same from the day before
 * to the day after next (every instant the day's wall times can be); null when the clock is turned
 * near it. Most days have one offset, so a list of 10,000 different times asks Intl once a day,
 * not three times a row. @default 8192
 */
const DAY_CACHE_SIZE = 8192;
const dayOffsets = new Map<string, BoundedMap<number, number | null>>();
const DAY_MS = 86_400_000;

/** The number of `count` digits at `from` in `text`; -1 when one is no digit. */
function digitsAt(text: string, from: number, count: number): number {
  let value = 0;
  for (let i = from; i < from + count; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * Unix seconds of a Dolibarr date-time (or date: midnight) read as wall time in `timeZone`;
 * null for NULL, '' and MySQL's zero date. In the hour a clock is turned back, the earlier instant.
 * The two forms databases give ('YYYY-MM-DD' and 'YYYY-MM-DD HH:MM:SS') are read digit by digit
 * with the day's offset kept; anything else, and a day the clock is turned, the slow way (each
 * zone keeps its last FROM_CACHE_SIZE of those).
 */
export function fromDolibarrDateTime(value: string | Date | null | undefined, timeZone: string): number | null {
  if (value === null || value === undefined || value === '') return null;
  if (value instanceof Date) return Math.floor(value.getTime() / 1000);
  const fast =
    value.length === 10 || (value.length === 19 && (value[10] === ' ' || value[10] === 'T') && value[13] === ':' && value[16] === ':');
  if (fast && value[4] === '-' && value[7] === '-') {
    const year = digitsAt(value, 0, 4);
    const month = digitsAt(value, 5, 2);
    const date = digitsAt(value, 8, 2);
    const hour = value.length === 19 ? digitsAt(value, 11, 2) : 0;
    const minute = value.length === 19 ? digitsAt(value, 14, 2) : 0;
    const second = value.length === 19 ? digitsAt(value, 17, 2) : 0;
    if (year > 0 && month >= 0 && date >= 0 && hour >= 0 && minute >= 0 && second >= 0) {
      const dayStart = Date.UTC(year, month - 1, date);
      let days = dayOffsets.get(timeZone);
      if (!days) dayOffsets.set(timeZone, (days = new BoundedMap(DAY_CACHE_SIZE)));
      let offset = days.get(dayStart);
      if (offset === undefined) {
        const around = [-DAY_MS, 0, DAY_MS, 2 * DAY_MS].map((d) => offsetAt(timeZone, dayStart + d));
        offset = around.every((o) => o === around[0]) ? around[0]! : null;
        days.set(dayStart, offset);
      }
      if (offset !== null && !Number.isNaN(dayStart))
        return Math.floor((dayStart + (hour * 3600 + minute * 60 + second) * 1000 - offset) / 1000);
    }
  }
  let cache = fromCache.get(timeZone);
  if (!cache) fromCache.set(timeZone, (cache = new BoundedMap(FROM_CACHE_SIZE)));
  const known = cache.get(value);
  if (known !== undefined) return known;
  const seconds = readWallTime(value, timeZone);
  cache.set(value, seconds);
  return seconds;
}

/** The slow way: any form the expression takes, every offset around it asked. */
function readWallTime(value: string, timeZone: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?/.exec(value);
  if (!m || m[1] === '0000') return null;
  const wall = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0));
  if (Number.isNaN(wall)) return null;
  return wallToUnix(wall, timeZone);
}

/** The instant of the wall time `wall` (its fields as if UTC) in `timeZone`, near a change of its clock. */
function wallToUnix(wall: number, timeZone: string): number | null {
  // The zone's offsets around that day give the candidate instants; one whose own offset gives
  // back the wall time is right (two when the clock was turned back: the earlier; none in the hour
  // skipped when it was put forward: the later, as PHP moves such a time forward).
  const offsets = [-DAY_MS, 0, DAY_MS].map((d) => offsetAt(timeZone, wall + d));
  if (offsets[0] === offsets[1] && offsets[1] === offsets[2]) return Math.floor((wall - offsets[1]!) / 1000);
  const candidates = [...new Set(offsets.map((offset) => wall - offset))];
  const valid = candidates.filter((t) => wall - offsetAt(timeZone, t) === t);
  const ms = valid.length > 0 ? Math.min(...valid) : Math.max(...candidates);
  return Math.floor(ms / 1000);
}

/** `dd.mm.yyyy HH:MM[:SS] <zone>` for people, e.g. `29.03.2026 10:00 MESZ`, `01.01.2026 09:30 UTC`. */
export function localTime(date: Date, timeZone: string, options: { seconds?: boolean; zone?: boolean } = {}): string {
  const p = partsIn(timeZone, date);
  const time = `${pad(p.day)}.${pad(p.month)}.${pad(p.year, 4)} ${pad(p.hour)}:${pad(p.minute)}${options.seconds ? `:${pad(p.second)}` : ''}`;
  return options.zone === false ? time : `${time} ${zoneName(date, timeZone)}`;
}

/** `dd.mm.yyyy` in `timeZone`. */
export function localDate(date: Date, timeZone: string): string {
  const p = partsIn(timeZone, date);
  return `${pad(p.day)}.${pad(p.month)}.${pad(p.year, 4)}`;
}

/** The zone's short name at `date`, German by default: MEZ, MESZ, UTC, or GMT+3 and the like (`en-GB`: CET, CEST). */
export function zoneName(date: Date, timeZone: string, locale = 'de-DE'): string {
  const part = new Intl.DateTimeFormat(locale, { timeZone, timeZoneName: 'short' })
    .formatToParts(date)
    .find((x) => x.type === 'timeZoneName');
  return part?.value ?? timeZone;
}

/** `YYYY-MM-DD` `days` days after the day `day` (calendar days: no clock or zone is involved). */
export function addDays(day: string, days: number): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

/** The process's own time zone, as PHP takes the system's when date.timezone is unset. */
export function processTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}
