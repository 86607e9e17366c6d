/**
 * The one place that reads the environment. Resolution order for every setting: an explicit value
 * passed in, then the environment variable, then what a Dolibarr conf.php (DOLIBARR_CONF) names,
 * then the default. Every problem is collected and reported at once; the result is frozen.
 */
import { isTimeZone, processTimeZone } from './dolibarr/time.js';
import { readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readDolibarrConf } from './dolibarr/conf-file.js';
import { loadTls, type TlsConfig } from './tls.js';

export type Dialect = 'sqlite' | 'mysql' | 'postgres';

export type DatabaseConfig =
  | { dialect: 'sqlite'; file: string }
  | {
      dialect: 'mysql' | 'postgres';
      host: string;
      port: number;
      database: string;
      user: string;
      password: string;
    };

export interface LoginThrottleConfig {
  /**
   * Failed logins for one login name from one address within the window before that address gets
   * 429 for the login; also the failures (from every address) after which unknown addresses are
   * slowed down for the login. @default 10
   */
  maxFailuresPerLogin: number;
  /** Failed logins from one client address within the window before 429. @default 30 */
  maxFailuresPerAddress: number;
  /** @default 900 (15 minutes) */
  windowSeconds: number;
  /**
   * How long an address a login succeeded from stays known: a known address is not slowed down
   * when others guess the login's password. @default 30
   */
  knownAddressDays?: number;
  /**
   * The longest delay between two attempts of a login from unknown addresses while its password
   * is being guessed (the delay doubles with each failure past the limit). @default 60
   */
  maxDelaySeconds?: number;
}

export interface UploadConfig {
  /** Largest photo upload in bytes. @default 52428800 (50 MB) */
  maxPhotoBytes: number;
  /** Largest audio upload in bytes. @default 209715200 (200 MB) */
  maxAudioBytes: number;
}

/**
 * How long a client may take to send a request. Without them a client that sends one byte every
 * few seconds holds a connection (and a body parser) open for ever.
 */
export interface TimeoutConfig {
  /** Time to receive a request's headers (Node's headersTimeout); then 408 and the connection is closed. @default 30 */
  headersSeconds: number;
  /**
   * Time to receive a body the service parses itself (JSON), from the end of the headers; then
   * 408 REQUEST_TIMEOUT and the connection is closed. Multipart uploads are left out: they have
   * their own idle limit (UPLOAD_IDLE_MS) and the request timeout. @default 30
   */
  bodySeconds: number;
  /**
   * Time to receive a whole request, headers and body, uploads included (Node's requestTimeout):
   * long enough for the largest upload on a slow line (the 200 MB voice limit at 0.5 Mbit/s takes about 56 minutes). @default 3600
   */
  requestSeconds: number;
  /**
   * Time an upload (photo, voice note, the public PDF check) may send nothing before it is given
   * up: the public check then answers 408. @default 60
   */
  uploadIdleSeconds: number;
}

/**
 * Speech-to-text (endpoint 25). Each setting comes from Dolibarr's `llx_const` for the entity
 * (BERICHT_TRANSCRIBE_*); an environment variable of the same name wins. Here only what the
 * environment gives (undefined: use the constant).
 */
export interface TranscribeOverrides {
  url: string | undefined;
  mode: string | undefined;
  apiKey: string | undefined;
  lang: string | undefined;
  /** Time one request to the speech-to-text server may take. @default 120 */
  timeoutSeconds: number;
}

/**
 * Mail (a report sent to the customer): Dolibarr's own mail settings (`MAIN_MAIL_*` in `llx_const`,
 * as admin/mails.php stores them) and the module's (`BERICHT_MAIL_*`); an environment variable of
 * the same name wins. Here only what the environment gives (modules/mail/mail.settings.ts reads
 * both), and the job's limits.
 */
export interface MailConfig {
  /** Environment values of the mail settings, by their constant's name. */
  env: Readonly<Record<string, string>>;
  /** How long a mail is retried while the server cannot take it, in hours. @default 48 */
  retryHours: number;
  /** How often each process looks for mail due, in seconds; 0 sends none (another process or host does). @default 5 */
  pollSeconds: number;
}

