/**
 * The one place that reads the environment. Resolution order for every setting: an explicit value
 * passed in, then the environment variable, then what a Dolibarr conf.php (DOLIBARR_CONF) names,
 * then the default. Every problem is collected and reported at once; the result is frozen.
 *
 * One file, longer than most: every setting is read and checked in one pass (loadConfig), so that a
 * start reports every problem at once; what each setting means and its default are in settings.ts.
 */
import { isTimeZone, processTimeZone } from './dolibarr/time.js';
import { readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readDolibarrConf } from './dolibarr/conf-file.js';
import { loadTls, type TlsConfig } from './tls.js';
import {
  DEFAULT_SQLITE_FILE,
  LOG_LEVELS,
  MAIL_LIMIT_SETTINGS,
  MAX_WORKERS,
  type MailLimitSetting,
  mailLimitValue,
  SETTINGS,
  type SettingName,
} from './settings.js';

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
   * slowed down for the login. @see SETTINGS.LOGIN_MAX_FAILURES
   */
  maxFailuresPerLogin: number;
  /** Failed logins from one client address within the window before 429. @see SETTINGS.LOGIN_MAX_FAILURES_PER_ADDRESS */
  maxFailuresPerAddress: number;
  /** The window of the two limits above, in seconds. @see SETTINGS.LOGIN_WINDOW_SECONDS */
  windowSeconds: number;
  /**
   * How long an address a login succeeded from stays known: a known address is not slowed down
   * when others guess the login's password. @see SETTINGS.LOGIN_KNOWN_ADDRESS_DAYS
   */
  knownAddressDays?: number;
  /**
   * The longest delay between two attempts of a login from unknown addresses while its password
   * is being guessed (the delay doubles with each failure past the limit). @see SETTINGS.LOGIN_MAX_DELAY_SECONDS
   */
  maxDelaySeconds?: number;
}

export interface UploadConfig {
  /** Largest photo upload in bytes. @see SETTINGS.UPLOAD_MAX_PHOTO_BYTES */
  maxPhotoBytes: number;
  /** Largest audio upload in bytes. @see SETTINGS.UPLOAD_MAX_AUDIO_BYTES */
  maxAudioBytes: number;
}

/**
 * How long a client may take to send a request. Without them a client that sends one byte every
 * few seconds holds a connection (and a body parser) open for ever.
 */
export interface TimeoutConfig {
  /**
   * Time to receive a request's headers (Node's headersTimeout); then 408 and the connection is
   * closed. @see SETTINGS.HEADERS_TIMEOUT_SECONDS
   */
  headersSeconds: number;
  /**
   * Time to receive a body the service parses itself (JSON), from the end of the headers; then
   * 408 REQUEST_TIMEOUT and the connection is closed. Multipart uploads are left out: they have
   * their own idle limit (UPLOAD_IDLE_MS) and the request timeout. @see SETTINGS.BODY_TIMEOUT_SECONDS
   */
  bodySeconds: number;
  /**
   * Time to receive a whole request, headers and body, uploads included (Node's requestTimeout):
   * long enough for the largest upload on a slow line. @see SETTINGS.REQUEST_TIMEOUT_SECONDS
   */
  requestSeconds: number;
  /**
   * Time an upload (photo, voice note, the public PDF check) may send nothing before it is given
   * up: the public check then answers 408. @see SETTINGS.UPLOAD_IDLE_SECONDS
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
  /** Time one request to the speech-to-text server may take. @see SETTINGS.TRANSCRIBE_TIMEOUT_SECONDS */
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
  /** How long a mail is retried while the server cannot take it, in hours. @see SETTINGS.MAIL_RETRY_HOURS */
  retryHours: number;
  /**
   * How often each process looks for mail due, in seconds; 0 sends none (another process or host
   * does). @see SETTINGS.MAIL_POLL_SECONDS
   */
  pollSeconds: number;
}

/**
 * The PDF seal: the instance's key and certificate, and an RFC 3161 time-stamp authority
 * (modules/seal/seal-certificate.ts, pdf-seal.ts).
 */
