/** How a checklist reads, in the person's language: states, limits, a value against them, a page's summary. */
import type { CheckState } from '../outbox/records';
import { countItems, type CheckItemView } from './checklist';
import { i18n, t } from '../i18n/i18n.svelte';

const numberFormats = new Map<string, Intl.NumberFormat>();

/** A value or limit as typed (up to six decimal places, the decimal comma in German). */
export function formatMeasure(value: number): string {
  const locale = i18n.lang === 'de' ? 'de-DE' : 'en-GB';
  let format = numberFormats.get(locale);
  if (!format) numberFormats.set(locale, (format = new Intl.NumberFormat(locale, { maximumFractionDigits: 6 })));
  return format.format(value);
}

/** The text a value is typed as (no thousands mark: it is typed back into the field). */
export function typedMeasure(value: number | null): string {
  if (value === null) return '';
  const text = String(value);
  return i18n.lang === 'de' ? text.replace('.', ',') : text;
}

export function stateName(state: CheckState): string {
  switch (state) {
    case 'ok':
      return t('checklist.state.ok');
    case 'defect':
      return t('checklist.state.defect');
    case 'na':
      return t('checklist.state.na');
    default:
      return t('checklist.state.open');
  }
}

const withUnit = (text: string, unit: string | null) => (unit ? `${text} ${unit}` : text);

/** "≤ 10 %", "≥ 1 bar", "1,0 – 2,0 bar", the unit alone, or '' for an item without either. */
export function limitsText(item: Pick<CheckItemView, 'unit' | 'lower' | 'upper'>): string {
  const { lower, upper, unit } = item;
  if (lower !== null && upper !== null)
    return withUnit(t('checklist.limitBoth', { lower: formatMeasure(lower), upper: formatMeasure(upper) }), unit);
  if (upper !== null) return withUnit(t('checklist.limitUpper', { upper: formatMeasure(upper) }), unit);
  if (lower !== null) return withUnit(t('checklist.limitLower', { lower: formatMeasure(lower) }), unit);
  return unit ?? '';
}

/** "über dem Grenzwert 10 %": where a value lies outside its limits, in words. */
export function deviationText(item: Pick<CheckItemView, 'unit' | 'lower' | 'upper'>, deviation: 'below' | 'above'): string {
  return deviation === 'above'
    ? t('checklist.above', { limit: withUnit(formatMeasure(item.upper!), item.unit) })
    : t('checklist.below', { limit: withUnit(formatMeasure(item.lower!), item.unit) });
}

/** "12 Punkte · 1 Mangel · 2 offen": a checklist page in the report's list. */
export function checklistSummary(items: readonly CheckItemView[]): string {
  const count = countItems(items);
  return [
    t('checklist.points', { count: count.total }),
    ...(count.defects > 0 ? [t('checklist.defects', { count: count.defects })] : []),
    ...(count.open > 0 ? [t('checklist.openCount', { count: count.open })] : []),
  ].join(' · ');
}

/** "7 von 12 geprüft, 1 Mangel". */
export function progressText(items: readonly CheckItemView[]): string {
  const count = countItems(items);
  const checked = t('checklist.progress', { checked: count.checked, total: count.total });
  return count.defects > 0 ? `${checked}, ${t('checklist.defects', { count: count.defects })}` : checked;
}