/**
 * The limits of sending reports by mail, module settings like the other `BERICHT_MAIL_*`: in
 * `llx_const` or the environment (which wins), read for every send (mail.settings.ts,
 * readMailLimits). A value out of its range in the environment stops the start; one in
 * `llx_const` counts as unset (the default holds).
 * - BERICHT_MAIL_MAX_RECIPIENTS: addresses in `to` and `cc` of one mail (Dolibarr's own default of 10 per field).
 * - BERICHT_MAIL_MAX_PER_USER_HOUR: mails one user may send in any 60 minutes.
 * - BERICHT_MAIL_MAX_PER_REPORT_DAY: mails of one report in any 24 hours.
 */
export const MAIL_LIMIT_SETTINGS = {
  BERICHT_MAIL_MAX_RECIPIENTS: { fallback: 10, min: 1, max: 20 },
  BERICHT_MAIL_MAX_PER_USER_HOUR: { fallback: 20, min: 1, max: 10_000 },
  BERICHT_MAIL_MAX_PER_REPORT_DAY: { fallback: 10, min: 1, max: 10_000 },
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

/**
 * The PDF seal: the instance's key and certificate, and an RFC 3161 time-stamp authority
 * (modules/seal/seal-certificate.ts, pdf-seal.ts).
 */
export interface SealConfig {
  /** The self-signed key and certificate made at first start (PEM). @default STATE_DIR/seal.pem */
  keyFile: string;
  /** A PKCS#12 file with a key and certificate from a CA; wins over keyFile. */
  p12File: string | undefined;
  /** The PKCS#12 file's password. */
  p12Password: string | undefined;
  /** The time-stamp authority's address (RFC 3161 over HTTP); none: seals without trusted time. */
  tsaUrl: string | undefined;
  /** HTTP basic credentials for the authority, when it wants them. */
  tsaUsername: string | undefined;
  tsaPassword: string | undefined;
  /** How long a finalize waits for the authority before sealing without it, in seconds. @default 10 */
  tsaTimeoutSeconds: number;
  /** How often each process looks for time stamps still to add, in seconds; 0: none here. @default 30 */
  pollSeconds: number;
  /**
   * Time the public check of an uploaded PDF may take in its worker thread, in ms; beyond it the
   * worker is stopped and the check answered as too costly. @default 1500
   */
  checkBudgetMs: number;
  /**
   * Time the body of an upload to the public PDF check may take to arrive in all, in seconds;
   * beyond it the upload is answered 408 and its connection closed. @default 60
   */
  checkReceiveSeconds: number;
}

export interface Config {
  database: DatabaseConfig;
  /** Dolibarr's documents folder ($dolibarr_main_data_root). @default ./data/documents */
  dataRoot: string;
  /** Where the service keeps its own secrets when none are given (instance id). @default ./data */
  stateDir: string;
  /** Table prefix. @default llx_ */
  dbPrefix: string;
  /** Dolibarr entity served. @default 1 */
  entity: number;
  /** $dolibarr_main_instance_unique_id; the token secret derives from it. Filled at start when unset. */
  instanceUniqueId: string | undefined;
  host: string;
  port: number;
  /**
   * Processes that serve on the one port (`serve --workers N`, node:cluster). 1 is a single
   * process without a cluster; `auto` (environment) is one per core the process may use
   * (os.availableParallelism()), at most MAX_WORKERS. @default 1
   */
  workers: number;
  /**
   * With more than one worker: how long SIGTERM or SIGINT waits for the workers to finish the
   * requests they hold before they are killed (the service then exits 1). @default 60
   */
  shutdownSeconds: number;
  /** HTTPS: the certificate and key read from TLS_CERT and TLS_KEY (checked to belong together). @default unset: plain HTTP */
  tls: TlsConfig | undefined;
  /** Origins allowed to call the API from a browser; `*` allows any. @default * */
  corsOrigins: '*' | readonly string[];
  /** Largest JSON body in bytes. @default 1048576 */
  bodyLimit: number;
  /** Fastify's trustProxy: false, true, a hop count or a list of addresses. @default false */
  trustProxy: boolean | number | string;
  login: LoginThrottleConfig;
  /**
   * How long a request may rely on what an earlier request with the same token read of its user
   * (active, validity dates, admin flag, third party, rights) before reading it again: a user
   * deactivated, a right withdrawn or sessions invalidated in Dolibarr take effect within this
   * time. On SQLite any committed change ends it at once. 0 reads the user on every request.
   * @default 5
   */
  authCacheSeconds: number;
  uploads: UploadConfig;
  timeouts: TimeoutConfig;
  transcribe: TranscribeOverrides;
  mail: MailConfig;
  /** How long a QR upload link stays valid, in hours, when its maker does not say. @default 24 */
  uploadTokenHours: number;
  /**
   * The longest life of a QR upload link, in days: a longer one is refused when made, and a link
   * made before under a longer limit ends this long after it was made. @default 7
   */
  uploadTokenMaxDays: number;
  /** When the daily clean-up runs (UTC, HH:MM); `off` for none (run `fieldreport cleanup` instead). @default 03:30 */
  cleanupAt: string;
  /**
   * The time zone of Dolibarr's date-time columns and of times people read (an IANA name such as
   * Europe/Berlin): Dolibarr writes its columns in PHP's time zone, the server's by default.
   * @default the process's time zone (TZ, else the system's)
   */
  timeZone: string;
  logLevel: string;
  /**
   * LibreOffice's `soffice`, which turns ODT cover sheets into PDF: a path or a name in PATH.
   * @default soffice from PATH, then the usual install folders
   */
  libreOfficeBinary: string | undefined;
  /**
   * The service's Ed25519 key (PKCS#8 PEM) that seals signature metadata; made on first use.
   * Several processes must share one file. @default STATE_DIR/signing_key.pem
   */
  signingKeyFile: string;
  /** The PDF seal (PAdES signature on every final report) and its trusted time. */
  seal: SealConfig;
  /** Name of this server in signature metadata. @default the host name */
  serverName: string;
  /**
   * Address of the service as people reach it (e.g. https://berichte.example.com), for links in QR
   * codes. @default the address the request came in on
   */
  publicUrl: string | undefined;
  /** Path of the conf.php the settings came from, if any. */
  dolibarrConf: string | undefined;
  /**
   * The built web app (index.html, sw.js, assets/…), served at /app/. A folder that is missing or
   * has no index.html is no configuration error: /app/ then answers 503 APP_NOT_BUILT.
   * @default dist/app of the package root
   */
  appDir: string;
}

export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

type Env = Readonly<Record<string, string | undefined>>;

const DEFAULT_PORTS = { mysql: 3306, postgres: 5432 } as const;

/**
 * The most workers `serve` starts: each is a whole Node.js process with its own memory (about
 * 100 MB) and database connections, so more than this is a mistake, not a bigger machine.
 */
export const MAX_WORKERS = 64;

/** The longest AUTH_CACHE_SECONDS: a withdrawn right must not linger for minutes. */
export const MAX_AUTH_CACHE_SECONDS = 60;

/** WORKERS (or `serve --workers`): a whole number 1…MAX_WORKERS, or `auto` for one per core. */
function workersSetting(raw: string | undefined, problems: string[]): number {
  if (raw === undefined) return 1;
  if (raw.toLowerCase() === 'auto') return Math.min(os.availableParallelism(), MAX_WORKERS);
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > MAX_WORKERS) {
    problems.push(`WORKERS (--workers) must be a whole number from 1 to ${MAX_WORKERS} or auto (one per core), got '${raw}'`);
    return 1;
  }
  return n;
}

