/** Time on site in words: a duration ("2 h 35 min"), an interval's day and times. */
import type { OutboxRecord } from '../outbox/records';
import { formatDate, formatTime } from '../i18n/format';
import { t } from '../i18n/i18n.svelte';
import type { TimeKind } from './time-view';

/** "2 h 35 min", "35 min" (whole minutes, rounded down). */
export function spanText(seconds: number): string {
  const minutes = Math.max(0, Math.floor(seconds / 60));
  const hours = Math.floor(minutes / 60);
  return hours > 0 ? t('time.hoursMinutes', { hours, minutes: minutes % 60 }) : t('time.minutes', { minutes });
}

/** "09:12" on the phone's clock. */
export const clockText = (unixSeconds: number): string => formatTime(unixSeconds * 1000);

/** "09:12–11:47", or "09:12–" while open. */
export function fromToText(arrival: number, departure: number | null): string {
  return `${clockText(arrival)}–${departure === null ? '' : clockText(departure)}`;
}

export const dayText = (unixSeconds: number): string => formatDate(unixSeconds);

/** What a time record waiting in the outbox is, for the person: "Ankunft 09:12", "Korrektur 09:12–11:47". */
export function timeRecordText(record: OutboxRecord<TimeKind>): string {
  switch (record.kind) {
    case 'time-arrive':
      return t('time.what.arrive', { time: `${dayText(record.payload.at)} ${clockText(record.payload.at)}` });
    case 'time-leave':
      return t('time.what.leave', { time: `${dayText(record.payload.at)} ${clockText(record.payload.at)}` });
    case 'time-add': {
      const entry = record.payload;
      return t('time.what.add', { day: dayText(entry.arrival), span: fromToText(entry.arrival, entry.departure) });
    }
    case 'time-undo': {
      const { tap, at } = record.payload;
      const time = `${dayText(at)} ${clockText(at)}`;
      return t('time.what.undo', { what: tap === 'arrive' ? t('time.what.arrive', { time }) : t('time.what.leave', { time }) });
    }
    case 'time-correct': {
      const change = record.payload;
      const span =
        change.arrival !== undefined
          ? fromToText(change.arrival, change.departure ?? null)
          : `–${change.departure !== undefined ? clockText(change.departure) : ''}`;
      return t('time.what.correct', { span });
    }
  }
}
