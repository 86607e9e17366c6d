/**
 * Where the speech-to-text server is and how to talk to it (spec, endpoint 25): Dolibarr constants
 * of the entity (`llx_const`, entity 0 and the served one; `dolcrypt:` values come decrypted from
 * the const repository), each overridden by the environment variable of the same name
 * (config.transcribe). Read on every call, so a change in Dolibarr's setup takes effect at once.
 */
import type { TranscribeOverrides } from '../../config.js';
import type { ConstRepository } from '../../dolibarr/const.repository.js';
import { AppError } from '../../errors.js';

/** The protocols spoken: whisper-asr-webservice (self-hosted) and OpenAI's transcription API (hosted or compatible). */
export const TRANSCRIBE_MODES = ['whisper-asr', 'openai'] as const;
export type TranscribeMode = (typeof TRANSCRIBE_MODES)[number];

/** Language when none is set (spec: "Language defaults to de"). */
export const DEFAULT_LANGUAGE = 'de';
/** `openai` mode's model when BERICHT_TRANSCRIBE_MODEL is not set. */
export const DEFAULT_OPENAI_MODEL = 'whisper-1';
/** A language code as Whisper knows them (`de`, `en`, `haw`), or `auto` to let the server detect it. */
export const LANGUAGE_PATTERN = '^[A-Za-z]{2,5}$';

export const SETTING_NAMES = {
  url: 'BERICHT_TRANSCRIBE_URL',
  mode: 'BERICHT_TRANSCRIBE_MODE',
  apiKey: 'BERICHT_TRANSCRIBE_API_KEY',
  lang: 'BERICHT_TRANSCRIBE_LANG',
  model: 'BERICHT_TRANSCRIBE_MODEL',
} as const;

export interface TranscribeSettings {
  /** The server's base address (http or https, no credentials, query or fragment), without a trailing `/`. */
  url: string;
  mode: TranscribeMode;
  /** Sent as `Authorization: Bearer`; never logged, never in an answer. */
  apiKey: string | undefined;
  /** Lower-case language code, or `auto`. */
  language: string;
  /** Model name for `openai` mode. */
  model: string;
  timeoutMs: number;
}

function misconfigured(setting: string, message: string, details: Record<string, unknown> = {}): AppError {
  return new AppError('TRANSCRIBE_NOT_CONFIGURED', { message: `Die Spracherkennung ist falsch eingerichtet: ${message}`, details: { setting, ...details } });
}

/** A language code from settings or a request, lower-cased; undefined when it is not one. */
export function normalizeLanguage(value: string): string | undefined {
  const v = value.trim();
  return new RegExp(LANGUAGE_PATTERN).test(v) ? v.toLowerCase() : undefined;
}

export async function loadTranscribeSettings(consts: ConstRepository, env: TranscribeOverrides): Promise<TranscribeSettings> {
  const stored = await consts.getMany(Object.values(SETTING_NAMES));
  // The environment wins; an empty value (here or in llx_const) counts as not set.
  const pick = (key: keyof typeof SETTING_NAMES, fromEnv: string | undefined) => {
    const value = fromEnv?.trim() || stored.get(SETTING_NAMES[key])?.trim();
    return value ? value : undefined;
  };

  const rawUrl = pick('url', env.url);
  if (!rawUrl) throw new AppError('TRANSCRIBE_NOT_CONFIGURED', { details: { setting: SETTING_NAMES.url } });
  let parsed: URL;
  try {
    parsed = new URL(rawUrl);
  } catch {
    throw misconfigured(SETTING_NAMES.url, 'BERICHT_TRANSCRIBE_URL ist keine gültige Adresse (http:// oder https://)');
  }
  if (!['http:', 'https:'].includes(parsed.protocol) || parsed.search || parsed.hash) {
    throw misconfigured(SETTING_NAMES.url, 'BERICHT_TRANSCRIBE_URL muss eine http(s)-Adresse ohne ? und # sein');
  }
  // Credentials in the address would end up wherever addresses are shown; the key has its own setting.
  if (parsed.username || parsed.password) {
    throw misconfigured(SETTING_NAMES.url, 'BERICHT_TRANSCRIBE_URL darf keine Zugangsdaten enthalten; den Schlüssel in BERICHT_TRANSCRIBE_API_KEY setzen');
  }

  // No mode: the self-hosted server, the usual set-up.
  const rawMode = (pick('mode', env.mode) ?? 'whisper-asr').toLowerCase();
  const mode = TRANSCRIBE_MODES.find((m) => m === rawMode);
  if (!mode) {
    throw misconfigured(SETTING_NAMES.mode, `BERICHT_TRANSCRIBE_MODE ist unbekannt; erlaubt sind ${TRANSCRIBE_MODES.join(' und ')}`, { allowed: [...TRANSCRIBE_MODES] });
  }

  const rawLang = pick('lang', env.lang) ?? DEFAULT_LANGUAGE;
  const language = normalizeLanguage(rawLang);
  if (!language) throw misconfigured(SETTING_NAMES.lang, 'BERICHT_TRANSCRIBE_LANG muss ein Sprachkürzel wie de oder en sein (oder auto)');

  return {
    url: `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`,
    mode,
    apiKey: pick('apiKey', env.apiKey),
    language,
    // The environment has no model variable (config.ts); the constant alone chooses it.
    model: pick('model', undefined) ?? DEFAULT_OPENAI_MODEL,
    timeoutMs: env.timeoutSeconds * 1000,
  };
}
