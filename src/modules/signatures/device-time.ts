/**
 * The moment of signing by the phone's clock. A signature made offline reaches the service
 * minutes or hours after the customer signed, so the server's time alone says when it was
 * received, not when it was given. The phone sends its time (RFC 3339 with its UTC offset) and,
 * optionally, its IANA zone; both go into the sealed metadata beside the server's time.
 *
 * A phone's clock can be wrong. A well-formed time far off is never refused (the customer has
 * gone by then): it is kept and marked implausible when it lies more than DEVICE_AHEAD_SECONDS
 * after the server's time (no signature is received before it is made) or more than
 * DEVICE_MAX_AGE_SECONDS before it (no phone waits a month to send). People see both times
 * wherever they differ by more than SHOWN_APART_SECONDS (the sheet, the page note, the public
 * check); within that, one time as before.
 */
import { localTime, zoneName } from '../../dolibarr/time.js';

/** A device time more than this after the server's is implausible (`ahead`). @default 300 (5 minutes) */
export const DEVICE_AHEAD_SECONDS = 5 * 60;
/** A device time more than this before the server's is implausible (`too_old`). @default 30 days */
export const DEVICE_MAX_AGE_SECONDS = 30 * 24 * 3600;
/** Device and server time further apart than this are both shown to people. @default 60 */
export const SHOWN_APART_SECONDS = 60;
/** Longest IANA zone name kept (the column's size). */
export const MAX_ZONE_LENGTH = 64;

export type ImplausibleReason = 'ahead' | 'too_old';

/** A time the phone sent, as it sent it, and the instant it names. */
export interface DeviceTime {
  /** The RFC 3339 text with the phone's offset, as sent (trimmed). */
  iso: string;
  /** The instant, Unix milliseconds. */
  ms: number;
}

/** What the sealed metadata keeps of the device's time; all null without one. */
export interface DeviceTimeFacts {
  signed_at_device: string | null;
  signed_at_device_unix: number | null;
  signed_at_device_zone: string | null;
  /** server_time_unix − signed_at_device_unix: positive when received after signing. */
  device_time_difference_seconds: number | null;
  device_time_plausible: boolean | null;
  device_time_implausible_reason: ImplausibleReason | null;
}

/** RFC 3339 date-time (section 5.6) with a required offset: Z or ±hh:mm. */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|([+-])(\d{2}):(\d{2}))$/;

/** The instant of an RFC 3339 date-time with its offset, or undefined when it is none (no offset, no such day, out of range). */
export function parseDeviceTime(raw: string): DeviceTime | undefined {
  const iso = raw.trim();
  const m = RFC3339.exec(iso);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const offsetHours = m[10] === undefined ? 0 : Number(m[10]);
  const offsetMinutes = m[11] === undefined ? 0 : Number(m[11]);
  // A leap second (:60) is not taken: no phone's clock shows one, and JavaScript's has none.
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  // setUTCFullYear, unlike Date.UTC, takes years below 100 as they are written.
  const check = new Date(0);
  check.setUTCFullYear(year, month - 1, day);
  check.setUTCHours(hour, minute, second, 0);
  // 31 April rolls into 1 May: not the day written.
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return undefined;
  const wall = check.getTime();
  const fraction = m[7] ? Math.floor(Number(`0${m[7]}`) * 1000) : 0;
  const sign = m[9] === '-' ? -1 : 1;
  return { iso, ms: wall + fraction - sign * (offsetHours * 60 + offsetMinutes) * 60_000 };
}

/**
 * The zone as the phone named it (its case mended where this runtime knows it and that is all), or
 * undefined when it is no IANA-style name at all. A well-formed name this runtime does not know is
 * kept as sent: a phone's zone database may be newer than the server's, and a browser that cannot
 * place its system's zone says `Etc/Unknown`; refusing it would refuse the signature of a customer
 * who has gone. Its time is then shown at the offset the phone sent (deviceClock).
 */
export function parseDeviceZone(raw: string): string | undefined {
  const zone = raw.trim();
  // IANA names only (Europe/Berlin, Etc/GMT+1, UTC): no bare offsets, nothing that only looks like one.
  if (zone.length === 0 || zone.length > MAX_ZONE_LENGTH || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(zone)) return undefined;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return zone;
  }
  // ICU answers some zones by an older name (Asia/Kolkata as Asia/Calcutta): the phone's name is kept.
  return resolved.toLowerCase() === zone.toLowerCase() ? resolved : zone;
}