export interface SealConfig {
  /** The self-signed key and certificate made at first start (PEM). @see SETTINGS.SEAL_KEY_FILE */
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
  /** How long a finalize waits for the authority before sealing without it, in seconds. @see SETTINGS.TSA_TIMEOUT_SECONDS */
  tsaTimeoutSeconds: number;
  /** How often each process looks for time stamps still to add, in seconds; 0: none here. @see SETTINGS.TSA_POLL_SECONDS */
  pollSeconds: number;
  /**
   * Time the public check of an uploaded PDF may take in its worker thread, in ms; beyond it the
   * worker is stopped and the check answered as too costly. @see SETTINGS.PDF_CHECK_BUDGET_MS
   */
  checkBudgetMs: number;
  /**
   * Time the body of an upload to the public PDF check may take to arrive in all, in seconds;
   * beyond it the upload is answered 408 and its connection closed. @see SETTINGS.PDF_CHECK_RECEIVE_SECONDS
   */
  checkReceiveSeconds: number;
}

export interface Config {
  database: DatabaseConfig;
  /** Dolibarr's documents folder ($dolibarr_main_data_root). @see SETTINGS.DATA_ROOT */
  dataRoot: string;
  /** Where the service keeps its own secrets when none are given (instance id). @see SETTINGS.STATE_DIR */
  stateDir: string;
  /** Table prefix. @see SETTINGS.DB_PREFIX */
  dbPrefix: string;
  /** Dolibarr entity served. @see SETTINGS.ENTITY */
  entity: number;
  /** The internal contact type codes that give a user an object ([] for none). @see SETTINGS.ASSIGNED_CONTACT_TYPES */
  assignedContactCodes: readonly string[];
  /** Agenda events linked to an object give it to their owner and attendees. @see SETTINGS.ASSIGNED_BY_AGENDA */
  assignedByAgenda: boolean;
  /** $dolibarr_main_instance_unique_id; the token secret derives from it. Filled at start when unset. */
  instanceUniqueId: string | undefined;
  host: string;
  port: number;
  /**
   * Processes that serve on the one port (`serve --workers N`, node:cluster). 1 is a single
   * process without a cluster; `auto` (environment) is one per core the process may use
   * (os.availableParallelism()), at most MAX_WORKERS. @see SETTINGS.WORKERS
   */
  workers: number;
  /**
   * With more than one worker: how long SIGTERM or SIGINT waits for the workers to finish the
   * requests they hold before they are killed (the service then exits 1). @see SETTINGS.SHUTDOWN_TIMEOUT_SECONDS
   */
  shutdownSeconds: number;
  /** HTTPS: the certificate and key read from TLS_CERT and TLS_KEY (checked to belong together). @see SETTINGS.TLS_CERT */
  tls: TlsConfig | undefined;
  /** Origins allowed to call the API from a browser; `*` allows any. @see SETTINGS.CORS_ORIGINS */
  corsOrigins: '*' | readonly string[];
  /** Largest JSON body in bytes. @see SETTINGS.BODY_LIMIT */
  bodyLimit: number;
  /** Fastify's trustProxy: false, true, a hop count or a list of addresses. @see SETTINGS.TRUST_PROXY */
  trustProxy: boolean | number | string;
  login: LoginThrottleConfig;
  /**
   * How long a request may rely on what an earlier request with the same token read of its user
   * (active, validity dates, admin flag, third party, rights) before reading it again: a user
   * deactivated, a right withdrawn or sessions invalidated in Dolibarr take effect within this
   * time. On SQLite any committed change ends it at once. 0 reads the user on every request.
   * @see SETTINGS.AUTH_CACHE_SECONDS
   */
  authCacheSeconds: number;
  uploads: UploadConfig;
  timeouts: TimeoutConfig;
  transcribe: TranscribeOverrides;
  mail: MailConfig;
  /** How long a QR upload link stays valid, in hours, when its maker does not say. @see SETTINGS.UPLOAD_TOKEN_HOURS */
  uploadTokenHours: number;
  /**
   * The longest life of a QR upload link, in days: a longer one is refused when made, and a link
   * made before under a longer limit ends this long after it was made. @see SETTINGS.UPLOAD_TOKEN_MAX_DAYS
   */
  uploadTokenMaxDays: number;
  /**
   * When the daily clean-up runs (UTC, HH:MM); `off` for none (run `fieldreport cleanup` instead).
   * @see SETTINGS.CLEANUP_AT
   */
  cleanupAt: string;
  /**
   * The time zone of Dolibarr's date-time columns and of times people read (an IANA name such as
   * Europe/Berlin): Dolibarr writes its columns in PHP's time zone, the server's by default.
   * @see SETTINGS.TIME_ZONE
   */
  timeZone: string;
  /**
   * Whether TIME_ZONE (or the caller) named the zone. When not, a served instance takes Dolibarr's
   * constant MAIN_SERVER_TZ where set (dolibarr/time-zone.ts), else the process's zone.
   */
  timeZoneSet?: boolean;
  logLevel: string;
  /**
   * LibreOffice's `soffice`, which turns ODT cover sheets into PDF: a path or a name in PATH.
   * @see SETTINGS.LIBREOFFICE_BINARY
   */
  libreOfficeBinary: string | undefined;
  /**
   * The service's Ed25519 key (PKCS#8 PEM) that seals signature metadata; made on first use.
   * Several processes must share one file. @see SETTINGS.SIGNING_KEY_FILE
   */
  signingKeyFile: string;
  /** The PDF seal (PAdES signature on every final report) and its trusted time. */
  seal: SealConfig;
  /** Name of this server in signature metadata. @see SETTINGS.SERVER_NAME */
  serverName: string;
  /**
   * Address of the service as people reach it (e.g. https://berichte.example.com), for links in QR
   * codes. @see SETTINGS.PUBLIC_URL
   */
  publicUrl: string | undefined;
  /** Path of the conf.php the settings came from, if any. */
  dolibarrConf: string | undefined;
  /**
   * The built web app (index.html, sw.js, assets/…), served at /app/. A folder that is missing or
   * has no index.html is no configuration error: /app/ then answers 503 APP_NOT_BUILT.
   * @see SETTINGS.APP_DIR
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

/** The settings that are whole numbers in a range (read by intSetting). */
type IntSettingName = {
  [K in SettingName]: (typeof SETTINGS)[K] extends { default: number; min: number; max: number } ? K : never;
}[SettingName];

/** WORKERS (or `serve --workers`): a whole number 1…MAX_WORKERS, or `auto` for one per core. */
function workersSetting(raw: string | undefined, problems: string[]): number {
  if (raw === undefined) return SETTINGS.WORKERS.default;
  if (raw.toLowerCase() === 'auto') return Math.min(os.availableParallelism(), MAX_WORKERS);
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > MAX_WORKERS) {
    problems.push(`WORKERS (--workers) must be a whole number from 1 to ${MAX_WORKERS} or auto (one per core), got '${raw}'`);
    return SETTINGS.WORKERS.default;
  }
  return n;
}

