/**
 * How a report's mail leaves: Dolibarr's own mail settings (`llx_const`, entity 0 and the served
 * one, as Dolibarr's admin/mails.php stores them; `dolcrypt:` values come decrypted from the const
 * repository), each overridden by the environment variable of the same name (config.mail.env), so
 * a standalone service is set up in its environment alone. Read for each mail, so a change in
 * Dolibarr's setup takes effect with the next one.
 *
 * - MAIN_MAIL_SENDMODE: `mail` (Dolibarr's default, PHP's mail(): the local sendmail program) or
 *   `smtps` / `swiftmailer` (SMTP). Unset with no SMTP server set either: mail is not set up.
 * - MAIN_MAIL_SMTP_SERVER (default localhost), MAIN_MAIL_SMTP_PORT (default 25, 465 with TLS).
 * - MAIN_MAIL_SMTPS_ID / MAIN_MAIL_SMTPS_PW: the login, when set; MAIN_MAIL_SMTPS_AUTH_TYPE LOGIN or
 *   PLAIN (XOAUTH2 is not supported here: a clear problem).
 * - MAIN_MAIL_EMAIL_TLS: TLS from the first byte (SMTPS); MAIN_MAIL_EMAIL_STARTTLS: STARTTLS is
 *   required; neither: STARTTLS when the server offers it (as PHPMailer does).
 *   MAIN_MAIL_EMAIL_SMTP_ALLOW_SELF_SIGNED: the server's certificate is not checked.
 * - MAIN_MAIL_EMAIL_FROM: the sender (required); MAIN_MAIL_ERRORS_TO: the envelope's return path.
 * - MAIN_MAIL_AUTOCOPY_TO: a hidden copy of every mail; MAIN_MAIL_FORCE_SENDTO: every mail goes
 *   there instead (Dolibarr's test setting).
 * - The module's own: BERICHT_MAIL_COPY_TO (a copy to the office, addresses separated by commas),
 *   BERICHT_MAIL_COPY_AUTHOR (1: a copy to the technician who sends it, the first address of their
 *   e-mail in Dolibarr), BERICHT_MAIL_SUBJECT[_EN]
 *   and BERICHT_MAIL_TEXT[_EN] (the templates; mail-text.ts has the defaults and substitutions).
 * - The limits (readMailLimits; ranges and defaults in config.ts, MAIL_LIMIT_SETTINGS):
 *   BERICHT_MAIL_MAX_RECIPIENTS, BERICHT_MAIL_MAX_PER_USER_HOUR, BERICHT_MAIL_MAX_PER_REPORT_DAY.
 * - Copies (BERICHT_MAIL_COPY_TO, MAIN_MAIL_AUTOCOPY_TO, the author's) take only plain addresses, by
 *   the rule of a send's recipients (isPlainAddress); another is left out and logged, never sent to.
 */
import type { MailConfig } from '../../config.js';
import { MAIL_LIMIT_SETTINGS, type MailLimitSetting, mailLimitValue } from '../../settings.js';
import type { ConstRepository } from '../../dolibarr/const.repository.js';
import { isPlainAddress } from './mail.schemas.js';

export const MAIL_SETTING_NAMES = [
  'MAIN_MAIL_SENDMODE',
  'MAIN_MAIL_SMTP_SERVER',
  'MAIN_MAIL_SMTP_PORT',
  'MAIN_MAIL_SMTPS_ID',
  'MAIN_MAIL_SMTPS_PW',
  'MAIN_MAIL_SMTPS_AUTH_TYPE',
  'MAIN_MAIL_EMAIL_TLS',
  'MAIN_MAIL_EMAIL_STARTTLS',
  'MAIN_MAIL_EMAIL_SMTP_ALLOW_SELF_SIGNED',
  'MAIN_MAIL_EMAIL_FROM',
  'MAIN_MAIL_ERRORS_TO',
  'MAIN_MAIL_AUTOCOPY_TO',
  'MAIN_MAIL_FORCE_SENDTO',
  'BERICHT_MAIL_COPY_TO',
  'BERICHT_MAIL_COPY_AUTHOR',
  'BERICHT_MAIL_SUBJECT',
  'BERICHT_MAIL_TEXT',
  'BERICHT_MAIL_SUBJECT_EN',
  'BERICHT_MAIL_TEXT_EN',
] as const;
export type MailSettingName = (typeof MAIL_SETTING_NAMES)[number];