/** Where Vite builds the web app: dist/app of the package root (this file is src/config.ts or dist/config.js). */
export const DEFAULT_APP_DIR = fileURLToPath(new URL('../dist/app', import.meta.url));

/** decodeURIComponent that reports a malformed %-escape instead of throwing. */
function decodePart(value: string, part: string, problems: string[]): string {
  try {
    return decodeURIComponent(value);
  } catch {
    problems.push(`DATABASE_URL: malformed %-escape in the ${part} (write a literal % as %25)`);
    return value;
  }
}

function parseDatabaseUrl(url: string, problems: string[]): DatabaseConfig | undefined {
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length).replace(/^\/\//, '');
    if (!file) problems.push('DATABASE_URL: sqlite: needs a file path, e.g. sqlite:./data/fieldreport.sqlite');
    return { dialect: 'sqlite', file };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    problems.push('DATABASE_URL is not a URL (sqlite:PATH, mysql://user:pass@host/db or postgres://user@host/db)');
    return undefined;
  }
  const scheme = parsed.protocol.replace(/:$/, '');
  const dialect =
    scheme === 'mysql' || scheme === 'mariadb' ? 'mysql' : scheme === 'postgres' || scheme === 'postgresql' ? 'postgres' : undefined;
  if (!dialect) {
    problems.push(`DATABASE_URL: scheme '${scheme}' is not supported (sqlite, mysql, mariadb, postgres)`);
    return undefined;
  }
  const database = decodePart(parsed.pathname.replace(/^\//, ''), 'database name', problems);
  if (!database) problems.push('DATABASE_URL names no database (…/dbname)');
  if (!parsed.hostname) problems.push('DATABASE_URL names no host');
  return {
    dialect,
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: parsed.port ? Number(parsed.port) : DEFAULT_PORTS[dialect],
    database,
    user: decodePart(parsed.username, 'user', problems) || (dialect === 'mysql' ? 'root' : 'postgres'),
    password: decodePart(parsed.password, 'password', problems),
  };
}

function intSetting(
  name: string,
  raw: string | undefined,
  fallback: number,
  problems: string[],
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || n < min || n > max) {
    problems.push(`${name} must be a whole number from ${min} to ${max}, got '${raw}'`);
    return fallback;
  }
  return n;
}

