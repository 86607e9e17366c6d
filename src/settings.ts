/**
 * Every environment setting the service reads, as data: its default, its range and what it means,
 * in the groups of the settings table. loadConfig (config.ts) takes its defaults and ranges from
 * here, and `npm run gen:docs` writes the table in docs/operating.md from it (a unit test fails
 * when the table differs). The mail limits, module settings read for every send, are
 * MAIL_LIMIT_SETTINGS.
 */

/**
 * The most workers `serve` starts: each is a whole Node.js process with its own memory (about
 * 100 MB) and database connections, so more than this is a mistake, not a bigger machine.
 */
export const MAX_WORKERS = 64;

/** The longest AUTH_CACHE_SECONDS: a withdrawn right must not linger for minutes. */
export const MAX_AUTH_CACHE_SECONDS = 60;

/** Where the standalone SQLite database lies when neither DATABASE_URL nor DOLIBARR_CONF names one. */
export const DEFAULT_SQLITE_FILE = './data/fieldreport.sqlite';

/** The levels LOG_LEVEL takes (pino's). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** The groups of the settings table (docs/operating.md, *Configuration*), in the table's order. */
export const SETTING_GROUPS = {
  dolibarr: 'Database and Dolibarr',
  server: 'Server and processes',
  requests: 'Request sizes and time limits',
  logins: 'Logins, tokens and QR upload links',
  reports: 'Signatures, the PDF seal and the PDF',
  mail: 'Mail',
  transcribe: 'Speech to text',
} as const;
export type SettingGroup = keyof typeof SETTING_GROUPS;

/** One environment setting as people read it (the generated table in docs/operating.md). */
export interface SettingInfo {
  readonly group: SettingGroup;
  /** What it does, in Markdown; links are relative to docs/operating.md. */
  readonly meaning: string;
  /** The value loadConfig uses when the setting is unset. */
  readonly default?: string | number | boolean;
  /** The default in words: where it is worked out at start, or after `default` a plainer form of it. */
  readonly defaultText?: string;
  /** A whole number: the smallest and largest value taken. */
  readonly min?: number;
  readonly max?: number;
  /** The values taken, in words, where they are no range. */
  readonly allowed?: string;
}

/**
 * Every environment setting loadConfig reads, with its default and range: loadConfig takes the
 * defaults and ranges from here, and `npm run gen:docs` writes the table in docs/operating.md from
 * it (a unit test fails when the table differs). An entry whose name ends in `*` stands for a family
 * of variables read elsewhere. The mail limits are MAIL_LIMIT_SETTINGS.
 */