/** ASSIGNED_CONTACT_TYPES: the codes, each once, as written (Dolibarr's are upper case); `none` for none. */
function contactCodesSetting(raw: string | undefined, problems: string[]): readonly string[] {
  const text = raw?.trim() || SETTINGS.ASSIGNED_CONTACT_TYPES.default;
  if (text.toLowerCase() === 'none') return Object.freeze([]);
  const codes = text.split(',').map((code) => code.trim());
  const wrong = codes.filter((code) => !/^[A-Za-z0-9_]{1,32}$/.test(code));
  if (wrong.length > 0) {
    problems.push(
      `ASSIGNED_CONTACT_TYPES must be comma-separated contact type codes (letters, digits, _) or none, got ${wrong.map((c) => `'${c}'`).join(', ')}`,
    );
    return Object.freeze([]);
  }
  return Object.freeze([...new Set(codes)]);
}

/** A `true`/`false` setting (also 1/0, yes/no, on/off). */
function booleanSetting(name: 'ASSIGNED_BY_AGENDA', raw: string | undefined, problems: string[]): boolean {
  if (raw === undefined || raw.trim() === '') return SETTINGS[name].default;
  const value = raw.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(value)) return true;
  if (['false', '0', 'no', 'off'].includes(value)) return false;
  problems.push(`${name} must be true or false, got '${raw}'`);
  return SETTINGS[name].default;
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