/**
 * Builds the configuration from `env` (normally process.env) and explicit `overrides`.
 * Throws ConfigError listing every problem.
 */
export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
  const problems: string[] = [];
  const get = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };

  // A Dolibarr conf.php fills what it names.
  const confPath = overrides.dolibarrConf ?? get('DOLIBARR_CONF');
  let conf: ReturnType<typeof readDolibarrConf> | undefined;
  if (confPath) {
    try {
      conf = readDolibarrConf(readFileSync(confPath, 'utf8'));
      // A problem counts only for a setting the conf.php is used for (not one given otherwise).
      const givenElsewhere = {
        database: !!overrides.database || !!get('DATABASE_URL'),
        prefix: overrides.dbPrefix !== undefined || !!get('DB_PREFIX'),
        dataRoot: !!overrides.dataRoot || !!get('DATA_ROOT'),
        instanceUniqueId: !!overrides.instanceUniqueId || !!get('INSTANCE_UNIQUE_ID'),
      };
      for (const p of conf.problems) if (!givenElsewhere[p.setting]) problems.push(`DOLIBARR_CONF ${confPath}: ${p.message}`);
    } catch (error) {
      problems.push(`DOLIBARR_CONF: cannot read ${confPath} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }

  let database = overrides.database;
  const url = get('DATABASE_URL');
  if (!database && url) database = parseDatabaseUrl(url, problems);
  if (!database && conf?.dialect) {
    const missing = (['host', 'database', 'user'] as const).filter((k) => !conf[k]);
    if (missing.length > 0) {
      problems.push(
        `DOLIBARR_CONF ${confPath}: missing $dolibarr_main_db_${missing.map((m) => (m === 'database' ? 'name' : m)).join(', $dolibarr_main_db_')}`,
      );
    }
    database = {
      dialect: conf.dialect,
      host: conf.host ?? '',
      port: conf.port ?? DEFAULT_PORTS[conf.dialect],
      database: conf.database ?? '',
      user: conf.user ?? '',
      password: conf.password ?? '',
    };
  }
  database ??= { dialect: 'sqlite', file: './data/fieldreport.sqlite' };

  const dbPrefix = overrides.dbPrefix ?? get('DB_PREFIX') ?? conf?.prefix ?? 'llx_';
  // The prefix becomes part of SQL identifiers: only letters, digits and underscores.
  if (!/^[A-Za-z0-9_]{0,32}$/.test(dbPrefix)) {
    problems.push(`DB_PREFIX '${dbPrefix}' may hold only letters, digits and '_' (at most 32)`);
  } else if (database.dialect === 'postgres' && dbPrefix !== dbPrefix.toLowerCase()) {
    // Dolibarr creates its PostgreSQL tables unquoted, so their names are lower case.
    problems.push(`DB_PREFIX '${dbPrefix}' must be lower case on PostgreSQL (Dolibarr's tables there are '${dbPrefix.toLowerCase()}…')`);
  }

  const instanceUniqueId = overrides.instanceUniqueId ?? get('INSTANCE_UNIQUE_ID') ?? conf?.instanceUniqueId;
  if (instanceUniqueId !== undefined && instanceUniqueId.length < 16) {
    problems.push('INSTANCE_UNIQUE_ID is too short to derive a token secret from (at least 16 characters)');
  }

  let corsOrigins: Config['corsOrigins'] = overrides.corsOrigins ?? '*';
  const corsRaw = get('CORS_ORIGINS');
  if (!overrides.corsOrigins && corsRaw && corsRaw !== '*') {
    const list = corsRaw
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean);
    for (const origin of list) {
      if (!/^https?:\/\/[^/\s]+$/.test(origin)) {
        problems.push(`CORS_ORIGINS: '${origin}' is not an origin like https://app.example.com`);
      }
    }
    corsOrigins = Object.freeze(list);
  }

  let trustProxy: Config['trustProxy'] = overrides.trustProxy ?? false;
  const trustRaw = get('TRUST_PROXY');
  if (overrides.trustProxy === undefined && trustRaw) {
    trustProxy = trustRaw === 'true' ? true : trustRaw === 'false' ? false : /^\d+$/.test(trustRaw) ? Number(trustRaw) : trustRaw;
  }

  const config: Config = {
    database,
    dataRoot: path.resolve(overrides.dataRoot ?? get('DATA_ROOT') ?? conf?.dataRoot ?? './data/documents'),
    stateDir: path.resolve(overrides.stateDir ?? get('STATE_DIR') ?? './data'),
    dbPrefix,
    entity: overrides.entity ?? intSetting('ENTITY', get('ENTITY'), 1, problems, 1, 1_000_000),
    instanceUniqueId,
    host: overrides.host ?? get('HOST') ?? '127.0.0.1',
    port: overrides.port ?? intSetting('PORT', get('PORT'), 8080, problems, 0, 65535),
    workers: overrides.workers ?? workersSetting(get('WORKERS'), problems),
    shutdownSeconds:
      overrides.shutdownSeconds ?? intSetting('SHUTDOWN_TIMEOUT_SECONDS', get('SHUTDOWN_TIMEOUT_SECONDS'), 60, problems, 1, 86_400),
    tls: 'tls' in overrides ? overrides.tls : loadTls(get('TLS_CERT'), get('TLS_KEY'), problems),
    corsOrigins,
    bodyLimit: overrides.bodyLimit ?? intSetting('BODY_LIMIT', get('BODY_LIMIT'), 1024 * 1024, problems, 1024, 64 * 1024 * 1024),
    trustProxy,
    login: overrides.login ?? {
      maxFailuresPerLogin: intSetting('LOGIN_MAX_FAILURES', get('LOGIN_MAX_FAILURES'), 10, problems, 1, 10_000),
      maxFailuresPerAddress: intSetting('LOGIN_MAX_FAILURES_PER_ADDRESS', get('LOGIN_MAX_FAILURES_PER_ADDRESS'), 30, problems, 1, 100_000),
      windowSeconds: intSetting('LOGIN_WINDOW_SECONDS', get('LOGIN_WINDOW_SECONDS'), 900, problems, 1, 86_400),
      knownAddressDays: intSetting('LOGIN_KNOWN_ADDRESS_DAYS', get('LOGIN_KNOWN_ADDRESS_DAYS'), 30, problems, 1, 365),
      maxDelaySeconds: intSetting('LOGIN_MAX_DELAY_SECONDS', get('LOGIN_MAX_DELAY_SECONDS'), 60, problems, 1, 3600),
    },
    authCacheSeconds:
      overrides.authCacheSeconds ?? intSetting('AUTH_CACHE_SECONDS', get('AUTH_CACHE_SECONDS'), 5, problems, 0, MAX_AUTH_CACHE_SECONDS),
    uploads: overrides.uploads ?? {
      maxPhotoBytes: intSetting('UPLOAD_MAX_PHOTO_BYTES', get('UPLOAD_MAX_PHOTO_BYTES'), 50 * 1024 * 1024, problems, 1024, 2 ** 40),
      maxAudioBytes: intSetting('UPLOAD_MAX_AUDIO_BYTES', get('UPLOAD_MAX_AUDIO_BYTES'), 200 * 1024 * 1024, problems, 1024, 2 ** 40),
    },
    timeouts: overrides.timeouts ?? {
      headersSeconds: intSetting('HEADERS_TIMEOUT_SECONDS', get('HEADERS_TIMEOUT_SECONDS'), 30, problems, 1, 3600),
      bodySeconds: intSetting('BODY_TIMEOUT_SECONDS', get('BODY_TIMEOUT_SECONDS'), 30, problems, 1, 3600),
      requestSeconds: intSetting('REQUEST_TIMEOUT_SECONDS', get('REQUEST_TIMEOUT_SECONDS'), 3600, problems, 1, 86_400),
      uploadIdleSeconds: intSetting('UPLOAD_IDLE_SECONDS', get('UPLOAD_IDLE_SECONDS'), 60, problems, 1, 3600),
    },
    transcribe: overrides.transcribe ?? {
      url: get('BERICHT_TRANSCRIBE_URL') || undefined,
      mode: get('BERICHT_TRANSCRIBE_MODE') || undefined,
      apiKey: get('BERICHT_TRANSCRIBE_API_KEY') || undefined,
      lang: get('BERICHT_TRANSCRIBE_LANG') || undefined,
      timeoutSeconds: intSetting('TRANSCRIBE_TIMEOUT_SECONDS', get('TRANSCRIBE_TIMEOUT_SECONDS'), 120, problems, 1, 3600),
    },
    mail: overrides.mail ?? {
      env: Object.fromEntries(
        Object.entries(env).filter(
          (e): e is [string, string] => /^(MAIN_MAIL_|BERICHT_MAIL_)/.test(e[0]) && typeof e[1] === 'string' && e[1] !== '',
        ),
      ),
      retryHours: intSetting('MAIL_RETRY_HOURS', get('MAIL_RETRY_HOURS'), 48, problems, 1, 24 * 30),
      pollSeconds: intSetting('MAIL_POLL_SECONDS', get('MAIL_POLL_SECONDS'), 5, problems, 0, 3600),
    },
    uploadTokenHours: overrides.uploadTokenHours ?? intSetting('UPLOAD_TOKEN_HOURS', get('UPLOAD_TOKEN_HOURS'), 24, problems, 1, 24 * 90),
    uploadTokenMaxDays:
      overrides.uploadTokenMaxDays ?? intSetting('UPLOAD_TOKEN_MAX_DAYS', get('UPLOAD_TOKEN_MAX_DAYS'), 7, problems, 1, 90),
    cleanupAt: overrides.cleanupAt ?? (get('CLEANUP_AT') || '03:30'),
    timeZone: overrides.timeZone ?? (get('TIME_ZONE') || processTimeZone()),
    logLevel: overrides.logLevel ?? get('LOG_LEVEL') ?? 'info',
    libreOfficeBinary: overrides.libreOfficeBinary ?? (get('LIBREOFFICE_BINARY') || undefined),
    seal: overrides.seal ?? {
      keyFile: path.resolve(get('SEAL_KEY_FILE') ?? path.join(overrides.stateDir ?? get('STATE_DIR') ?? './data', 'seal.pem')),
      p12File: get('SEAL_P12_FILE') ? path.resolve(get('SEAL_P12_FILE')!) : undefined,
      p12Password: get('SEAL_P12_PASSWORD'),
      tsaUrl: get('TSA_URL')?.trim() || undefined,
      tsaUsername: get('TSA_USERNAME') || undefined,
      tsaPassword: get('TSA_PASSWORD') || undefined,
      tsaTimeoutSeconds: intSetting('TSA_TIMEOUT_SECONDS', get('TSA_TIMEOUT_SECONDS'), 10, problems, 1, 120),
      pollSeconds: intSetting('TSA_POLL_SECONDS', get('TSA_POLL_SECONDS'), 30, problems, 0, 3600),
      checkBudgetMs: intSetting('PDF_CHECK_BUDGET_MS', get('PDF_CHECK_BUDGET_MS'), 1500, problems, 10, 60_000),
      checkReceiveSeconds: intSetting('PDF_CHECK_RECEIVE_SECONDS', get('PDF_CHECK_RECEIVE_SECONDS'), 60, problems, 1, 3600),
    },
    signingKeyFile: path.resolve(
      overrides.signingKeyFile ??
        get('SIGNING_KEY_FILE') ??
        path.join(overrides.stateDir ?? get('STATE_DIR') ?? './data', 'signing_key.pem'),
    ),
    serverName: overrides.serverName ?? (get('SERVER_NAME') || os.hostname()),
    publicUrl: overrides.publicUrl ?? (get('PUBLIC_URL')?.replace(/\/+$/, '') || undefined),
    dolibarrConf: confPath,
    appDir: path.resolve(overrides.appDir ?? get('APP_DIR') ?? DEFAULT_APP_DIR),
  };
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(config.logLevel)) {
    problems.push(`LOG_LEVEL '${config.logLevel}' is not one of fatal, error, warn, info, debug, trace, silent`);
  }
  if (!isTimeZone(config.timeZone)) problems.push(`TIME_ZONE '${config.timeZone}' is not a time zone (an IANA name such as Europe/Berlin)`);
  if (config.cleanupAt !== 'off' && !/^([01]\d|2[0-3]):[0-5]\d$/.test(config.cleanupAt)) {
    problems.push(`CLEANUP_AT '${config.cleanupAt}' is not a time like 03:30 (UTC) or off`);
  }
  // Node refuses a headers timeout above the request timeout; a body limit above it would never act.
  for (const [name, seconds] of [
    ['HEADERS_TIMEOUT_SECONDS', config.timeouts.headersSeconds],
    ['BODY_TIMEOUT_SECONDS', config.timeouts.bodySeconds],
  ] as const) {
    if (seconds > config.timeouts.requestSeconds)
      problems.push(`${name} (${seconds}) must not be above REQUEST_TIMEOUT_SECONDS (${config.timeouts.requestSeconds})`);
  }
  if (config.uploadTokenHours > config.uploadTokenMaxDays * 24) {
    problems.push(
      `UPLOAD_TOKEN_HOURS (${config.uploadTokenHours}) must not be above UPLOAD_TOKEN_MAX_DAYS (${config.uploadTokenMaxDays} days = ${config.uploadTokenMaxDays * 24} hours)`,
    );
  }
  if (config.seal.tsaUrl !== undefined && !/^https?:\/\/[^/\s?#]+(\/\S*)?$/.test(config.seal.tsaUrl)) {
    problems.push(`TSA_URL '${config.seal.tsaUrl}' is not an address like https://freetsa.org/tsr`);
  }
  if (config.publicUrl !== undefined && !/^https?:\/\/[^/\s?#]+(\/[^\s?#]*)?$/.test(config.publicUrl)) {
    problems.push(`PUBLIC_URL '${config.publicUrl}' is not an address like https://berichte.example.com`);
  }

  for (const [name, { min, max }] of Object.entries(MAIL_LIMIT_SETTINGS)) {
    const raw = config.mail.env[name];
    if (raw !== undefined && mailLimitValue(name as MailLimitSetting, raw) === undefined)
      problems.push(`${name} must be a whole number from ${min} to ${max}, got '${raw}'`);
  }

  if (statSync(config.appDir, { throwIfNoEntry: false })?.isDirectory() === false) {
    problems.push(`APP_DIR '${config.appDir}' is a file, not the folder of the built web app`);
  }

  if (problems.length > 0) throw new ConfigError(problems);
  // A copy: freezing must not reach into objects the caller passed in.
  return deepFreeze(structuredClone(config));
}

export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** A printable form of the database setting, without the password. */
export function describeDatabase(db: DatabaseConfig): string {
  return db.dialect === 'sqlite' ? `sqlite:${db.file}` : `${db.dialect}://${db.user}@${db.host}:${db.port}/${db.database}`;
}