/** The facts for the metadata, judged against the server's time `serverUnix`. */
export function deviceTimeFacts(device: DeviceTime | undefined, zone: string | undefined, serverUnix: number): DeviceTimeFacts {
  if (!device) {
    return {
      signed_at_device: null,
      signed_at_device_unix: null,
      signed_at_device_zone: null,
      device_time_difference_seconds: null,
      device_time_plausible: null,
      device_time_implausible_reason: null,
    };
  }
  const unix = Math.floor(device.ms / 1000);
  const difference = serverUnix - unix;
  const reason: ImplausibleReason | null =
    difference < -DEVICE_AHEAD_SECONDS ? 'ahead' : difference > DEVICE_MAX_AGE_SECONDS ? 'too_old' : null;
  return {
    signed_at_device: device.iso,
    signed_at_device_unix: unix,
    signed_at_device_zone: zone ?? null,
    device_time_difference_seconds: difference,
    device_time_plausible: reason === null,
    device_time_implausible_reason: reason,
  };
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `+01:00` of an RFC 3339 text (`Z`: `+00:00`). */
function offsetOf(iso: string): string {
  const m = /([+-]\d{2}:\d{2})$/.exec(iso);
  return m ? m[1]! : '+00:00';
}

/** Minutes of an offset such as `-05:30`. */
function offsetMinutes(offset: string): number {
  const sign = offset.startsWith('-') ? -1 : 1;
  return sign * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4, 6)));
}

/**
 * The device's local time for people: `dd.mm.yyyy HH:MM:SS` in its zone when it sent one, else
 * at the offset it sent; and which zone that is (`MEZ, Europe/Berlin`, or `UTC+01:00`).
 */
export function deviceClock(
  facts: Pick<DeviceTimeFacts, 'signed_at_device' | 'signed_at_device_unix' | 'signed_at_device_zone'>,
): { time: string; zone: string } | null {
  if (facts.signed_at_device === null || facts.signed_at_device_unix === null) return null;
  const date = new Date(facts.signed_at_device_unix * 1000);
  const zone = facts.signed_at_device_zone;
  if (zone) {
    try {
      return { time: localTime(date, zone, { seconds: true, zone: false }), zone: `${zoneName(date, zone)}, ${zone}` };
    } catch {
      // A zone this runtime no longer knows (metadata made elsewhere): the offset the phone sent.
    }
  }
  const offset = offsetOf(facts.signed_at_device);
  const local = new Date(date.getTime() + offsetMinutes(offset) * 60_000);
  const time = `${pad(local.getUTCDate())}.${pad(local.getUTCMonth() + 1)}.${String(local.getUTCFullYear()).padStart(4, '0')} ${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}`;
  return { time, zone: offset === '+00:00' ? 'UTC' : `UTC${offset}` };
}

/** A span for people: `12 min`, `3 h 5 min`, `4 Tage`. */
function span(seconds: number): string {
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  if (minutes < 48 * 60) return minutes % 60 === 0 ? `${Math.floor(minutes / 60)} h` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
  return `${Math.floor(seconds / 86_400)} Tage`;
}

/** The mark of an implausible device time (`unplausibel: …`), or null when it is plausible or there is none. */
export function implausibleMark(
  facts: Pick<DeviceTimeFacts, 'device_time_implausible_reason' | 'device_time_difference_seconds'>,
): string | null {
  const difference = facts.device_time_difference_seconds;
  if (difference === null) return null;
  switch (facts.device_time_implausible_reason) {
    case 'ahead':
      return `unplausibel: Gerätezeit ${span(-difference)} nach der Serverzeit`;
    case 'too_old':
      return `unplausibel: Gerätezeit mehr als 30 Tage vor dem Empfang (${span(difference)})`;
    default:
      return null;
  }
}

/**
 * What people are shown of the device's time: null when there is none or it lies within
 * SHOWN_APART_SECONDS of the server's (then one time, the server's, as without it); else the
 * device's clock and the mark when it is implausible.
 */
export function deviceTimeShown(
  facts: Partial<DeviceTimeFacts> | null | undefined,
): { time: string; zone: string; mark: string | null } | null {
  if (!facts) return null;
  const full: DeviceTimeFacts = {
    signed_at_device: facts.signed_at_device ?? null,
    signed_at_device_unix: facts.signed_at_device_unix ?? null,
    signed_at_device_zone: facts.signed_at_device_zone ?? null,
    device_time_difference_seconds: facts.device_time_difference_seconds ?? null,
    device_time_plausible: facts.device_time_plausible ?? null,
    device_time_implausible_reason: facts.device_time_implausible_reason ?? null,
  };
  if (full.device_time_difference_seconds === null || Math.abs(full.device_time_difference_seconds) <= SHOWN_APART_SECONDS) return null;
  const clock = deviceClock(full);
  return clock && { ...clock, mark: implausibleMark(full) };
}