/** A whole-number setting: its default when unset, a problem (and the default) when out of its range (SETTINGS). */
function intSetting(name: IntSettingName, raw: string | undefined, problems: string[]): number {
  const { default: fallback, min, max } = SETTINGS[name];
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
  const int = (name: IntSettingName): number => intSetting(name, get(name), problems);

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
  database ??= { dialect: 'sqlite', file: DEFAULT_SQLITE_FILE };

  const dbPrefix = overrides.dbPrefix ?? get('DB_PREFIX') ?? conf?.prefix ?? SETTINGS.DB_PREFIX.default;
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

  let corsOrigins: Config['corsOrigins'] = overrides.corsOrigins ?? SETTINGS.CORS_ORIGINS.default;
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

  let trustProxy: Config['trustProxy'] = overrides.trustProxy ?? SETTINGS.TRUST_PROXY.default;
  const trustRaw = get('TRUST_PROXY');
  if (overrides.trustProxy === undefined && trustRaw) {
    trustProxy = trustRaw === 'true' ? true : trustRaw === 'false' ? false : /^\d+$/.test(trustRaw) ? Number(trustRaw) : trustRaw;
  }

  const config: Config = {
    database,
    dataRoot: path.resolve(overrides.dataRoot ?? get('DATA_ROOT') ?? conf?.dataRoot ?? SETTINGS.DATA_ROOT.default),
    stateDir: path.resolve(overrides.stateDir ?? get('STATE_DIR') ?? SETTINGS.STATE_DIR.default),
    dbPrefix,
    entity: overrides.entity ?? int('ENTITY'),
    assignedContactCodes: overrides.assignedContactCodes ?? contactCodesSetting(get('ASSIGNED_CONTACT_TYPES'), problems),
    assignedByAgenda: overrides.assignedByAgenda ?? booleanSetting('ASSIGNED_BY_AGENDA', get('ASSIGNED_BY_AGENDA'), problems),
    instanceUniqueId,
    host: overrides.host ?? get('HOST') ?? SETTINGS.HOST.default,
    port: overrides.port ?? int('PORT'),
    workers: overrides.workers ?? workersSetting(get('WORKERS'), problems),
    shutdownSeconds: overrides.shutdownSeconds ?? int('SHUTDOWN_TIMEOUT_SECONDS'),
    tls: 'tls' in overrides ? overrides.tls : loadTls(get('TLS_CERT'), get('TLS_KEY'), problems),
    corsOrigins,
    bodyLimit: overrides.bodyLimit ?? int('BODY_LIMIT'),
    trustProxy,
    login: overrides.login ?? {
      maxFailuresPerLogin: int('LOGIN_MAX_FAILURES'),
      maxFailuresPerAddress: int('LOGIN_MAX_FAILURES_PER_ADDRESS'),
      windowSeconds: int('LOGIN_WINDOW_SECONDS'),
      knownAddressDays: int('LOGIN_KNOWN_ADDRESS_DAYS'),
      maxDelaySeconds: int('LOGIN_MAX_DELAY_SECONDS'),
    },
    authCacheSeconds: overrides.authCacheSeconds ?? int('AUTH_CACHE_SECONDS'),
    uploads: overrides.uploads ?? {
      maxPhotoBytes: int('UPLOAD_MAX_PHOTO_BYTES'),
      maxAudioBytes: int('UPLOAD_MAX_AUDIO_BYTES'),
    },
    timeouts: overrides.timeouts ?? {
      headersSeconds: int('HEADERS_TIMEOUT_SECONDS'),
      bodySeconds: int('BODY_TIMEOUT_SECONDS'),
      requestSeconds: int('REQUEST_TIMEOUT_SECONDS'),
      uploadIdleSeconds: int('UPLOAD_IDLE_SECONDS'),
    },
    transcribe: overrides.transcribe ?? {
      url: get('BERICHT_TRANSCRIBE_URL') || undefined,
      mode: get('BERICHT_TRANSCRIBE_MODE') || undefined,
      apiKey: get('BERICHT_TRANSCRIBE_API_KEY') || undefined,
      lang: get('BERICHT_TRANSCRIBE_LANG') || undefined,
      timeoutSeconds: int('TRANSCRIBE_TIMEOUT_SECONDS'),
    },
    mail: overrides.mail ?? {
      env: Object.fromEntries(
        Object.entries(env).filter(
          (e): e is [string, string] => /^(MAIN_MAIL_|BERICHT_MAIL_)/.test(e[0]) && typeof e[1] === 'string' && e[1] !== '',
        ),
      ),
      retryHours: int('MAIL_RETRY_HOURS'),
      pollSeconds: int('MAIL_POLL_SECONDS'),
    },
    uploadTokenHours: overrides.uploadTokenHours ?? int('UPLOAD_TOKEN_HOURS'),
    uploadTokenMaxDays: overrides.uploadTokenMaxDays ?? int('UPLOAD_TOKEN_MAX_DAYS'),
    cleanupAt: overrides.cleanupAt ?? (get('CLEANUP_AT') || SETTINGS.CLEANUP_AT.default),
    timeZone: overrides.timeZone ?? (get('TIME_ZONE') || processTimeZone()),
    timeZoneSet: overrides.timeZone !== undefined || Boolean(get('TIME_ZONE')),
    logLevel: overrides.logLevel ?? get('LOG_LEVEL') ?? SETTINGS.LOG_LEVEL.default,
    libreOfficeBinary: overrides.libreOfficeBinary ?? (get('LIBREOFFICE_BINARY') || undefined),
    seal: overrides.seal ?? {
      keyFile: path.resolve(
        get('SEAL_KEY_FILE') ?? path.join(overrides.stateDir ?? get('STATE_DIR') ?? SETTINGS.STATE_DIR.default, 'seal.pem'),
      ),
      p12File: get('SEAL_P12_FILE') ? path.resolve(get('SEAL_P12_FILE')!) : undefined,
      p12Password: get('SEAL_P12_PASSWORD'),
      tsaUrl: get('TSA_URL')?.trim() || undefined,
      tsaUsername: get('TSA_USERNAME') || undefined,
      tsaPassword: get('TSA_PASSWORD') || undefined,
      tsaTimeoutSeconds: int('TSA_TIMEOUT_SECONDS'),
      pollSeconds: int('TSA_POLL_SECONDS'),
      checkBudgetMs: int('PDF_CHECK_BUDGET_MS'),
      checkReceiveSeconds: int('PDF_CHECK_RECEIVE_SECONDS'),
    },
    signingKeyFile: path.resolve(
      overrides.signingKeyFile ??
        get('SIGNING_KEY_FILE') ??
        path.join(overrides.stateDir ?? get('STATE_DIR') ?? SETTINGS.STATE_DIR.default, 'signing_key.pem'),
    ),
    serverName: overrides.serverName ?? (get('SERVER_NAME') || os.hostname()),
    publicUrl: overrides.publicUrl ?? (get('PUBLIC_URL')?.replace(/\/+$/, '') || undefined),
    dolibarrConf: confPath,
    appDir: path.resolve(overrides.appDir ?? get('APP_DIR') ?? DEFAULT_APP_DIR),
  };
  if (!(LOG_LEVELS as readonly string[]).includes(config.logLevel)) {
    problems.push(`LOG_LEVEL '${config.logLevel}' is not one of ${LOG_LEVELS.join(', ')}`);
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