export type MailTransportSettings =
  | { kind: 'sendmail' }
  | {
      kind: 'smtp';
      host: string;
      port: number;
      /** TLS from the first byte. */
      secure: boolean;
      /** STARTTLS is required (the mail is not sent in clear). */
      requireTLS: boolean;
      allowSelfSigned: boolean;
      auth?: { user: string; pass: string; method: 'LOGIN' | 'PLAIN' };
    };

export interface MailSettings {
  transport: MailTransportSettings;
  from: string;
  errorsTo?: string;
  autocopyTo?: string;
  forceSendTo?: string;
  /** The office's copy. */
  copyTo: string[];
  /** Addresses of BERICHT_MAIL_COPY_TO and MAIN_MAIL_AUTOCOPY_TO that are not plain addresses: left out (for the log). */
  dropped: { setting: MailSettingName; address: string }[];
  copyAuthor: boolean;
  /** Templates by language ('de', 'en'); undefined: the built-in text. */
  templates: Record<'de' | 'en', { subject?: string; text?: string }>;
}

/** A setting that keeps mail from leaving, for the operator (never its value). */
export interface MailSettingProblem {
  setting: MailSettingName;
  reason: string;
}

export type MailSettingsReading = { ok: true; settings: MailSettings } | { ok: false; problems: MailSettingProblem[] };

const truthy = (value: string | undefined) => !!value && !['0', 'false', 'no', 'off', ''].includes(value.trim().toLowerCase());
/** Comma- or semicolon-separated addresses, trimmed, empty ones dropped. */
export const addressList = (value: string | undefined): string[] =>
  (value ?? '')
    .split(/[,;]/)
    .map((a) => a.trim())
    .filter(Boolean);

/** The plain addresses of a setting's list (isPlainAddress); the others go into `dropped`. */
function plainAddresses(setting: MailSettingName, value: string | undefined, dropped: MailSettings['dropped']): string[] {
  return addressList(value).filter(
    (address) => isPlainAddress(address) || (dropped.push({ setting, address: address.slice(0, 300) }), false),
  );
}