export const SETTINGS = {
  DOLIBARR_CONF: {
    group: 'dolibarr',
    meaning:
      'path of a Dolibarr `conf.php`: it fills the database, the table prefix, the documents folder and the instance id where the variables below do not (see *Run it against an existing Dolibarr*)',
  },
  DATABASE_URL: {
    group: 'dolibarr',
    default: `sqlite:${DEFAULT_SQLITE_FILE}`,
    meaning: '`sqlite:PATH`, `mysql://user:pass@host:3306/db` (also `mariadb://`), `postgres://user:pass@host:5432/db`',
  },
  DB_PREFIX: {
    group: 'dolibarr',
    default: 'llx_',
    allowed: 'letters, digits, `_` (at most 32; lower case on PostgreSQL)',
    meaning: 'table prefix (`$dolibarr_main_db_prefix`)',
  },
  DATA_ROOT: { group: 'dolibarr', default: './data/documents', meaning: "Dolibarr's documents folder (`$dolibarr_main_data_root`)" },
  ENTITY: { group: 'dolibarr', default: 1, min: 1, max: 1_000_000, meaning: 'Dolibarr entity (multicompany) served' },
  ASSIGNED_CONTACT_TYPES: {
    group: 'dolibarr',
    default: 'SALESREPFOLL,TECHNICIAN,INTERREPFOLL,INTERVENING',
    allowed: 'comma-separated codes of `c_type_contact` (letters, digits, `_`), or `none`',
    meaning:
      "the internal contact types that give a user an order, invoice, proposal or intervention: a user who is such a contact of it sees it and what hangs off it, as if named in its `fk_user_*` columns (see *Visibility* in docs/architecture.md). Dolibarr's `SALESREPFOLL` (*Responsable suivi*), the module's `TECHNICIAN`, and the intervention's `INTERREPFOLL` (*Responsable suivi*) and `INTERVENING` (*Intervenant*) by default; `none`: contacts give nothing",
  },
  ASSIGNED_BY_AGENDA: {
    group: 'dolibarr',
    default: true,
    allowed: '`true` or `false`',
    meaning:
      "an event in Dolibarr's agenda linked to an order, invoice, proposal or intervention gives it to the event's owner and to the users attending it (Dolibarr's automatic events give nothing); `false`: the agenda gives nothing",
  },
  INSTANCE_UNIQUE_ID: {
    group: 'dolibarr',
    defaultText: 'SQLite: generated once',
    allowed: 'at least 16 characters',
    meaning:
      '`$dolibarr_main_instance_unique_id`; the token secret derives from it. Required with MariaDB/MySQL or PostgreSQL (every process must share it), unless `DOLIBARR_CONF` names it',
  },
  STATE_DIR: {
    group: 'dolibarr',
    default: './data',
    meaning: 'SQLite standalone: where the generated instance id is kept (`instance_unique_id`, mode 0600), and the keys below by default',
  },
  TIME_ZONE: {
    group: 'dolibarr',
    defaultText:
      "Dolibarr's constant `MAIN_SERVER_TZ` where it names a zone (the demo sets its company's, `Europe/Berlin`), else the process's (`TZ`, else the system's)",
    allowed: 'an IANA name such as `Europe/Berlin`',
    meaning:
      "the time zone Dolibarr's dates are in: Dolibarr writes its date-time columns in PHP's time zone, so set the same as PHP's `date.timezone` on the Dolibarr server. Times people read (PDF, signature page, public check, QR upload page) are shown in it, with their zone (MEZ/MESZ)",
  },
  HOST: { group: 'server', default: '127.0.0.1', meaning: 'the address the HTTP server listens on (`0.0.0.0`: every address)' },
  PORT: { group: 'server', default: 8080, min: 0, max: 65535, meaning: 'the port the HTTP server listens on' },
  WORKERS: {
    group: 'server',
    default: 1,
    min: 1,
    max: MAX_WORKERS,
    allowed: `1 to ${MAX_WORKERS}, or \`auto\` for one per core`,
    meaning: 'processes serving the one port (`serve --workers N`, which wins over it). 1 is a single process (see *Several processes*)',
  },
  SHUTDOWN_TIMEOUT_SECONDS: {
    group: 'server',
    default: 60,
    min: 1,
    max: 86_400,
    meaning:
      'with `WORKERS` above 1: how long `SIGTERM`/`SIGINT` waits for the workers to answer the requests they hold before it kills them and exits 1',
  },
  TLS_CERT: {
    group: 'server',
    defaultText: 'unset: plain HTTP',
    meaning:
      'HTTPS: the certificate (PEM, intermediates after it). Both `TLS_CERT` and `TLS_KEY` or neither; a file that cannot be read, or a key that does not belong to the certificate, stops the start (see *HTTPS and phones*)',
  },
  TLS_KEY: { group: 'server', defaultText: 'unset: plain HTTP', meaning: "HTTPS: the certificate's unencrypted private key (PEM)" },
  CORS_ORIGINS: { group: 'server', default: '*', meaning: 'comma-separated origins allowed to call the API from a browser' },
  TRUST_PROXY: {
    group: 'server',
    default: false,
    allowed: '`true`, `false`, a hop count, or addresses',
    meaning: 'behind a reverse proxy: whom to believe for the client address (login limits; see *Behind a reverse proxy*)',
  },
  PUBLIC_URL: {
    group: 'server',
    defaultText: 'the address a request came in on',
    meaning: "the service's address as people reach it (e.g. `https://berichte.example.com`), for the QR code on signature pages",
  },
  SERVER_NAME: { group: 'server', defaultText: 'the host name', meaning: "the server's name written into signatures" },
  APP_DIR: {
    group: 'server',
    defaultText: '`dist/app` of the package',
    meaning: 'the built web app served at `/app/` (a missing folder is no error: `/app/` answers 503 until it is built)',
  },
  LOG_LEVEL: { group: 'server', default: 'info', allowed: LOG_LEVELS.map((l) => `\`${l}\``).join(', '), meaning: 'what the log holds' },
  CLEANUP_AT: {
    group: 'server',
    default: '03:30',
    allowed: '`HH:MM` (UTC), or `off`',
    meaning: 'when the daily clean-up runs inside the service (UTC); `off` to leave it to `fieldreport cleanup` from a system scheduler',
  },
  BODY_LIMIT: {
    group: 'requests',
    default: 1024 * 1024,
    defaultText: '1 MB',
    min: 1024,
    max: 64 * 1024 * 1024,
    meaning: 'largest JSON body in bytes (413 above)',
  },
  UPLOAD_MAX_PHOTO_BYTES: {
    group: 'requests',
    default: 50 * 1024 * 1024,
    defaultText: '50 MB',
    min: 1024,
    max: 2 ** 40,
    meaning: 'largest photo upload in bytes (413 above, nothing kept)',
  },
  UPLOAD_MAX_AUDIO_BYTES: {
    group: 'requests',
    default: 200 * 1024 * 1024,
    defaultText: '200 MB',
    min: 1024,
    max: 2 ** 40,
    meaning: 'largest voice upload in bytes',
  },
  HEADERS_TIMEOUT_SECONDS: {
    group: 'requests',
    default: 30,
    min: 1,
    max: 3600,
    meaning: "time to receive a request's headers; then 408 `REQUEST_TIMEOUT` and the connection is closed",
  },
  BODY_TIMEOUT_SECONDS: {
    group: 'requests',
    default: 30,
    min: 1,
    max: 3600,
    meaning:
      'time to receive a JSON body after its headers; then 408 `REQUEST_TIMEOUT` and the connection is closed. Multipart uploads (photo, voice, signature) are not bound by it',
  },
  REQUEST_TIMEOUT_SECONDS: {
    group: 'requests',
    default: 3600,
    min: 1,
    max: 86_400,
    meaning: "time to receive a whole request, uploads included (Node's `requestTimeout`); at least the two above",
  },
  UPLOAD_IDLE_SECONDS: {
    group: 'requests',
    default: 60,
    min: 1,
    max: 3600,
    meaning:
      'an upload (photo, voice note, the public PDF check) that sends nothing for this long is given up; the PDF check answers 408 and closes the connection',
  },
  PDF_CHECK_RECEIVE_SECONDS: {
    group: 'requests',
    default: 60,
    min: 1,
    max: 3600,
    meaning: 'time the public check of an uploaded PDF has to receive its whole body, however it trickles; then 408',
  },
  PDF_CHECK_BUDGET_MS: {
    group: 'requests',
    default: 1500,
    min: 10,
    max: 60_000,
    meaning:
      "time the public check of an uploaded PDF may take from the file's arrival, waiting for a worker included; beyond it the worker is stopped and the page says the check was too costly (422)",
  },
  LOGIN_MAX_FAILURES: {
    group: 'logins',
    default: 10,
    min: 1,
    max: 10_000,
    meaning:
      'failed logins of one login name from one client address within the window before that pair gets 429; past it from anywhere, addresses the login has not succeeded from are slowed down (see [security.md, *Logins, tokens and QR links*](security.md#logins-tokens-and-qr-links))',
  },
  LOGIN_MAX_FAILURES_PER_ADDRESS: {
    group: 'logins',
    default: 30,
    min: 1,
    max: 100_000,
    meaning: 'failed logins per client address within the window before 429',
  },
  LOGIN_WINDOW_SECONDS: {
    group: 'logins',
    default: 900,
    defaultText: '15 minutes',
    min: 1,
    max: 86_400,
    meaning: 'the window of the two limits above',
  },
  LOGIN_KNOWN_ADDRESS_DAYS: {
    group: 'logins',
    default: 30,
    min: 1,
    max: 365,
    meaning: 'how long an address a login succeeded from stays known: it is never slowed down for that login',
  },
  LOGIN_MAX_DELAY_SECONDS: {
    group: 'logins',
    default: 60,
    min: 1,
    max: 3600,
    meaning:
      'the longest delay between two attempts of a login from unknown addresses once it has `LOGIN_MAX_FAILURES` failures (2 s, doubling)',
  },
  AUTH_CACHE_SECONDS: {
    group: 'logins',
    default: 5,
    min: 0,
    max: MAX_AUTH_CACHE_SECONDS,
    meaning:
      'how long what one request read of its token\'s user (active, validity, admin flag, rights) serves the next requests with that token (0 reads it for every request). Deactivating a user, withdrawing a right or Dolibarr\'s "invalidate sessions" takes effect within this time; on SQLite, and for changes this process makes, at once (see *Passwords and tokens*)',
  },
  UPLOAD_TOKEN_HOURS: {
    group: 'logins',
    default: 24,
    min: 1,
    max: 24 * 90,
    meaning:
      'how long a QR upload link stays valid when its maker does not say (a link may ask for 1 hour up to `UPLOAD_TOKEN_MAX_DAYS`); may not exceed `UPLOAD_TOKEN_MAX_DAYS`',
  },
  UPLOAD_TOKEN_MAX_DAYS: {
    group: 'logins',
    default: 7,
    min: 1,
    max: 90,
    meaning: 'the longest life of a QR upload link, also of one made earlier under a longer limit',
  },
  SIGNING_KEY_FILE: {
    group: 'reports',
    defaultText: '`STATE_DIR/signing_key.pem`',
    meaning:
      'the Ed25519 key that seals signature metadata, made on first start (mode 0600). Keep it and back it up: without it old seals cannot be checked. Several processes must share one file',
  },
  SEAL_KEY_FILE: {
    group: 'reports',
    defaultText: '`STATE_DIR/seal.pem`',
    meaning:
      "the key (EC P-256) and self-signed certificate of the PDF seal, made on first start in the company's name (`MAIN_INFO_SOCIETE_NOM`), mode 0600. Keep it and back it up; several processes must share one file",
  },
  SEAL_P12_FILE: {
    group: 'reports',
    meaning:
      'a PKCS#12 file (`.p12`/`.pfx`) with a key (RSA or EC) and a certificate from a CA: the PDF seal uses it instead of `SEAL_KEY_FILE` ([features.md, *The PDF seal*](features.md#the-pdf-seal-proof-that-holds-without-this-service))',
  },
  SEAL_P12_PASSWORD: {
    group: 'reports',
    meaning: "the PKCS#12 file's password. A wrong password stops the start with a message saying so",
  },
  TSA_URL: {
    group: 'reports',
    meaning: 'an RFC 3161 time-stamp authority (e.g. `https://freetsa.org/tsr`): the seal then carries trusted time',
  },
  TSA_USERNAME: { group: 'reports', meaning: 'HTTP basic credentials, for an authority that wants them' },
  TSA_PASSWORD: { group: 'reports', meaning: 'the password of `TSA_USERNAME`' },
  TSA_TIMEOUT_SECONDS: {
    group: 'reports',
    default: 10,
    min: 1,
    max: 120,
    meaning: 'how long a finalize waits for the authority before it seals without it (the time stamp follows later)',
  },
  TSA_POLL_SECONDS: {
    group: 'reports',
    default: 30,
    min: 0,
    max: 3600,
    meaning: 'how often each process looks for time stamps still to add; `0`: none from this process',
  },
  LIBREOFFICE_BINARY: {
    group: 'reports',
    defaultText: '`soffice` from `PATH`, then `/usr/bin`, `/usr/lib/libreoffice/program`, `/opt/libreoffice*/program`',
    meaning:
      'LibreOffice, which turns ODT cover sheets into PDF. Without it reports still get a PDF, with a plain built-in cover (and a warning in the log). ' +
      'With its Python UNO bridge (Debian: `python3-uno`) one LibreOffice is started with the service and kept running (about 150 MB), so a cover takes a tenth of a second instead of a start of LibreOffice (4 s on 2 cores); without the bridge each cover starts its own',
  },
  MAIL_RETRY_HOURS: {
    group: 'mail',
    default: 48,
    min: 1,
    max: 24 * 30,
    meaning: "how long a report's mail is tried again while the mail server cannot take it; then it is *failed*",
  },
  MAIL_POLL_SECONDS: {
    group: 'mail',
    default: 5,
    min: 0,
    max: 3600,
    meaning: 'how often each process looks for mails to send; `0` sends none from this process (another process or host does)',
  },
  'MAIN_MAIL_*': {
    group: 'mail',
    defaultText: 'from `llx_const`',
    meaning:
      "Dolibarr's mail settings (see [features.md, *Sending the report to the customer*](features.md#sending-the-report-to-the-customer)): an environment variable of the same name wins over Dolibarr's constant",
  },
  'BERICHT_MAIL_*': {
    group: 'mail',
    defaultText: 'from `llx_const`',
    meaning: "the module's mail settings, the same way; among them the limits below (see [security.md, *Mail*](security.md#mail))",
  },
  'BERICHT_TRANSCRIBE_*': {
    group: 'transcribe',
    defaultText: 'from `llx_const`',
    meaning:
      "the speech-to-text settings `BERICHT_TRANSCRIBE_URL`, `_MODE`, `_API_KEY`, `_LANG` ([features.md, *Voice notes to text*](features.md#voice-notes-to-text)): an environment variable of the same name wins over Dolibarr's constant",
  },
  TRANSCRIBE_TIMEOUT_SECONDS: {
    group: 'transcribe',
    default: 120,
    min: 1,
    max: 3600,
    meaning: 'time one request to the speech-to-text server may take; then 504 `TRANSCRIBE_TIMEOUT`',
  },
} as const satisfies Record<string, SettingInfo>;
export type SettingName = keyof typeof SETTINGS;

