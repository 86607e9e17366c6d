/**
 * Every text a person reads comes from one dictionary per language (i18n/de.json, en.json).
 * The person's choice in the settings (kept on the phone), or as the phone says: German by
 * default, English when the browser prefers English to German. `t(key, params)` fills
 * `{name}` placeholders; a key with `_one`/`_other` variants is chosen by `params.count`.
 * The service's own messages are German: an error with a known code is shown in the person's
 * language from the dictionary (`error.<CODE>`), otherwise as the service wrote it.
 * Only German is in the first screen's JavaScript; English is loaded before the first screen is
 * drawn, and only where the browser prefers it (`loadLanguage`).
 */
import { ApiError, NetworkError } from '../../api/client';
import de from '../../i18n/de.json';
import { db } from '../store/db';
import { formatNumber } from './format';

export type Lang = 'de' | 'en';
type Dictionary = Record<string, string>;
const DICTIONARIES: Partial<Record<Lang, Dictionary>> & { de: Dictionary } = { de };

/** The first of the browser's languages that the app speaks; German when none. */
export function chooseLang(preferred: readonly string[]): Lang {
  for (const tag of preferred) {
    const base = tag.toLowerCase().split('-')[0];
    if (base === 'de' || base === 'en') return base;
  }
  return 'de';
}

const phoneLang = () => chooseLang(typeof navigator === 'undefined' ? [] : navigator.languages);

export const i18n = $state({ lang: phoneLang() as Lang });

/** The language the person chose in the settings; `auto`: as the phone says. */
export const LANGUAGE_CHOICES = ['auto', 'de', 'en'] as const;
export type LanguageChoice = (typeof LANGUAGE_CHOICES)[number];
export const language = $state({ choice: 'auto' as LanguageChoice, phone: phoneLang() as Lang });

/** Switches to `choice`'s language, its dictionary loaded first (the screen never shows keys). */
async function apply(choice: LanguageChoice): Promise<void> {
  const lang = choice === 'auto' ? language.phone : choice;
  if (lang === 'en' && !DICTIONARIES.en) DICTIONARIES.en = (await import('../../i18n/en.json')).default;
  i18n.lang = lang;
  if (typeof document !== 'undefined') document.documentElement.lang = lang;
}

/** Loads the person's language: the choice kept on the phone, else the phone's (awaited before the first screen). */
export async function loadLanguage(): Promise<void> {
  let stored: unknown;
  try {
    stored = await (await db()).get('settings', 'language');
  } catch {
    stored = undefined;
  }
  language.choice = (LANGUAGE_CHOICES as readonly unknown[]).includes(stored) ? (stored as LanguageChoice) : 'auto';
  await apply(language.choice);
}

/** The person chose a language in the settings: it applies at once and is kept on the phone. */
export async function setLanguage(choice: LanguageChoice): Promise<void> {
  language.choice = choice;
  await apply(choice);
  try {
    await (await db()).put('settings', choice, 'language');
  } catch {
    // Not kept (storage full): it applies until the app is closed.
  }
}

const plurals = new Map<Lang, Intl.PluralRules>();

export function t(key: string, params: Record<string, string | number> = {}): string {
  const dict = DICTIONARIES[i18n.lang] ?? DICTIONARIES.de;
  let text: string | undefined;
  if (typeof params.count === 'number') {
    let rules = plurals.get(i18n.lang);
    if (!rules) plurals.set(i18n.lang, (rules = new Intl.PluralRules(i18n.lang)));
    const form = rules.select(params.count);
    text = dict[`${key}_${form}`] ?? dict[`${key}_other`];
  }
  text ??= dict[key] ?? DICTIONARIES.de[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

/** Whether the dictionaries have a text for `key` (for values that may also be free text, such as units). */
export function hasText(key: string): boolean {
  return key in DICTIONARIES.de;
}

/**
 * What to tell the person when a request failed: `offlineKey`'s text when no answer came (the
 * screen's own words for what needs a connection; by default "no connection"), the
 * service's refusal (errorText) when it answered, else the unexpected-error text.
 */
export function failureText(failure: unknown, offlineKey = 'error.NETWORK'): string {
  if (failure instanceof NetworkError) return t(offlineKey);
  if (failure instanceof ApiError) return refusalText(failure);
  return t('error.unknown');
}

/**
 * The message for an error of the service, in the person's language: the dictionary's for its code
 * (every code the service has is there). A code this app does not know (a newer service): its
 * German message where the person reads German, else a general text naming the code.
 */
export function errorText(code: string | undefined, serverMessage: string | undefined): string {
  const key = `error.${code}`;
  if (code && key in (DICTIONARIES[i18n.lang] ?? DICTIONARIES.de)) return t(key);
  if (i18n.lang === 'de' && serverMessage) return serverMessage;
  return code ? t('error.unknownCode', { code }) : t('error.unknown');
}

/** The parts a van holds too few of, as the service names them (ref, lot, held, wanted). */
function stockShortText(short: unknown[]): string {
  const parts = short.map((s) => {
    const { ref, batch, held, wanted } = s as { ref?: unknown; batch?: unknown; held?: unknown; wanted?: unknown };
    return t('error.stockShortPart', {
      part: typeof batch === 'string' && batch ? `${String(ref)} (${batch})` : String(ref),
      held: formatNumber(Number(held)),
      wanted: formatNumber(Number(wanted)),
    });
  });
  return t('error.STOCK_INSUFFICIENT_parts', { parts: parts.join('; ') });
}

/**
 * A refusal with what stands in its way where the service names it (the reports that show a photo;
 * the checklist item a definition or an answer was refused for: its position, label and what was wrong).
 */
export function refusalText(error: ApiError): string {
  const reports = (error.details as { reports?: unknown } | undefined)?.reports;
  if (error.code === 'PHOTO_IN_USE' && Array.isArray(reports) && reports.length > 0)
    return t('error.PHOTO_IN_USE_by', { reports: reports.join(', ') });
  const short = (error.details as { short?: unknown } | undefined)?.short;
  if (error.code === 'STOCK_INSUFFICIENT' && Array.isArray(short) && short.length > 0) return stockShortText(short);
  const item = Array.isArray(error.details)
    ? (error.details as { item?: unknown; label?: unknown; message?: unknown }[]).find((d) => typeof d?.item === 'number')
    : undefined;
  if (error.code === 'VALIDATION_FAILED' && item) {
    // The service says it in German, naming the item; in English from its details.
    if (i18n.lang === 'de' && error.message) return error.message;
    return t('checklist.refusedItem', {
      position: item.item as number,
      label: typeof item.label === 'string' ? item.label : '',
      message: String(item.message ?? ''),
    });
  }
  return errorText(error.code, error.message);
}
