/**
 * Where the speech-to-text server is and how to talk to it (contract endpoint 25): Dolibarr constants
 * of the entity (`llx_const`, entity 0 and the served one; `dolcrypt:` values come decrypted from
 * the const repository), each overridden by the environment variable of the same name
 * (config.transcribe). Read on every call, so a change in Dolibarr's setup takes effect at once.
 * The transcription endpoint and the capabilities the app reads (capabilities.routes.ts) both read
 * them here, so "offered" and "works" never disagree.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { TranscribeOverrides } from '../../config.js';
import type { ConstRepository } from '../../dolibarr/const.repository.js';
import { AppError } from '../../errors.js';

/** The protocols spoken: whisper-asr-webservice (self-hosted) and OpenAI's transcription API (hosted or compatible). */
export const TRANSCRIBE_MODES = ['whisper-asr', 'openai'] as const;
export type TranscribeMode = (typeof TRANSCRIBE_MODES)[number];

/** Language when none is set (the contract: "Language defaults to de"). */
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

/** A language code from settings or a request, lower-cased; undefined when it is not one. */
export function normalizeLanguage(value: string): string | undefined {
  const v = value.trim();
  return new RegExp(LANGUAGE_PATTERN).test(v) ? v.toLowerCase() : undefined;
}

/** A setting that keeps speech-to-text from working, for the operator's log (never its value). */
export interface SettingProblem {
  setting: (typeof SETTING_NAMES)[keyof typeof SETTING_NAMES];
  problem: 'missing' | 'invalid';
  /** Where the value came from: the environment wins over llx_const. */
  from?: 'environment' | 'llx_const';
  /** What is wrong, in English, for the operator. */
  reason: string;
}

export type SettingsReading = { ok: true; settings: TranscribeSettings } | { ok: false; problems: SettingProblem[] };

/**
 * The settings as the speech-to-text client needs them, or every problem found (all at once, so
 * an operator fixes them in one go). Nothing here is for the person using the app: the API answers
 * 503 TRANSCRIBE_NOT_CONFIGURED without naming settings, and the problems go to the log.
 */
export async function readTranscribeSettings(consts: ConstRepository, env: TranscribeOverrides): Promise<SettingsReading> {
  const stored = await consts.getMany(Object.values(SETTING_NAMES));
  // The environment wins; an empty value (here or in llx_const) counts as not set.
  const pick = (
    key: keyof typeof SETTING_NAMES,
    fromEnv: string | undefined,
  ): { value: string; from: 'environment' | 'llx_const' } | undefined => {
    if (fromEnv?.trim()) return { value: fromEnv.trim(), from: 'environment' };
    const value = stored.get(SETTING_NAMES[key])?.trim();
    return value ? { value, from: 'llx_const' } : undefined;
  };
  const problems: SettingProblem[] = [];
  const invalid = (key: keyof typeof SETTING_NAMES, from: SettingProblem['from'], reason: string) =>
    problems.push({ setting: SETTING_NAMES[key], problem: 'invalid', from, reason });

  const rawUrl = pick('url', env.url);
  let url: string | undefined;
  if (!rawUrl) {
    problems.push({
      setting: SETTING_NAMES.url,
      problem: 'missing',
      reason: 'not set in llx_const (entity 0 or the served one) nor in the environment',
    });
  } else {
    let parsed: URL | undefined;
    try {
      parsed = new URL(rawUrl.value);
    } catch {
      invalid('url', rawUrl.from, 'not a valid http:// or https:// address');
    }
    if (parsed && (!['http:', 'https:'].includes(parsed.protocol) || parsed.search || parsed.hash)) {
      invalid('url', rawUrl.from, 'must be an http(s) address without ? and #');
    } else if (parsed && (parsed.username || parsed.password)) {
      // Credentials in the address would end up wherever addresses are shown; the key has its own setting.
      invalid('url', rawUrl.from, `must not hold credentials; put the key into ${SETTING_NAMES.apiKey}`);
    } else if (parsed) {
      url = `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
    }
  }

  // No mode: the self-hosted server, the usual set-up.
  const rawMode = pick('mode', env.mode);
  const mode = TRANSCRIBE_MODES.find((m) => m === (rawMode?.value ?? 'whisper-asr').toLowerCase());
  if (!mode) invalid('mode', rawMode?.from, `unknown mode; allowed are ${TRANSCRIBE_MODES.join(' and ')}`);

  const rawLang = pick('lang', env.lang);
  const language = normalizeLanguage(rawLang?.value ?? DEFAULT_LANGUAGE);
  if (!language) invalid('lang', rawLang?.from, 'must be a language code such as de or en, or auto');

  if (problems.length > 0 || !url || !mode || !language) return { ok: false, problems };
  return {
    ok: true,
    settings: {
      url,
      mode,
      apiKey: pick('apiKey', env.apiKey)?.value,
      language,
      // The environment has no model variable (config.ts); the constant alone chooses it.
      model: pick('model', undefined)?.value ?? DEFAULT_OPENAI_MODEL,
      timeoutMs: env.timeoutSeconds * 1000,
    },
  };
}

/**
 * The settings, or 503 TRANSCRIBE_NOT_CONFIGURED: the answer says only that speech-to-text is not
 * set up here (a technician reads it and can do nothing about it); `log` gets one warn line naming
 * each setting that is missing or invalid and why, for the operator (names and reasons only, no
 * value: neither the key nor an address that might hold credentials).
 */
export async function loadTranscribeSettings(
  consts: ConstRepository,
  env: TranscribeOverrides,
  log?: Pick<FastifyBaseLogger, 'warn'>,
): Promise<TranscribeSettings> {
  const read = await readTranscribeSettings(consts, env);
  if (read.ok) return read.settings;
  const named = read.problems.map((p) => `${p.setting} ${p.problem}`).join(', ');
  log?.warn({ transcribe: { problems: read.problems } }, `speech-to-text is not set up: ${named}`);
  throw new AppError('TRANSCRIBE_NOT_CONFIGURED');
}