/**
 * The limits of sending reports by mail, module settings like the other `BERICHT_MAIL_*`: in
 * `llx_const` or the environment (which wins), read for every send (mail.settings.ts,
 * readMailLimits). A value out of its range in the environment stops the start; one in
 * `llx_const` counts as unset (the default holds). `npm run gen:docs` writes them into the settings
 * table of docs/operating.md.
 */
export const MAIL_LIMIT_SETTINGS = {
  BERICHT_MAIL_MAX_RECIPIENTS: {
    fallback: 10,
    min: 1,
    max: 20,
    meaning: "addresses in `to` and `cc` of one report's mail together (as Dolibarr's own default of 10 per field)",
  },
  BERICHT_MAIL_MAX_PER_USER_HOUR: { fallback: 20, min: 1, max: 10_000, meaning: 'mails one user may send in any 60 minutes' },
  BERICHT_MAIL_MAX_PER_REPORT_DAY: { fallback: 10, min: 1, max: 10_000, meaning: 'mails of one report in any 24 hours' },
} as const;
export type MailLimitSetting = keyof typeof MAIL_LIMIT_SETTINGS;

/** A mail limit's value: a whole number in its range, else undefined. */
export function mailLimitValue(name: MailLimitSetting, raw: string | undefined): number | undefined {
  const { min, max } = MAIL_LIMIT_SETTINGS[name];
  const value = raw?.trim();
  if (!value || !/^\d{1,9}$/.test(value)) return undefined;
  const n = Number(value);
  return n >= min && n <= max ? n : undefined;
}
