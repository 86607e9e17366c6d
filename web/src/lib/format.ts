/** Dates, times, amounts and sizes in the person's language and the phone's time zone (Intl). */
import { i18n } from './i18n.svelte';

const locale = () => (i18n.lang === 'de' ? 'de-DE' : 'en-GB');

export function formatDate(unixSeconds: number | null | undefined): string {
  if (unixSeconds == null) return '';
  return new Intl.DateTimeFormat(locale(), { dateStyle: 'medium' }).format(unixSeconds * 1000);
}

export function formatDateTime(unixSeconds: number | null | undefined): string {
  if (unixSeconds == null) return '';
  return new Intl.DateTimeFormat(locale(), { dateStyle: 'medium', timeStyle: 'short' }).format(unixSeconds * 1000);
}

export function formatTime(ms: number): string {
  return new Intl.DateTimeFormat(locale(), { timeStyle: 'short' }).format(ms);
}

/** An amount in the company's currency (Dolibarr's default here: euro). */
export function formatAmount(value: number, currency = 'EUR'): string {
  return new Intl.NumberFormat(locale(), { style: 'currency', currency }).format(value);
}

export function formatNumber(value: number): string {
  return new Intl.NumberFormat(locale(), { maximumFractionDigits: 3 }).format(value);
}

export function formatBytes(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${new Intl.NumberFormat(locale(), { maximumFractionDigits: unit === 0 ? 0 : 1 }).format(value)} ${units[unit]}`;
}

/** mm:ss for a recording. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}
