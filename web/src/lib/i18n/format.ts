/** Dates, times, amounts and sizes in the person's language and the phone's time zone (Intl). */
import { i18n } from './i18n.svelte';

const locale = () => (i18n.lang === 'de' ? 'de-DE' : 'en-GB');

/** Intl formatters are costly to make (a list of 30 orders would make 60): one per language and kind. */
const formatters = new Map<string, Intl.DateTimeFormat | Intl.NumberFormat>();
function dates(kind: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${locale()} date ${kind}`;
  let made = formatters.get(key) as Intl.DateTimeFormat | undefined;
  if (!made) formatters.set(key, (made = new Intl.DateTimeFormat(locale(), options)));
  return made;
}
function numbers(kind: string, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = `${locale()} number ${kind}`;
  let made = formatters.get(key) as Intl.NumberFormat | undefined;
  if (!made) formatters.set(key, (made = new Intl.NumberFormat(locale(), options)));
  return made;
}

export function formatDate(unixSeconds: number | null | undefined): string {
  if (unixSeconds == null) return '';
  return dates('date', { dateStyle: 'medium' }).format(unixSeconds * 1000);
}

export function formatDateTime(unixSeconds: number | null | undefined): string {
  if (unixSeconds == null) return '';
  return dates('datetime', { dateStyle: 'medium', timeStyle: 'short' }).format(unixSeconds * 1000);
}

export function formatTime(ms: number): string {
  return dates('time', { timeStyle: 'short' }).format(ms);
}

/** An amount in the company's currency (Dolibarr's default here: euro). */
export function formatAmount(value: number, currency = 'EUR'): string {
  return numbers(`currency ${currency}`, { style: 'currency', currency }).format(value);
}

export function formatNumber(value: number): string {
  return numbers('number', { maximumFractionDigits: 3 }).format(value);
}

export function formatBytes(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${numbers(`bytes ${unit === 0}`, { maximumFractionDigits: unit === 0 ? 0 : 1 }).format(value)} ${units[unit]}`;
}

/** mm:ss for a recording. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** A moment in the phone's local time for a file name: 20261128-101502 (sorts as it reads). */
export function localStamp(date: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}${two(date.getMonth() + 1)}${two(date.getDate())}-${two(date.getHours())}${two(date.getMinutes())}${two(date.getSeconds())}`;
}
