/**
 * loadConfig: defaults, DATABASE_URL forms, every problem listed at once, a frozen result, and a
 * Dolibarr conf.php as the source of the database, prefix, data root and instance id.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ConfigError, describeDatabase, loadConfig, type Config } from '../../src/config.js';
import { MAIL_LIMIT_SETTINGS, MAX_AUTH_CACHE_SECONDS, MAX_WORKERS, mailLimitValue } from '../../src/settings.js';
import { parsePhpAssignments, readDolibarrConf } from '../../src/dolibarr/conf-file.js';

const php: { dol_encode: string; dol_encode_plain: string } = JSON.parse(
  readFileSync(new URL('../fixtures/php-made.json', import.meta.url), 'utf8'),
);

/** The ConfigError loadConfig throws, failing the test when it throws something else or nothing. */
function configError(env: Record<string, string | undefined>, overrides: Partial<Config> = {}): ConfigError {
  try {
    loadConfig(env, overrides);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${(error as Error)?.name}: ${(error as Error)?.message}`);
    return error;
  }
  assert.fail('expected loadConfig to throw a ConfigError');
}

/** True when one of the problems matches every pattern. */
function listed(error: ConfigError, ...patterns: RegExp[]): boolean {
  return error.problems.some((p) => patterns.every((re) => re.test(p)));
}

describe('loadConfig: defaults', () => {
  test('an empty environment gives the documented defaults', () => {
    const config = loadConfig({});
    assert.deepEqual(config.database, { dialect: 'sqlite', file: './data/fieldreport.sqlite' });
    assert.equal(config.dbPrefix, 'llx_');
    assert.equal(config.entity, 1);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.port, 8080);
    assert.equal(config.corsOrigins, '*');
    assert.equal(config.dataRoot, path.resolve('./data/documents'));
    assert.equal(config.stateDir, path.resolve('./data'));
    assert.equal(config.instanceUniqueId, undefined);
    assert.equal(config.dolibarrConf, undefined);
    assert.equal(config.logLevel, 'info');
    assert.equal(config.trustProxy, false);
    assert.equal(config.bodyLimit, 1024 * 1024);
    assert.deepEqual(config.login, {
      maxFailuresPerLogin: 10,
      maxFailuresPerAddress: 30,
      windowSeconds: 900,
      knownAddressDays: 30,
      maxDelaySeconds: 60,
    });
    assert.deepEqual(config.timeouts, { headersSeconds: 30, bodySeconds: 30, requestSeconds: 3600, uploadIdleSeconds: 60 });
    // The package root's dist/app, whether the service runs from src/ (tsx) or from dist/.
    assert.equal(config.appDir, fileURLToPath(new URL('../../dist/app', import.meta.url)));
  });

  test('blank variables count as unset', () => {
    const config = loadConfig({ DATABASE_URL: '  ', PORT: '', ENTITY: ' ', DB_PREFIX: '', LOG_LEVEL: '' });
    assert.equal(config.database.dialect, 'sqlite');
    assert.equal(config.port, 8080);
    assert.equal(config.entity, 1);
    assert.equal(config.dbPrefix, 'llx_');
    assert.equal(config.logLevel, 'info');
  });

  test('plain settings are read from the environment', () => {
    const config = loadConfig({
      HOST: '0.0.0.0',
      PORT: '9000',
      ENTITY: '2',
      DB_PREFIX: 'doli_',
      DATA_ROOT: '/srv/documents',
      STATE_DIR: '/srv/state',
      INSTANCE_UNIQUE_ID: 'abcdef0123456789abcdef0123456789',
      CORS_ORIGINS: 'https://app.example.com, http://localhost:5173',
      LOG_LEVEL: 'warn',
      TRUST_PROXY: '2',
      BODY_LIMIT: '2048',
      APP_DIR: '/srv/fieldreport-app/',
    });
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.port, 9000);
    assert.equal(config.entity, 2);
    assert.equal(config.dbPrefix, 'doli_');
    assert.equal(config.dataRoot, '/srv/documents');
    assert.equal(config.stateDir, '/srv/state');
    assert.equal(config.instanceUniqueId, 'abcdef0123456789abcdef0123456789');
    assert.deepEqual(config.corsOrigins, ['https://app.example.com', 'http://localhost:5173']);
    assert.equal(config.logLevel, 'warn');
    assert.equal(config.trustProxy, 2);
    assert.equal(config.bodyLimit, 2048);
    assert.equal(config.appDir, '/srv/fieldreport-app');
  });

  test('an explicit value wins over the environment', () => {
    const config = loadConfig({ PORT: '9000', DB_PREFIX: 'env_', ENTITY: '5' }, { port: 1234, dbPrefix: 'ovr_', entity: 3 });
    assert.equal(config.port, 1234);
    assert.equal(config.dbPrefix, 'ovr_');
    assert.equal(config.entity, 3);
  });
});

describe('loadConfig: WORKERS', () => {
  test('one process by default; a number; auto is one per core, at most MAX_WORKERS', () => {
    assert.equal(loadConfig({}).workers, 1);
    assert.equal(loadConfig({ WORKERS: '4' }).workers, 4);
    assert.equal(loadConfig({ WORKERS: String(MAX_WORKERS) }).workers, MAX_WORKERS);
    assert.equal(loadConfig({ WORKERS: 'auto' }).workers, Math.min(os.availableParallelism(), MAX_WORKERS));
    assert.equal(loadConfig({ WORKERS: 'AUTO' }).workers, Math.min(os.availableParallelism(), MAX_WORKERS));
    assert.equal(loadConfig({ WORKERS: '4' }, { workers: 2 }).workers, 2);
  });

  test('0, a word, a fraction, a negative number and more than MAX_WORKERS are problems naming the value', () => {
    for (const bad of ['0', 'abc', '1.5', '-2', '2x', String(MAX_WORKERS + 1)]) {
      const error = configError({ WORKERS: bad });
      assert.ok(
        listed(error, /^WORKERS \(--workers\) must be a whole number from 1 to 64 or auto/, new RegExp(`got '${bad.replace('.', '\\.')}'`)),
        `${bad}: ${error.problems.join('\n')}`,
      );
    }
  });

  test('SHUTDOWN_TIMEOUT_SECONDS: 60 by default, read from the environment, at least 1', () => {
    assert.equal(loadConfig({}).shutdownSeconds, 60);
    assert.equal(loadConfig({ SHUTDOWN_TIMEOUT_SECONDS: '300' }).shutdownSeconds, 300);
    assert.ok(listed(configError({ SHUTDOWN_TIMEOUT_SECONDS: '0' }), /SHUTDOWN_TIMEOUT_SECONDS/));
  });
});

describe('loadConfig: AUTH_CACHE_SECONDS', () => {
  test('5 by default; 0 (off) up to MAX_AUTH_CACHE_SECONDS; anything else is a problem naming the value', () => {
    assert.equal(loadConfig({}).authCacheSeconds, 5);
    assert.equal(loadConfig({ AUTH_CACHE_SECONDS: '0' }).authCacheSeconds, 0);
    assert.equal(loadConfig({ AUTH_CACHE_SECONDS: String(MAX_AUTH_CACHE_SECONDS) }).authCacheSeconds, MAX_AUTH_CACHE_SECONDS);
    for (const bad of ['-1', '1.5', 'ten', String(MAX_AUTH_CACHE_SECONDS + 1)]) {
      assert.ok(
        listed(
          configError({ AUTH_CACHE_SECONDS: bad }),
          /^AUTH_CACHE_SECONDS must be a whole number from 0 to 60/,
          new RegExp(`got '${bad.replace('.', '\\.')}'`),
        ),
        bad,
      );
    }
  });
});

describe('loadConfig: DATABASE_URL', () => {
  const db = (url: string) => loadConfig({ DATABASE_URL: url }).database;

  test('sqlite:PATH, relative and absolute', () => {
    assert.deepEqual(db('sqlite:./var/app.sqlite'), { dialect: 'sqlite', file: './var/app.sqlite' });
    assert.deepEqual(db('sqlite:/var/lib/fieldreport/app.sqlite'), { dialect: 'sqlite', file: '/var/lib/fieldreport/app.sqlite' });
    assert.deepEqual(db('sqlite:///var/lib/fieldreport/app.sqlite'), { dialect: 'sqlite', file: '/var/lib/fieldreport/app.sqlite' });
    assert.deepEqual(db('sqlite::memory:'), { dialect: 'sqlite', file: ':memory:' });
  });

  test('mysql:// with a URL-encoded password and a port', () => {
    assert.deepEqual(db('mysql://u:p%40ss@h:3307/db'), {
      dialect: 'mysql',
      host: 'h',
      port: 3307,
      database: 'db',
      user: 'u',
      password: 'p@ss',
    });
  });

  test('mariadb:// is MySQL, with the default port 3306', () => {
    assert.deepEqual(db('mariadb://doli:geheim@db.example.com/dolibarr'), {
      dialect: 'mysql',
      host: 'db.example.com',
      port: 3306,
      database: 'dolibarr',
      user: 'doli',
      password: 'geheim',
    });
  });

  test('postgres:// and postgresql://, with the default port 5432', () => {
    const expected = { dialect: 'postgres', host: 'pg.local', port: 5432, database: 'dolibarr', user: 'doli', password: 'x/y:z' };
    assert.deepEqual(db('postgres://doli:x%2Fy%3Az@pg.local/dolibarr'), expected);
    assert.deepEqual(db('postgresql://doli:x%2Fy%3Az@pg.local/dolibarr'), expected);
    assert.deepEqual(db('postgres://doli@pg.local:6543/my%20db'), { ...expected, port: 6543, database: 'my db', password: '' });
  });

  test('a URL without a user gets the driver default; IPv6 hosts lose their brackets', () => {
    assert.equal((db('mysql://127.0.0.1/db') as { user: string }).user, 'root');
    assert.equal((db('postgres://127.0.0.1/db') as { user: string }).user, 'postgres');
    assert.deepEqual(db('postgres://pg@[::1]:5433/db'), {
      dialect: 'postgres',
      host: '::1',
      port: 5433,
      database: 'db',
      user: 'pg',
      password: '',
    });
  });

  test('a URL without a database, a sqlite: without a path and a non-URL are problems', () => {
    assert.ok(listed(configError({ DATABASE_URL: 'mysql://root@127.0.0.1' }), /DATABASE_URL/, /database/));
    assert.ok(listed(configError({ DATABASE_URL: 'sqlite:' }), /DATABASE_URL/, /path/));
    assert.ok(listed(configError({ DATABASE_URL: 'not a url' }), /DATABASE_URL/));
  });

  test('a malformed percent escape in the URL is a listed problem, not a crash', () => {
    // '%of' is not a valid escape: the URL is wrong, and that must be reported like any other setting.
    const error = configError({ DATABASE_URL: 'mysql://doli:50%off@db.example.com/dolibarr', PORT: 'abc' });
    assert.ok(listed(error, /DATABASE_URL/), error.problems.join('\n'));
    assert.ok(listed(error, /PORT/), error.problems.join('\n'));
  });

  test('describeDatabase leaves the password out', () => {
    const text = describeDatabase(db('mysql://u:p%40ss@h:3307/db'));
    assert.equal(text, 'mysql://u@h:3307/db');
    assert.doesNotMatch(text, /p@ss|p%40ss/);
  });
});

describe('loadConfig: DB_PREFIX case', () => {
  test("an upper-case DB_PREFIX ('LLX_') is a listed problem with PostgreSQL", () => {
    // Dolibarr creates its PostgreSQL tables unquoted: their names are lower case.
    const error = configError({ DATABASE_URL: 'postgres://doli@pg.local/dolibarr', DB_PREFIX: 'LLX_' });
    assert.ok(listed(error, /DB_PREFIX/, /LLX_/, /lower case/i), error.problems.join('\n'));
    const fromOverride = configError({ DATABASE_URL: 'postgresql://doli@pg.local/dolibarr' }, { dbPrefix: 'Doli_' });
    assert.ok(listed(fromOverride, /DB_PREFIX/, /Doli_/), fromOverride.problems.join('\n'));
  });

  test("an upper-case DB_PREFIX ('LLX_') is accepted with MySQL and SQLite", () => {
    assert.equal(loadConfig({ DATABASE_URL: 'mysql://doli@db.local/dolibarr', DB_PREFIX: 'LLX_' }).dbPrefix, 'LLX_');
    assert.equal(loadConfig({ DATABASE_URL: 'sqlite:./var/app.sqlite', DB_PREFIX: 'LLX_' }).dbPrefix, 'LLX_');
    assert.equal(
      loadConfig({ DATABASE_URL: 'postgres://doli@pg.local/dolibarr', DB_PREFIX: 'llx_' }).dbPrefix,
      'llx_',
      'lower case is fine',
    );
  });
});

describe('loadConfig: every problem at once', () => {
  test('six bad settings give one ConfigError listing each', () => {
    const error = configError({
      DATABASE_URL: 'ftp://files.example.com/db',
      PORT: 'abc',
      ENTITY: '0',
      DB_PREFIX: 'llx;drop',
      CORS_ORIGINS: 'notanorigin',
      LOG_LEVEL: 'loud',
    });
    assert.equal(error.name, 'ConfigError');
    assert.equal(error.problems.length, 6, error.problems.join('\n'));
    assert.ok(listed(error, /DATABASE_URL/, /ftp/), 'scheme');
    assert.ok(listed(error, /PORT/, /abc/), 'port');
    assert.ok(listed(error, /ENTITY/, /'0'/), 'entity');
    assert.ok(listed(error, /DB_PREFIX/, /llx;drop/), 'prefix');
    assert.ok(listed(error, /CORS_ORIGINS/, /notanorigin/), 'cors');
    assert.ok(listed(error, /LOG_LEVEL/, /loud/), 'log level');
    // The message a person reads lists them all too.
    for (const problem of error.problems) assert.ok(error.message.includes(problem));
  });

  test('out-of-range numbers and a short instance id are problems', () => {
    const error = configError({ PORT: '70000', ENTITY: '-1', BODY_LIMIT: '10', INSTANCE_UNIQUE_ID: 'short', LOGIN_MAX_FAILURES: '1.5' });
    assert.ok(listed(error, /PORT/));
    assert.ok(listed(error, /ENTITY/));
    assert.ok(listed(error, /BODY_LIMIT/));
    assert.ok(listed(error, /INSTANCE_UNIQUE_ID/));
    assert.ok(listed(error, /LOGIN_MAX_FAILURES/));
    assert.equal(error.problems.length, 5, error.problems.join('\n'));
  });

  test('UPLOAD_TOKEN_MAX_DAYS: 7 by default, 1..90; UPLOAD_TOKEN_HOURS above it is a problem', () => {
    assert.equal(loadConfig({}).uploadTokenMaxDays, 7);
    assert.equal(loadConfig({ UPLOAD_TOKEN_MAX_DAYS: '30', UPLOAD_TOKEN_HOURS: '720' }).uploadTokenMaxDays, 30);
    assert.ok(listed(configError({ UPLOAD_TOKEN_MAX_DAYS: '0' }), /UPLOAD_TOKEN_MAX_DAYS/));
    assert.ok(listed(configError({ UPLOAD_TOKEN_MAX_DAYS: '91' }), /UPLOAD_TOKEN_MAX_DAYS/));
    const tooLong = configError({ UPLOAD_TOKEN_MAX_DAYS: '2', UPLOAD_TOKEN_HOURS: '49' });
    assert.ok(listed(tooLong, /UPLOAD_TOKEN_HOURS/, /UPLOAD_TOKEN_MAX_DAYS/), tooLong.problems.join('\n'));
    assert.equal(tooLong.problems.length, 1, tooLong.problems.join('\n'));
    assert.equal(loadConfig({ UPLOAD_TOKEN_MAX_DAYS: '2', UPLOAD_TOKEN_HOURS: '48' }).uploadTokenHours, 48);
  });

  test('login slow-down: LOGIN_KNOWN_ADDRESS_DAYS (1..365) and LOGIN_MAX_DELAY_SECONDS (1..3600) are read; out of range or no whole number is a problem', () => {
    const config = loadConfig({ LOGIN_KNOWN_ADDRESS_DAYS: '7', LOGIN_MAX_DELAY_SECONDS: '120' });
    assert.equal(config.login.knownAddressDays, 7);
    assert.equal(config.login.maxDelaySeconds, 120);
    const error = configError({ LOGIN_KNOWN_ADDRESS_DAYS: '0', LOGIN_MAX_DELAY_SECONDS: '1.5' });
    assert.ok(listed(error, /LOGIN_KNOWN_ADDRESS_DAYS/), error.problems.join('\n'));
    assert.ok(listed(error, /LOGIN_MAX_DELAY_SECONDS/), error.problems.join('\n'));
    assert.equal(error.problems.length, 2, error.problems.join('\n'));
    assert.ok(listed(configError({ LOGIN_KNOWN_ADDRESS_DAYS: '366', LOGIN_MAX_DELAY_SECONDS: '3601' }), /LOGIN_KNOWN_ADDRESS_DAYS/));
  });

  test('request time limits: read from the environment; a headers or body limit above the request limit is a problem', () => {
    const config = loadConfig({ HEADERS_TIMEOUT_SECONDS: '10', BODY_TIMEOUT_SECONDS: '20', REQUEST_TIMEOUT_SECONDS: '7200' });
    assert.deepEqual(config.timeouts, { headersSeconds: 10, bodySeconds: 20, requestSeconds: 7200, uploadIdleSeconds: 60 });
    const error = configError({ HEADERS_TIMEOUT_SECONDS: '120', BODY_TIMEOUT_SECONDS: '90', REQUEST_TIMEOUT_SECONDS: '60' });
    assert.ok(listed(error, /HEADERS_TIMEOUT_SECONDS/, /REQUEST_TIMEOUT_SECONDS/), error.problems.join('\n'));
    assert.ok(listed(error, /BODY_TIMEOUT_SECONDS/, /REQUEST_TIMEOUT_SECONDS/), error.problems.join('\n'));
    const zero = configError({ BODY_TIMEOUT_SECONDS: '0', REQUEST_TIMEOUT_SECONDS: 'eine Stunde' });
    assert.ok(listed(zero, /BODY_TIMEOUT_SECONDS/));
    assert.ok(listed(zero, /REQUEST_TIMEOUT_SECONDS/));
  });

  test('the upload idle time (photos, voice notes, the public PDF check): 60 s by default, UPLOAD_IDLE_SECONDS from 1 to 3600', () => {
    assert.equal(loadConfig({}).timeouts.uploadIdleSeconds, 60);
    assert.equal(loadConfig({ UPLOAD_IDLE_SECONDS: '15' }).timeouts.uploadIdleSeconds, 15);
    for (const bad of ['0', '3601', 'eine Minute'])
      assert.ok(listed(configError({ UPLOAD_IDLE_SECONDS: bad }), /UPLOAD_IDLE_SECONDS/), bad);
  });

  test('APP_DIR that is a file is a problem; a missing folder is not (the app is then answered as not built)', () => {
    const file = fileURLToPath(import.meta.url);
    assert.ok(listed(configError({ APP_DIR: file }), /APP_DIR/, /is a file/));
    assert.equal(loadConfig({ APP_DIR: '/nonexistent/fieldreport-app' }).appDir, '/nonexistent/fieldreport-app');
  });

  test('mail limits (BERICHT_MAIL_MAX_*): passed on with the mail settings; a value out of range or not a whole number is a problem naming it', () => {
    const config = loadConfig({
      BERICHT_MAIL_MAX_RECIPIENTS: '5',
      BERICHT_MAIL_MAX_PER_USER_HOUR: '100',
      BERICHT_MAIL_MAX_PER_REPORT_DAY: '3',
    });
    assert.deepEqual(
      [
        config.mail.env.BERICHT_MAIL_MAX_RECIPIENTS,
        config.mail.env.BERICHT_MAIL_MAX_PER_USER_HOUR,
        config.mail.env.BERICHT_MAIL_MAX_PER_REPORT_DAY,
      ],
      ['5', '100', '3'],
    );
    assert.equal(mailLimitValue('BERICHT_MAIL_MAX_RECIPIENTS', undefined), undefined, 'unset: the default holds');
    assert.deepEqual(Object.fromEntries(Object.entries(MAIL_LIMIT_SETTINGS).map(([name, s]) => [name, s.fallback])), {
      BERICHT_MAIL_MAX_RECIPIENTS: 10,
      BERICHT_MAIL_MAX_PER_USER_HOUR: 20,
      BERICHT_MAIL_MAX_PER_REPORT_DAY: 10,
    });
    const error = configError({
      BERICHT_MAIL_MAX_RECIPIENTS: '21',
      BERICHT_MAIL_MAX_PER_USER_HOUR: '0',
      BERICHT_MAIL_MAX_PER_REPORT_DAY: '0x10',
    });
    assert.ok(listed(error, /BERICHT_MAIL_MAX_RECIPIENTS/, /1 to 20/, /'21'/), error.problems.join('\n'));
    assert.ok(listed(error, /BERICHT_MAIL_MAX_PER_USER_HOUR/, /'0'/));
    assert.ok(listed(error, /BERICHT_MAIL_MAX_PER_REPORT_DAY/, /'0x10'/));
    assert.equal(error.problems.length, 3);
    assert.ok(listed(configError({ BERICHT_MAIL_MAX_PER_USER_HOUR: '1e3' }), /BERICHT_MAIL_MAX_PER_USER_HOUR/));
  });

  test('one bad origin among good ones is named', () => {
    const error = configError({ CORS_ORIGINS: 'https://ok.example.com,ftp://bad.example.com,https://also.example.com/' });
    assert.ok(listed(error, /ftp:\/\/bad\.example\.com/));
    assert.ok(listed(error, /https:\/\/also\.example\.com\//));
    assert.equal(error.problems.length, 2);
  });
});

describe('loadConfig: the result is frozen', () => {
  test('top level and nested objects cannot be changed', () => {
    const config = loadConfig({ DATABASE_URL: 'mysql://u:p@h/db', CORS_ORIGINS: 'https://a.example.com' });
    assert.ok(Object.isFrozen(config));
    assert.ok(Object.isFrozen(config.database));
    assert.ok(Object.isFrozen(config.login));
    assert.ok(Object.isFrozen(config.corsOrigins));
    // ES modules run in strict mode: assigning to a frozen object throws.
    assert.throws(() => {
      (config as { port: number }).port = 1;
    }, TypeError);
    assert.throws(() => {
      (config.database as { host: string }).host = 'evil';
    }, TypeError);
    assert.throws(() => {
      (config.corsOrigins as string[]).push('https://evil.example.com');
    }, TypeError);
    assert.equal(config.port, 8080);
    assert.equal((config.database as { host: string }).host, 'h');
  });
});

describe('loadConfig: DOLIBARR_CONF', () => {
  let dir: string;
  const write = (name: string, content: string): string => {
    const file = path.join(dir, name);
    writeFileSync(file, content);
    return file;
  };

  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-conf-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** A conf.php as Dolibarr's installer writes it, with hand edits and traps around the real values. */
  const realistic = (dbLines: string) => `<?php
//
// File generated by Dolibarr installer 18.0.4 on 2024-01-01
//
// Take a look at conf.php.example file for an example of conf.php file
// and explanations for all possibles parameters.
//
$dolibarr_main_url_root='https://erp.example.com/#dolibarr';
$dolibarr_main_document_root='/var/www/dolibarr/htdocs';
$dolibarr_main_url_root_alt='/custom';
$dolibarr_main_document_root_alt='/var/www/dolibarr/htdocs/custom';
$dolibarr_main_data_root = '/var/lib/dolibarr/o\\'brien\\\\documents';   // escaped quote and backslash
// $dolibarr_main_data_root='/old/commented/out';
# $dolibarr_main_db_host='commented-hash';
/* $dolibarr_main_db_name='commented-block';
   $dolibarr_main_db_user='commented-block'; */
$dolibarr_main_db_host="db.internal";
${dbLines}
$dolibarr_main_db_name = "doli\\$prod";   /* double quotes: \\$ is a dollar */
$dolibarr_main_db_prefix='erp_';
$dolibarr_main_db_user="doli\\"user";
$dolibarr_main_db_character_set='utf8';
$dolibarr_main_db_collation='utf8_unicode_ci';
// Authentication settings
$dolibarr_main_authentication='dolibarr';
$dolibarr_main_restrict_os_commands='echo $dolibarr_main_db_host=\\'evil\\'; mysqldump, mysql, pg_dump';
$dolibarr_main_prod='1';
$dolibarr_main_force_https='0';
$dolibarr_nocsrfcheck='0';
$dolibarr_main_instance_unique_id='9f1c2b3a4d5e6f708192a3b4c5d6e7f8';
$dolibarr_mailing_limit_sendbyweb='0';
`;

  test('a MySQL conf.php with an obfuscated crypted: password fills every field', () => {
    const file = write(
      'conf-mysql.php',
      realistic(`$dolibarr_main_db_port='3307';\n$dolibarr_main_db_pass='crypted:${php.dol_encode}';\n$dolibarr_main_db_type='mysqli';`),
    );
    const config = loadConfig({ DOLIBARR_CONF: file });
    assert.deepEqual(config.database, {
      dialect: 'mysql',
      host: 'db.internal',
      port: 3307,
      database: 'doli$prod',
      user: 'doli"user',
      password: php.dol_encode_plain,
    });
    assert.equal(config.dbPrefix, 'erp_');
    assert.equal(config.dataRoot, "/var/lib/dolibarr/o'brien\\documents");
    assert.equal(config.instanceUniqueId, '9f1c2b3a4d5e6f708192a3b4c5d6e7f8');
    assert.equal(config.dolibarrConf, file);
  });

  test('a PostgreSQL conf.php with $dolibarr_main_db_encrypted_pass and no port', () => {
    const file = write(
      'conf-pg.php',
      realistic(`$dolibarr_main_db_pass='';\n$dolibarr_main_db_encrypted_pass='${php.dol_encode}';\n$dolibarr_main_db_type='pgsql';`),
    );
    const config = loadConfig({ DOLIBARR_CONF: file });
    assert.deepEqual(config.database, {
      dialect: 'postgres',
      host: 'db.internal',
      port: 5432,
      database: 'doli$prod',
      user: 'doli"user',
      password: php.dol_encode_plain,
    });
    assert.equal(config.dbPrefix, 'erp_');
  });

  test('a crypted: db_pass wins over a stale db_encrypted_pass, as in Dolibarr (filefunc.inc.php)', () => {
    // Dolibarr: `if (preg_match('/crypted:/i', $dolibarr_main_db_pass)) { decode it } else { decode encrypted_pass }`.
    const file = write(
      'conf-both-pass.php',
      realistic(
        `$dolibarr_main_db_pass='crypted:${php.dol_encode}';\n$dolibarr_main_db_encrypted_pass='T0ZF';\n$dolibarr_main_db_type='mysqli';`,
      ),
    );
    assert.equal((loadConfig({ DOLIBARR_CONF: file }).database as { password: string }).password, php.dol_encode_plain);
  });

  test('a clear password and a numeric port are taken as they are', () => {
    const file = write(
      'conf-clear.php',
      realistic(`$dolibarr_main_db_port=3308;\n$dolibarr_main_db_pass='Klar#Text//1';\n$dolibarr_main_db_type='mysqli';`),
    );
    const config = loadConfig({ DOLIBARR_CONF: file });
    assert.equal(config.database.dialect, 'mysql');
    assert.equal((config.database as { port: number }).port, 3308);
    assert.equal((config.database as { password: string }).password, 'Klar#Text//1');
  });

  test('an old conf.php without an instance unique id falls back to the cookie crypt key', () => {
    const file = write(
      'conf-old.php',
      `<?php
$dolibarr_main_db_host='localhost';
$dolibarr_main_db_name='dolibarr';
$dolibarr_main_db_user='root';
$dolibarr_main_db_pass='';
$dolibarr_main_db_type='mysql';
$dolibarr_main_data_root='/home/doli/documents';
$dolibarr_main_cookie_cryptkey='5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e';
`,
    );
    const config = loadConfig({ DOLIBARR_CONF: file });
    assert.equal(config.instanceUniqueId, '5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e');
    assert.equal(config.dbPrefix, 'llx_', 'no prefix in conf.php: the default');
    assert.deepEqual(config.database, {
      dialect: 'mysql',
      host: 'localhost',
      port: 3306,
      database: 'dolibarr',
      user: 'root',
      password: '',
    });
    assert.equal(config.dataRoot, '/home/doli/documents');
  });

  test('the instance unique id wins over the cookie crypt key', () => {
    const file = write(
      'conf-both.php',
      `<?php $dolibarr_main_cookie_cryptkey='cookiecookiecookiecookie'; $dolibarr_main_instance_unique_id='uniqueuniqueuniqueunique';`,
    );
    assert.equal(loadConfig({ DOLIBARR_CONF: file }).instanceUniqueId, 'uniqueuniqueuniqueunique');
  });

  test('environment variables override what conf.php names', () => {
    const file = write('conf-env.php', realistic(`$dolibarr_main_db_pass='x';\n$dolibarr_main_db_type='mysqli';`));
    const config = loadConfig({
      DOLIBARR_CONF: file,
      DATABASE_URL: 'postgres://other:pw@pg.example.com:5439/otherdb',
      DB_PREFIX: 'env_',
      DATA_ROOT: '/env/documents',
      INSTANCE_UNIQUE_ID: 'envenvenvenvenvenvenvenvenvenv00',
    });
    assert.deepEqual(config.database, {
      dialect: 'postgres',
      host: 'pg.example.com',
      port: 5439,
      database: 'otherdb',
      user: 'other',
      password: 'pw',
    });
    assert.equal(config.dbPrefix, 'env_');
    assert.equal(config.dataRoot, '/env/documents');
    assert.equal(config.instanceUniqueId, 'envenvenvenvenvenvenvenvenvenv00');
  });

  test('explicit values override conf.php too, and overrides.dolibarrConf names the file', () => {
    const file = write('conf-ovr.php', realistic(`$dolibarr_main_db_pass='x';\n$dolibarr_main_db_type='mysqli';`));
    const config = loadConfig({}, { dolibarrConf: file, dbPrefix: 'ovr_', dataRoot: '/ovr' });
    assert.equal(config.dolibarrConf, file);
    assert.equal(config.database.dialect, 'mysql');
    assert.equal(config.dbPrefix, 'ovr_');
    assert.equal(config.dataRoot, '/ovr');
  });

  test('an unsupported database type is a listed problem', () => {
    const file = write('conf-sqlite3.php', realistic(`$dolibarr_main_db_pass='x';\n$dolibarr_main_db_type='sqlite3';`));
    const error = configError({ DOLIBARR_CONF: file, PORT: 'abc' });
    assert.ok(listed(error, /DOLIBARR_CONF/, /sqlite3/, /not supported/), error.problems.join('\n'));
    assert.ok(listed(error, /PORT/), 'the other problems are listed with it');
  });

  test('an unreadable path is a listed problem', () => {
    const missing = path.join(dir, 'does-not-exist', 'conf.php');
    const error = configError({ DOLIBARR_CONF: missing, LOG_LEVEL: 'loud' });
    assert.ok(listed(error, /DOLIBARR_CONF/, /cannot read/, /ENOENT/), error.problems.join('\n'));
    assert.ok(listed(error, /LOG_LEVEL/));

    const folder = path.join(dir, 'a-folder');
    mkdirSync(folder);
    assert.ok(listed(configError({ DOLIBARR_CONF: folder }), /DOLIBARR_CONF/, /cannot read/));

    if (process.getuid?.() !== 0) {
      // root reads every file, so a permission test only means something for other users.
      const locked = write('conf-locked.php', realistic(`$dolibarr_main_db_type='mysqli';`));
      chmodSync(locked, 0o000);
      assert.ok(listed(configError({ DOLIBARR_CONF: locked }), /DOLIBARR_CONF/, /EACCES/));
    }
  });

  test('a conf.php missing the database host, name and user lists them', () => {
    const file = write(
      'conf-missing.php',
      `<?php\n$dolibarr_main_db_type='pgsql';\n$dolibarr_main_db_pass='x';\n$dolibarr_main_db_host='';\n`,
    );
    const error = configError({ DOLIBARR_CONF: file });
    assert.ok(listed(error, /\$dolibarr_main_db_host/, /\$dolibarr_main_db_name/, /\$dolibarr_main_db_user/), error.problems.join('\n'));
    assert.ok(listed(error, new RegExp(file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))), 'the file is named');

    const onlyUser = write(
      'conf-missing-user.php',
      `<?php\n$dolibarr_main_db_type='mysqli';\n$dolibarr_main_db_host='h';\n$dolibarr_main_db_name='n';\n`,
    );
    const e2 = configError({ DOLIBARR_CONF: onlyUser });
    assert.ok(listed(e2, /\$dolibarr_main_db_user/));
    assert.ok(!listed(e2, /\$dolibarr_main_db_host/));
    assert.ok(!listed(e2, /\$dolibarr_main_db_name/));
  });

  test("an expression for $dolibarr_main_data_root (__DIR__.'/../documents') is a listed problem, not the default", () => {
    const file = write(
      'conf-data-root-expr.php',
      realistic(`$dolibarr_main_db_pass='x';\n$dolibarr_main_db_type='mysqli';`).replace(
        /^\$dolibarr_main_data_root = .*$/m,
        "$dolibarr_main_data_root = __DIR__.'/../documents';",
      ),
    );
    assert.match(readFileSync(file, 'utf8'), /^\$dolibarr_main_data_root = __DIR__/m);
    const error = configError({ DOLIBARR_CONF: file, PORT: 'abc' });
    assert.ok(listed(error, /DOLIBARR_CONF/, /\$dolibarr_main_data_root/), error.problems.join('\n'));
    assert.ok(listed(error, /PORT/), 'the other problems are listed with it');
    assert.ok(!listed(error, /\$dolibarr_main_db_/), `only the expression is a problem: ${error.problems.join('\n')}`);
  });

  test('an expression for $dolibarr_main_data_root is no problem when DATA_ROOT gives the setting, as the message advises', () => {
    const file = write(
      'conf-data-root-expr-env.php',
      realistic(`$dolibarr_main_db_pass='x';\n$dolibarr_main_db_type='mysqli';`).replace(
        /^\$dolibarr_main_data_root = .*$/m,
        "$dolibarr_main_data_root = __DIR__.'/../documents';",
      ),
    );
    let config: Config | undefined;
    assert.doesNotThrow(() => {
      config = loadConfig({ DOLIBARR_CONF: file, DATA_ROOT: '/srv/dolibarr/documents' });
    }, 'DATA_ROOT replaces what conf.php could not say');
    assert.equal(config?.dataRoot, '/srv/dolibarr/documents');
  });

  test('a bad port in conf.php is a problem', () => {
    const file = write(
      'conf-port.php',
      realistic(`$dolibarr_main_db_port='33o6';\n$dolibarr_main_db_pass='x';\n$dolibarr_main_db_type='mysqli';`),
    );
    assert.ok(listed(configError({ DOLIBARR_CONF: file }), /\$dolibarr_main_db_port/, /33o6/));
  });
});

describe('parsePhpAssignments / readDolibarrConf', () => {
  test('scalars of every kind; later assignments win', () => {
    const vars = parsePhpAssignments(`<?php
$a = 'one'; $a = 'two';
$n = 42; $neg = -7; $t = TRUE; $f = false; $z = null;
$s = "tab\\there\\nline";
$single = 'no \\n escape';
$expr = 'x' . 'y';
$call = getenv('X');
$cmp == 'not an assignment';
$c = /* comment */ 'after comment';
`);
    assert.equal(vars.get('a'), 'two');
    assert.equal(vars.get('n'), 42);
    assert.equal(vars.get('neg'), -7);
    assert.equal(vars.get('t'), true);
    assert.equal(vars.get('f'), false);
    assert.equal(vars.get('z'), null);
    assert.equal(vars.get('s'), 'tab\there\nline');
    assert.equal(vars.get('single'), 'no \\n escape');
    // Assigned something that is not a plain value: present, but unreadable (so it can be reported).
    assert.equal(vars.has('expr'), true);
    assert.equal(vars.get('expr'), undefined, 'an expression is not a scalar');
    assert.equal(vars.has('call'), true);
    assert.equal(vars.get('call'), undefined);
    assert.equal(vars.has('cmp'), false, 'a comparison is no assignment');
    assert.equal(vars.get('c'), 'after comment');
  });

  test('assignment-like text inside strings and comments is ignored', () => {
    const vars = parsePhpAssignments(`<?php
$x = 'it\\'s $dolibarr_main_db_host=\\'evil\\';';
// $dolibarr_main_db_host = 'line comment';
# $dolibarr_main_db_host = 'hash comment';
/* $dolibarr_main_db_host = 'block comment'; */
echo "$dolibarr_main_db_host = 'in a double-quoted string';";
$dolibarr_main_db_host = 'real';
`);
    assert.equal(vars.get('x'), "it's $dolibarr_main_db_host='evil';");
    assert.equal(vars.get('dolibarr_main_db_host'), 'real');
  });

  test('readDolibarrConf names its problems without throwing', () => {
    const conf = readDolibarrConf(`<?php $dolibarr_main_db_type='oci8'; $dolibarr_main_db_port='0';`);
    assert.equal(conf.dialect, undefined);
    assert.equal(conf.problems.length, 2, conf.problems.map((p) => p.message).join('\n'));
  });
});

describe('loadConfig: the PDF seal', () => {
  test('defaults: the key beside the state, no authority, 10 s to wait, a look every 30 s', () => {
    const config = loadConfig({ STATE_DIR: '/var/lib/fieldreport' });
    assert.equal(config.seal.keyFile, '/var/lib/fieldreport/seal.pem');
    assert.equal(config.seal.p12File, undefined);
    assert.equal(config.seal.tsaUrl, undefined);
    assert.equal(config.seal.tsaTimeoutSeconds, 10);
    assert.equal(config.seal.pollSeconds, 30);
    assert.equal(config.seal.checkBudgetMs, 1500);
    assert.equal(config.seal.checkReceiveSeconds, 60);
  });

  test("the public PDF check's time to receive a file: PDF_CHECK_RECEIVE_SECONDS from 1 to 3600 s", () => {
    assert.equal(loadConfig({ PDF_CHECK_RECEIVE_SECONDS: '20' }).seal.checkReceiveSeconds, 20);
    for (const bad of ['0', '3601', 'eine Minute'])
      assert.ok(listed(configError({ PDF_CHECK_RECEIVE_SECONDS: bad }), /PDF_CHECK_RECEIVE_SECONDS/), bad);
  });

  test("the public PDF check's budget: PDF_CHECK_BUDGET_MS from 10 to 60000 ms", () => {
    assert.equal(loadConfig({ PDF_CHECK_BUDGET_MS: '800' }).seal.checkBudgetMs, 800);
    for (const bad of ['5', '60001', 'kurz']) assert.ok(listed(configError({ PDF_CHECK_BUDGET_MS: bad }), /PDF_CHECK_BUDGET_MS/), bad);
  });

  test('a time-stamp authority with credentials, and a PKCS#12 file, are taken as given', () => {
    const config = loadConfig({
      TSA_URL: 'https://freetsa.org/tsr',
      TSA_USERNAME: 'u',
      TSA_PASSWORD: 'p',
      TSA_TIMEOUT_SECONDS: '3',
      SEAL_P12_FILE: '/etc/fieldreport/seal.p12',
      SEAL_P12_PASSWORD: 'x',
    });
    assert.deepEqual(
      [config.seal.tsaUrl, config.seal.tsaUsername, config.seal.tsaPassword, config.seal.tsaTimeoutSeconds],
      ['https://freetsa.org/tsr', 'u', 'p', 3],
    );
    assert.equal(config.seal.p12File, '/etc/fieldreport/seal.p12');
  });

  test('an authority that is no http(s) address and a wait of 0 or a word are problems naming the setting', () => {
    const error = configError({ TSA_URL: 'ftp://tsa.example.com', TSA_TIMEOUT_SECONDS: '0', TSA_POLL_SECONDS: 'oft' });
    assert.ok(listed(error, /TSA_URL/, /ftp:/), error.problems.join('\n'));
    assert.ok(listed(error, /TSA_TIMEOUT_SECONDS/), error.problems.join('\n'));
    assert.ok(listed(error, /TSA_POLL_SECONDS/), error.problems.join('\n'));
  });
});
