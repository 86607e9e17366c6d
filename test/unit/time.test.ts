/**
 * Dolibarr wall times, read fast (time.ts: format() and one expression, each day's offset kept
 * where the clock is not turned near it, the slow answers kept) give exactly what the plain reading gives: formatToParts() for
 * every offset, all candidates tried. Checked across zones with odd offsets and clock changes
 * (a skipped day, half-hour and 45-minute zones, the southern hemisphere), hour by hour through
 * their change days, and asked twice (the second answer comes from what was kept).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fromDolibarrDateTime, toDolibarrDateTime } from '../../src/dolibarr/time.js';

/** The reference: the wall time of `ms` in `zone` read with formatToParts. */
function offsetAt(zone: string, ms: number): number {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  const p: Record<string, number> = {};
  for (const part of format.formatToParts(new Date(ms))) if (part.type !== 'literal') p[part.type] = Number(part.value);
  return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!) - Math.floor(ms / 1000) * 1000;
}

function reference(value: string, zone: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?/.exec(value);
  if (!m || m[1] === '0000') return null;
  const wall = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0));
  const candidates = [...new Set([-86_400_000, 0, 86_400_000].map((d) => wall - offsetAt(zone, wall + d)))];
  const valid = candidates.filter((t) => wall - offsetAt(zone, t) === t);
  return Math.floor((valid.length > 0 ? Math.min(...valid) : Math.max(...candidates)) / 1000);
}

const ZONES = [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'Australia/Lord_Howe',
  'Asia/Kathmandu',
  'Pacific/Apia',
  'America/Santiago',
  'Africa/Casablanca',
  'Asia/Kolkata',
];
/** Days around clock changes (and Samoa's skipped 30 December 2011), and plain days. */
const DAYS = [
  '2011-12-29',
  '2011-12-30',
  '2011-12-31',
  '2024-04-06',
  '2024-04-07',
  '2024-10-06',
  '2026-03-08',
  '2026-03-29',
  '2026-10-25',
  '2026-11-01',
  '1975-06-15',
  '2038-01-19',
  '0999-07-01',
];
const pad = (n: number) => String(n).padStart(2, '0');

describe('fromDolibarrDateTime', () => {
  test('equals the plain reading, hour by hour and on the half and quarter hour, asked twice', () => {
    let checked = 0;
    for (const zone of ZONES) {
      for (const day of DAYS) {
        for (let minute = 0; minute < 24 * 60; minute += 15) {
          const value = `${day} ${pad(Math.floor(minute / 60))}:${pad(minute % 60)}:00`;
          const expected = reference(value, zone);
          assert.equal(fromDolibarrDateTime(value, zone), expected, `${value} in ${zone}`);
          assert.equal(fromDolibarrDateTime(value, zone), expected, `${value} in ${zone}, again`);
          checked++;
        }
        assert.equal(fromDolibarrDateTime(day, zone), reference(day, zone), `${day} in ${zone}`);
      }
    }
    assert.equal(checked, ZONES.length * DAYS.length * 96);
  });

  test('reads back what toDolibarrDateTime wrote, outside the hour a clock is turned back', () => {
    for (const zone of ZONES) {
      for (let at = Date.UTC(2026, 0, 1) / 1000; at < Date.UTC(2027, 0, 1) / 1000; at += 7 * 3600 + 13) {
        const wall = toDolibarrDateTime(at, zone);
        const back = fromDolibarrDateTime(wall, zone)!;
        if (back !== at) assert.equal(toDolibarrDateTime(back, zone), wall, `${wall} in ${zone}: another instant of the same wall time`);
      }
    }
  });

  test('NULL, empty, the zero date and text that is no date are null; a Date is taken as it is', () => {
    for (const value of [null, undefined, '', '0000-00-00 00:00:00', 'gestern'])
      assert.equal(fromDolibarrDateTime(value, 'Europe/Berlin'), null);
    assert.equal(fromDolibarrDateTime(new Date('2026-03-29T01:30:00Z'), 'Europe/Berlin'), Date.UTC(2026, 2, 29, 1, 30) / 1000);
  });
});