export async function readMailSettings(consts: ConstRepository, config: Pick<MailConfig, 'env'>): Promise<MailSettingsReading> {
  const stored = await consts.getMany(MAIL_SETTING_NAMES);
  const get = (name: MailSettingName): string | undefined => {
    const value = (config.env[name] ?? stored.get(name))?.trim();
    return value ? value : undefined;
  };
  const problems: MailSettingProblem[] = [];
  const mode = (get('MAIN_MAIL_SENDMODE') ?? (get('MAIN_MAIL_SMTP_SERVER') ? 'smtps' : '')).toLowerCase();
  let transport: MailTransportSettings | undefined;
  if (mode === '') {
    problems.push({ setting: 'MAIN_MAIL_SENDMODE', reason: 'not set in llx_const nor in the environment, and no MAIN_MAIL_SMTP_SERVER' });
  } else if (mode === 'mail') {
    transport = { kind: 'sendmail' };
  } else if (mode === 'smtps' || mode === 'swiftmailer') {
    const secure = truthy(get('MAIN_MAIL_EMAIL_TLS'));
    const rawPort = get('MAIN_MAIL_SMTP_PORT');
    const port = rawPort === undefined ? (secure ? 465 : 25) : Number(rawPort);
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      problems.push({ setting: 'MAIN_MAIL_SMTP_PORT', reason: 'not a port number (1-65535)' });
    const user = get('MAIN_MAIL_SMTPS_ID');
    const method = (get('MAIN_MAIL_SMTPS_AUTH_TYPE') ?? 'LOGIN').toUpperCase();
    if (user && method !== 'LOGIN' && method !== 'PLAIN')
      problems.push({ setting: 'MAIN_MAIL_SMTPS_AUTH_TYPE', reason: `${method} is not supported here; use LOGIN or PLAIN` });
    transport = {
      kind: 'smtp',
      host: get('MAIN_MAIL_SMTP_SERVER') ?? 'localhost',
      port,
      secure,
      requireTLS: !secure && truthy(get('MAIN_MAIL_EMAIL_STARTTLS')),
      allowSelfSigned: truthy(get('MAIN_MAIL_EMAIL_SMTP_ALLOW_SELF_SIGNED')),
      ...(user ? { auth: { user, pass: get('MAIN_MAIL_SMTPS_PW') ?? '', method: method === 'PLAIN' ? 'PLAIN' : 'LOGIN' } } : {}),
    };
  } else {
    problems.push({
      setting: 'MAIN_MAIL_SENDMODE',
      reason: `unknown mode ${JSON.stringify(mode)}; fieldreport sends with mail (sendmail), smtps or swiftmailer (both SMTP)`,
    });
  }
  const from = get('MAIN_MAIL_EMAIL_FROM');
  if (!from) problems.push({ setting: 'MAIN_MAIL_EMAIL_FROM', reason: 'the sender is not set' });
  if (problems.length > 0 || !transport || !from) return { ok: false, problems };
  const dropped: MailSettings['dropped'] = [];
  const autocopyTo = plainAddresses('MAIN_MAIL_AUTOCOPY_TO', get('MAIN_MAIL_AUTOCOPY_TO'), dropped).join(', ');
  const copyTo = plainAddresses('BERICHT_MAIL_COPY_TO', get('BERICHT_MAIL_COPY_TO'), dropped);
  return {
    ok: true,
    settings: {
      transport,
      from,
      ...(get('MAIN_MAIL_ERRORS_TO') ? { errorsTo: get('MAIN_MAIL_ERRORS_TO') } : {}),
      ...(autocopyTo ? { autocopyTo } : {}),
      ...(get('MAIN_MAIL_FORCE_SENDTO') ? { forceSendTo: get('MAIN_MAIL_FORCE_SENDTO') } : {}),
      copyTo,
      dropped,
      copyAuthor: truthy(get('BERICHT_MAIL_COPY_AUTHOR')),
      templates: {
        de: { subject: get('BERICHT_MAIL_SUBJECT'), text: get('BERICHT_MAIL_TEXT') },
        en: { subject: get('BERICHT_MAIL_SUBJECT_EN'), text: get('BERICHT_MAIL_TEXT_EN') },
      },
    },
  };
}

export interface MailLimits {
  /** Addresses in `to` and `cc` of one mail (the copies the settings add are not counted). */
  recipients: number;
  /** Mails one user may send in any 60 minutes. */
  perUserHour: number;
  /** Mails of one report in any 24 hours. */
  perReportDay: number;
}

/**
 * The limits in force: the environment's value, else `llx_const`'s, else the default; a stored
 * value out of its range counts as unset (the default holds: a typo never lifts a limit).
 */
export async function readMailLimits(consts: ConstRepository, config: Pick<MailConfig, 'env'>): Promise<MailLimits> {
  const names = Object.keys(MAIL_LIMIT_SETTINGS) as MailLimitSetting[];
  const stored = await consts.getMany(names);
  const value = (name: MailLimitSetting) =>
    mailLimitValue(name, config.env[name]) ?? mailLimitValue(name, stored.get(name)) ?? MAIL_LIMIT_SETTINGS[name].fallback;
  return {
    recipients: value('BERICHT_MAIL_MAX_RECIPIENTS'),
    perUserHour: value('BERICHT_MAIL_MAX_PER_USER_HOUR'),
    perReportDay: value('BERICHT_MAIL_MAX_PER_REPORT_DAY'),
  };
}
