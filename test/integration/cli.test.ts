/**
 * The command line, run in-process: main(argv, env) with a literal environment, its output
 * captured. Database commands run on every dialect; demo data is checked row by row and file by
 * file (thumbnails measured with sharp), and its logins tried through the API.
 */
import assert from 'node:assert/strict';
import { readItems } from '../../src/modules/pages/checklist.js';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { unzipSync } from 'fflate';
import { sql } from 'kysely';
import sharp from 'sharp';
import { buildApp } from '../../src/app.js';
import { ConfigError, loadConfig, type Config, type DatabaseConfig, type Dialect } from '../../src/config.js';
import { createDb, type DbHandle } from '../../src/db/database.js';
import { fromDbDateTime } from '../../src/db/dialect.js';
import { INSTANCE_ID_FILE, resolveInstanceId } from '../../src/instance-id.js';
import { createTokenService } from '../../src/modules/auth/token.js';
import { assertError } from '../helpers/assertions.js';
import { TEST_INSTANCE_ID } from '../helpers/build-app.js';
import { databaseUrl, runCli as run, type RunResult } from '../helpers/cli.js';
import { createTestDatabase, testDialects } from '../helpers/databases.js';
import { makeDolibarrDatabase } from '../helpers/dolibarr-schema.js';
import { registerProbes } from '../helpers/probes.js';

interface Setup {
  env: NodeJS.ProcessEnv;
  dir: string;
  dataRoot: string;
  stateDir: string;
  database: DatabaseConfig;
  cleanup(): Promise<void>;
}

const cleanups: Array<() => Promise<void>> = [];

/** A new, empty database of the dialect, and folders for documents and state. */
async function setup(dialect: Dialect): Promise<Setup> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-cli-'));
  const database = await createTestDatabase(dialect);
  const dataRoot = path.join(dir, 'documents');
  const stateDir = path.join(dir, 'state');
  const env: NodeJS.ProcessEnv = {
    DATABASE_URL: databaseUrl(database.config),
    DATA_ROOT: dataRoot,
    STATE_DIR: stateDir,
    LOG_LEVEL: 'silent',
  };
  // On a database server the id is required (shared by every process); SQLite standalone makes one.
  if (dialect !== 'sqlite') env.INSTANCE_UNIQUE_ID = TEST_INSTANCE_ID;
  const cleanup = async () => {
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  };
  cleanups.push(cleanup);
  return { env, dir, dataRoot, stateDir, database: database.config, cleanup };
}

/** The environment of a command that never reaches a database. */
function noDbEnv(): NodeJS.ProcessEnv {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-cli-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  return {
    DATABASE_URL: `sqlite:${path.join(dir, 'db.sqlite')}`,
    DATA_ROOT: path.join(dir, 'documents'),
    STATE_DIR: path.join(dir, 'state'),
    LOG_LEVEL: 'silent',
  };
}

/** The service as `serve` would build it from the same environment, for logins through the API. */
async function withApp<T>(env: NodeJS.ProcessEnv, fn: (app: FastifyInstance, handle: DbHandle, config: Config) => Promise<T>): Promise<T> {
  const config = resolveInstanceId(loadConfig(env));
  const handle = createDb(config, { poolSize: 2 });
  try {
    const app = await buildApp(config, { db: handle, logger: false });
    try {
      return await fn(app, handle, config);
    } finally {
      await app.close();
    }
  } finally {
    await handle.destroy();
  }
}

function login(app: FastifyInstance, loginName: string, password: string) {
  return app.inject({ method: 'POST', url: '/api/auth.php', payload: { login: loginName, password } });
}

async function ok(argv: string[], env: NodeJS.ProcessEnv): Promise<RunResult> {
  const result = await run(argv, env);
  assert.equal(result.code, 0, `${argv.join(' ')}: exit ${result.code}\n${result.stderr}`);
  return result;
}

const noStack = (text: string) => assert.doesNotMatch(text, /\n\s+at .+\(.+:\d+:\d+\)/, 'no stack trace');

describe('cli without a database', () => {
  after(async () => {
    for (const c of cleanups.splice(0)) await c();
  });

  test('--help exits 0 and lists the commands', async () => {
    const { code, stdout, stderr } = await run(['--help'], noDbEnv());
    assert.equal(code, 0);
    assert.equal(stderr, '');
    for (const word of ['serve', '--workers N', 'WORKERS', 'migrate', 'demo', 'user add', 'user passwd', 'user grant'])
      assert.ok(stdout.includes(word), word);
    assert.equal((await run(['-h'], noDbEnv())).code, 0);
  });

  test('--version prints the version', async () => {
    const { code, stdout } = await run(['--version'], noDbEnv());
    assert.equal(code, 0);
    assert.match(stdout, /^\d+\.\d+\.\d+\n$/);
  });

  test('no command prints the help and exits 2', async () => {
    const { code, stdout } = await run([], noDbEnv());
    assert.equal(code, 2);
    assert.match(stdout, /Usage:/);
  });

  test('an unknown command exits 2 and names it', async () => {
    const { code, stderr } = await run(['frobnicate'], noDbEnv());
    assert.equal(code, 2);
    assert.match(stderr, /unknown command 'frobnicate'/);
    noStack(stderr);
  });

  test('an unknown flag exits 2 with a message and no stack', async () => {
    const { code, stderr, stdout } = await run(['migrate', '--frobnicate'], noDbEnv());
    assert.equal(code, 2);
    assert.match(stderr, /--frobnicate/);
    assert.equal(stdout, '');
    noStack(stderr);
  });

  test('bad configuration exits 2 and lists every problem on stderr', async () => {
    const { code, stderr } = await run(['migrate'], { ...noDbEnv(), DATABASE_URL: 'ftp://x', PORT: 'abc' });
    assert.equal(code, 2);
    assert.match(stderr, /DATABASE_URL: scheme 'ftp' is not supported/);
    assert.match(stderr, /PORT must be a whole number/);
    noStack(stderr);
  });

  test('serve with a bad WORKERS or --workers exits 2 naming the value, before touching the database', async () => {
    const cases: Array<{ argv: string[]; env: NodeJS.ProcessEnv; named: string }> = [
      { argv: ['serve'], env: { WORKERS: '0' }, named: '0' },
      { argv: ['serve'], env: { WORKERS: 'abc' }, named: 'abc' },
      { argv: ['serve', '--workers', '0'], env: {}, named: '0' },
      // The flag wins over the environment, and is checked as it is.
      { argv: ['serve', '--workers', 'many'], env: { WORKERS: '2' }, named: 'many' },
    ];
    for (const { argv, env, named } of cases) {
      const base = noDbEnv();
      const { code, stdout, stderr } = await run(argv, { ...base, ...env });
      assert.equal(code, 2, `${argv.join(' ')} ${JSON.stringify(env)}: ${stderr}`);
      assert.match(
        stderr,
        new RegExp(`WORKERS \\(--workers\\) must be a whole number from 1 to 64 or auto \\(one per core\\), got '${named}'`),
      );
      assert.equal(stdout, '');
      noStack(stderr);
      assert.equal(existsSync(base.DATABASE_URL!.slice('sqlite:'.length)), false, 'no database made');
    }
  });

  test('a DATABASE_URL with a malformed % escape exits 2 with a message, not a crash', async () => {
    const result = await run(['migrate'], { ...noDbEnv(), DATABASE_URL: 'mysql://doli:50%off@127.0.0.1/dolibarr' }).catch(
      (error: Error) => ({ code: `threw ${error.name}: ${error.message}`, stdout: '', stderr: '' }),
    );
    assert.equal(result.code, 2);
    assert.match(result.stderr, /DATABASE_URL/);
  });

  test('a runtime failure (the database cannot be reached) exits 1 with one line on stderr, no stack', async () => {
    // Port 1 on the loopback: nothing listens, the connection is refused at once.
    const result = await run(['migrate'], { ...noDbEnv(), DATABASE_URL: 'mysql://root@127.0.0.1:1/x' }).catch((error: Error) => ({
      code: `threw ${error.name}: ${error.message}`,
      stdout: '',
      stderr: '',
    }));
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /^fieldreport: \S[^\n]*\n$/, `one line starting 'fieldreport:', got ${JSON.stringify(result.stderr)}`);
    noStack(result.stderr);
    assert.doesNotMatch(result.stderr, /\.ts:\d+|node_modules/);
    assert.equal(result.stdout, '');
  });
});

describe('instance id', () => {
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const stateDir = () => {
    const d = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-state-'));
    dirs.push(d);
    return path.join(d, 'state', 'nested');
  };

  test('is generated once into STATE_DIR/instance_unique_id (32 hex, mode 0600) and kept', () => {
    const dir = stateDir();
    const config = loadConfig({ STATE_DIR: dir });
    assert.equal(config.instanceUniqueId, undefined);
    const first = resolveInstanceId(config);
    assert.match(first.instanceUniqueId!, /^[0-9a-f]{32}$/);
    const file = path.join(dir, INSTANCE_ID_FILE);
    assert.equal(readFileSync(file, 'utf8').trim(), first.instanceUniqueId);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.ok(Object.isFrozen(first));
    const second = resolveInstanceId(loadConfig({ STATE_DIR: dir }));
    assert.equal(second.instanceUniqueId, first.instanceUniqueId);
    assert.notEqual(resolveInstanceId(loadConfig({ STATE_DIR: stateDir() })).instanceUniqueId, first.instanceUniqueId);
  });

  test('a configured id is used as it is, and no file is written', () => {
    const dir = stateDir();
    const config = loadConfig({ STATE_DIR: dir, INSTANCE_UNIQUE_ID: 'abcdefabcdefabcdefabcdef' });
    assert.equal(resolveInstanceId(config), config);
    assert.equal(existsSync(path.join(dir, INSTANCE_ID_FILE)), false);
  });

  test('an unusable file is an error, not a silently weak secret', () => {
    const dir = stateDir();
    resolveInstanceId(loadConfig({ STATE_DIR: dir }));
    writeFileSync(path.join(dir, INSTANCE_ID_FILE), 'short\n');
    assert.throws(() => resolveInstanceId(loadConfig({ STATE_DIR: dir })), /instance id/);
  });
});

/** Every file below a folder, relative to it. */
function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true }) as string[]).filter((f) => statSync(path.join(dir, f)).isFile()).sort();
}

const md5 = (data: Buffer | string) => createHash('md5').update(data).digest('hex');

for (const dialect of testDialects()) {
  describe(`cli migrate and user [${dialect}]`, () => {
    afterEach(async () => {
      for (const c of cleanups.splice(0)) await c();
    });

    test('migrate twice exits 0; the second run changes nothing', async () => {
      const s = await setup(dialect);
      const first = await ok(['migrate'], s.env);
      assert.match(first.stdout, /applied 0001-dolibarr-core, 0002-bericht-module/);
      assert.match(first.stdout, /rights registered: read, write, delete, admin/);
      assert.match(first.stdout, /standalone/);
      const second = await ok(['migrate'], s.env);
      assert.match(second.stdout, /up to date; rights present/);
      assert.doesNotMatch(first.stdout + second.stdout, /:[^@/]*@/, 'no password in the printed database');
    });

    test('user add, then log in through the API with the rights given', async () => {
      const s = await setup(dialect);
      await ok(['migrate'], s.env);
      const added = await ok(
        ['user', 'add', 'bob', '--password', 's3cret', '--rights', 'read,write', '--firstname', 'Bob', '--lastname', 'Baumann'],
        s.env,
      );
      assert.match(added.stdout, /User 'bob' added \(id \d+\)/);
      assert.doesNotMatch(added.stdout, /s3cret/);
      await withApp(s.env, async (app, handle) => {
        const res = await login(app, 'bob', 's3cret');
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json();
        assert.deepEqual(body.perms, { read: true, write: true, delete: false, admin: false });
        assert.equal(body.user.login, 'bob');
        assert.equal(body.user.name, 'Bob Baumann');
        assert.equal(body.user.admin, false);
        const row = await handle.db
          .selectFrom('user')
          .select(['pass_crypted', 'pass', 'firstname', 'lastname', 'statut', 'entity'])
          .where('login', '=', 'bob')
          .executeTakeFirstOrThrow();
        assert.ok(row.pass_crypted?.startsWith('$2y$10$'), row.pass_crypted ?? 'null');
        assert.equal(row.pass, null);
        assert.equal(Number(row.statut), 1);
        assert.equal(Number(row.entity), 1);
        assert.equal((await login(app, 'bob', 'wrong')).statusCode, 401);
      });
    });

    test('user add --admin with every right', async () => {
      const s = await setup(dialect);
      await ok(['migrate'], s.env);
      await ok(
        [
          'user',
          'add',
          'chefin',
          '--password',
          'chef1234',
          '--admin',
          '--rights',
          'read,write,delete,admin',
          '--email',
          'chefin@example.com',
        ],
        s.env,
      );
      await withApp(s.env, async (app) => {
        const res = await login(app, 'chefin', 'chef1234');
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json().perms, { read: true, write: true, delete: true, admin: true });
        assert.equal(res.json().user.admin, true);
        assert.equal((await login(app, 'chefin@example.com', 'chef1234')).statusCode, 200, 'login by e-mail address');
      });
    });

    test('user add with a login that exists exits 1 with a clear message', async () => {
      const s = await setup(dialect);
      await ok(['migrate'], s.env);
      await ok(['user', 'add', 'bob', '--password', 's3cret'], s.env);
      const again = await run(['user', 'add', 'bob', '--password', 'other1'], s.env);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /login 'bob' exists already/);
      noStack(again.stderr);
      await withApp(s.env, async (app, handle) => {
        const rows = await handle.db.selectFrom('user').select('rowid').where('login', '=', 'bob').execute();
        assert.equal(rows.length, 1);
      });
    });

    test('user add with an unknown right exits 1 and adds no user', async () => {
      const s = await setup(dialect);
      await ok(['migrate'], s.env);
      const result = await run(['user', 'add', 'carol', '--password', 'carol123', '--rights', 'read,fly'], s.env);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /unknown right\(s\): fly \(known: read, write, delete, admin\)/);
      await withApp(s.env, async (_app, handle) => {
        assert.equal(await handle.db.selectFrom('user').select('rowid').where('login', '=', 'carol').executeTakeFirst(), undefined);
      });
    });

    test('user add refuses a bad login and a short password (exit 1)', async () => {
      const s = await setup(dialect);
      await ok(['migrate'], s.env);
      assert.equal((await run(['user', 'add', 'bad login', '--password', 'long-enough'], s.env)).code, 1);
      const short = await run(['user', 'add', 'dave', '--password', 'abc'], s.env);
      assert.equal(short.code, 1);
      assert.match(short.stderr, /at least 4/);
      assert.equal((await run(['user', 'add'], s.env)).code, 1, 'LOGIN missing');
      assert.equal((await run(['user', 'frob', 'bob'], s.env)).code, 1, 'unknown user subcommand');
    });

    test('user passwd: the old password fails, the new works, pass and pass_temp are NULL', async () => {
      const s = await setup(dialect);
      await ok(['migrate'], s.env);
      await ok(['user', 'add', 'bob', '--password', 's3cret', '--rights', 'read'], s.env);
      // As a Dolibarr that once kept clear text, with a pending "forgot password" value.
      await withApp(s.env, async (_app, handle) => {
        await handle.db.updateTable('user').set({ pass: 's3cret', pass_temp: 'pending-reset' }).where('login', '=', 'bob').execute();
      });
      const changed = await ok(['user', 'passwd', 'bob', '--password', 'neu123'], s.env);
      assert.match(changed.stdout, /Password of 'bob' changed/);
      await withApp(s.env, async (app, handle) => {
        assert.equal((await login(app, 'bob', 's3cret')).statusCode, 401);
        assert.equal((await login(app, 'bob', 'neu123')).statusCode, 200);
        const row = await handle.db
          .selectFrom('user')
          .select(['pass', 'pass_temp', 'pass_crypted'])
          .where('login', '=', 'bob')
          .executeTakeFirstOrThrow();
        assert.equal(row.pass, null);
        assert.equal(row.pass_temp, null);
        assert.ok(row.pass_crypted?.startsWith('$2y$10$'));
      });
      const unknown = await run(['user', 'passwd', 'nobody', '--password', 'neu123'], s.env);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /no user with login 'nobody'/);
    });

    test('user grant adds a right; an unknown right exits 1 listing the known ones', async () => {
      const s = await setup(dialect);
      await ok(['migrate'], s.env);
      await ok(['user', 'add', 'bob', '--password', 's3cret', '--rights', 'read,write'], s.env);
      const granted = await ok(['user', 'grant', 'bob', 'delete'], s.env);
      assert.match(granted.stdout, /Granted to 'bob': delete/);
      const again = await ok(['user', 'grant', 'bob', 'read,delete'], s.env);
      assert.match(again.stdout, /nothing new/);
      await withApp(s.env, async (app, handle) => {
        const res = await login(app, 'bob', 's3cret');
        assert.equal(res.statusCode, 200);
        assert.deepEqual(res.json().perms, { read: true, write: true, delete: true, admin: false });
        const { rows } = await sql<{ n: number | string }>`select count(*) as n from llx_user_rights`.execute(handle.db);
        assert.equal(Number(rows[0]!.n), 3, 'no duplicate user_rights rows');
      });
      const flying = await run(['user', 'grant', 'bob', 'flying'], s.env);
      assert.equal(flying.code, 1);
      assert.match(flying.stderr, /flying/);
      assert.match(flying.stderr, /known: read, write, delete, admin/);
      noStack(flying.stderr);
    });

    test('user add with a right named twice (read,read,write) keeps the user and gives read and write', async () => {
      // Inside the add transaction the second 'read' insert used to fail; on PostgreSQL that voided
      // the transaction, so the user was rolled back while success was printed.
      const s = await setup(dialect);
      await ok(['migrate'], s.env);
      const added = await ok(['user', 'add', 'bob', '--password', 's3cret', '--rights', 'read,read,write'], s.env);
      assert.match(added.stdout, /User 'bob' added \(id \d+\)/);
      await withApp(s.env, async (app, handle) => {
        const row = await handle.db.selectFrom('user').select('rowid').where('login', '=', 'bob').executeTakeFirst();
        assert.ok(row, 'the user exists after the command');
        const rights = await handle.db.selectFrom('user_rights').select('fk_id').where('fk_user', '=', Number(row.rowid)).execute();
        assert.equal(rights.length, 2, 'one user_rights row per right');
        const res = await login(app, 'bob', 's3cret');
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json().perms, { read: true, write: true, delete: false, admin: false });
      });
      const again = await ok(['user', 'grant', 'bob', 'read'], s.env);
      assert.match(again.stdout, /nothing new/);
      assert.equal(again.stderr, '');
    });

    test('user passwd voids the tokens issued before it (flagdelsessionsbefore about now, in UTC as Dolibarr writes it)', async () => {
      const s = await setup(dialect);
      await ok(['migrate'], s.env);
      await ok(['user', 'add', 'bob', '--password', 's3cret', '--rights', 'read'], s.env);
      const probe = (app: FastifyInstance, token: string) =>
        app.inject({ method: 'GET', url: '/api/probe.php', headers: { authorization: `Bearer ${token}` } });

      // A token of bob's issued a minute ago (Dolibarr spares sessions of the last 5 seconds).
      const oldToken = await withApp(s.env, async (app, handle, config) => {
        registerProbes(app);
        const id = Number((await handle.db.selectFrom('user').select('rowid').where('login', '=', 'bob').executeTakeFirstOrThrow()).rowid);
        const perms = { read: true, write: false, delete: false, admin: false };
        const { token } = await createTokenService(config.instanceUniqueId!).sign(
          { id, login: 'bob', name: 'bob', perms },
          Math.floor(Date.now() / 1000) - 60,
        );
        const before = await probe(app, token);
        assert.equal(before.statusCode, 200, `the token works before the change: ${before.body}`);
        return token;
      });

      const changedAt = Math.floor(Date.now() / 1000);
      await ok(['user', 'passwd', 'bob', '--password', 'neu123'], s.env);

      await withApp(s.env, async (app, handle) => {
        registerProbes(app);
        const row = await handle.db.selectFrom('user').select('flagdelsessionsbefore').where('login', '=', 'bob').executeTakeFirstOrThrow();
        const flag = fromDbDateTime(row.flagdelsessionsbefore);
        assert.ok(flag !== null, 'flagdelsessionsbefore is set');
        assert.ok(Math.abs(flag - changedAt) <= 3, `flagdelsessionsbefore ${row.flagdelsessionsbefore} is about ${changedAt}`);

        assertError(await probe(app, oldToken), 401, 'AUTH_TOKEN_INVALID');
        const fresh = await login(app, 'bob', 'neu123');
        assert.equal(fresh.statusCode, 200, fresh.body);
        assert.equal((await probe(app, fresh.json().token)).statusCode, 200, 'a token issued after the change works');
      });
    });

    test('resolving the instance id as serve does: a ConfigError naming INSTANCE_UNIQUE_ID on a server database', async () => {
      const s = await setup(dialect);
      const env = { ...s.env };
      delete env.INSTANCE_UNIQUE_ID;
      const config = loadConfig(env);
      if (dialect === 'sqlite') {
        // Standalone SQLite makes its own, once.
        assert.match(resolveInstanceId(config).instanceUniqueId!, /^[0-9a-f]{32}$/);
        return;
      }
      assert.throws(
        () => resolveInstanceId(config),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${(error as Error)?.name}: ${(error as Error)?.message}`);
          assert.ok(
            error.problems.some((p) => /INSTANCE_UNIQUE_ID/.test(p)),
            error.problems.join('\n'),
          );
          return true;
        },
      );
      assert.equal(existsSync(path.join(s.stateDir, INSTANCE_ID_FILE)), false, 'no id file is generated for a server database');
    });
  });

  describe(`cli demo [${dialect}]`, () => {
    afterEach(async () => {
      for (const c of cleanups.splice(0)) await c();
    });

    test('demo fills a new standalone database; logins work; a second run duplicates nothing', async () => {
      const s = await setup(dialect);
      const result = await ok(['demo'], s.env);
      assert.match(result.stdout, /Demo data written/);
      assert.match(result.stdout, /password: demo/);
      for (const l of ['techniker', 'meister', 'admin', 'buero']) assert.ok(result.stdout.includes(l), l);

      const counts = await withApp(s.env, async (app, handle, config) => {
        const db = handle.db;
        const users = await db.selectFrom('user').select(['rowid', 'login', 'statut', 'admin']).execute();
        assert.deepEqual(users.map((u) => u.login).sort(), ['admin', 'buero', 'ehemalig', 'gast', 'meister', 'techniker']);
        assert.equal(Number(users.find((u) => u.login === 'ehemalig')!.statut), 0);
        assert.equal(Number(users.find((u) => u.login === 'admin')!.admin), 1);
        const userIds = new Set(users.map((u) => Number(u.rowid)));

        const societes = await db.selectFrom('societe').select(['rowid', 'client', 'fournisseur', 'nom']).execute();
        const customers = societes.filter((x) => [1, 2, 3].includes(Number(x.client)));
        const suppliers = societes.filter((x) => Number(x.client) === 0 && Number(x.fournisseur) === 1);
        assert.ok(customers.length >= 3, 'customers');
        assert.deepEqual([...new Set(customers.map((c) => Number(c.client)))].sort(), [1, 2, 3], 'client 1, 2 and 3 occur');
        assert.ok(suppliers.length >= 1, 'suppliers');
        assert.equal(customers.length + suppliers.length, societes.length);
        const customerIds = new Set(customers.map((c) => Number(c.rowid)));

        const orders = await db
          .selectFrom('commande')
          .select(['rowid', 'ref', 'ref_client', 'fk_user_author', 'fk_soc', 'fk_statut'])
          .execute();
        assert.ok(orders.length >= 3);
        for (const o of orders) {
          assert.ok(o.ref_client, `${o.ref} has ref_client`);
          assert.ok(userIds.has(Number(o.fk_user_author)), `${o.ref} fk_user_author is a user`);
          assert.ok(customerIds.has(Number(o.fk_soc)), `${o.ref} belongs to a customer`);
        }
        assert.equal(new Set(orders.map((o) => o.ref)).size, orders.length, 'order refs are unique');
        const orderIds = new Set(orders.map((o) => Number(o.rowid)));

        const invoices = await db.selectFrom('facture').select(['rowid', 'ref', 'fk_soc']).execute();
        const proposals = await db.selectFrom('propal').select(['rowid', 'ref', 'fk_soc']).execute();
        assert.ok(invoices.length > 0 && proposals.length > 0);
        const links = await db.selectFrom('element_element').select(['fk_source', 'sourcetype', 'fk_target', 'targettype']).execute();
        const invoiceIds = new Set(invoices.map((x) => Number(x.rowid)));
        const proposalIds = new Set(proposals.map((x) => Number(x.rowid)));
        assert.ok(links.some((l) => l.sourcetype === 'commande' && l.targettype === 'facture'));
        assert.ok(links.some((l) => l.sourcetype === 'propal' && l.targettype === 'commande'));
        const exists = (type: string, id: number) =>
          type === 'commande'
            ? orderIds.has(id)
            : type === 'facture'
              ? invoiceIds.has(id)
              : type === 'propal'
                ? proposalIds.has(id)
                : false;
        for (const l of links) {
          assert.ok(exists(l.sourcetype, Number(l.fk_source)), `link source ${l.sourcetype} ${l.fk_source}`);
          assert.ok(exists(l.targettype, Number(l.fk_target)), `link target ${l.targettype} ${l.fk_target}`);
        }

        // Photos: files in DATA_ROOT/commande/<ref>/, thumbnails beside them, an ecm_files row each.
        const salt = (await db.selectFrom('const').select('value').where('name', '=', 'MAIN_SECURITY_SALT').executeTakeFirstOrThrow())
          .value;
        const ecm = await db
          .selectFrom('ecm_files')
          .select(['ref', 'label', 'filepath', 'filename', 'gen_or_uploaded', 'src_object_type', 'src_object_id', 'entity'])
          .execute();
        assert.ok(ecm.length > 0, 'photos are indexed');
        const refById = new Map(orders.map((o) => [Number(o.rowid), o.ref]));
        for (const row of ecm) {
          const orderRef = refById.get(Number(row.src_object_id));
          assert.equal(row.src_object_type, 'commande');
          assert.equal(row.filepath, `commande/${orderRef}`);
          assert.equal(row.gen_or_uploaded, 'uploaded');
          assert.equal(Number(row.entity), config.entity);
          const file = path.join(s.dataRoot, row.filepath, row.filename);
          const bytes = readFileSync(file);
          assert.equal(row.label, md5(bytes), `label of ${row.filename} is the md5 of its bytes`);
          assert.equal(row.ref, md5(`${salt}${row.filepath}/${row.filename}`));
          const ext = path.extname(row.filename);
          const base = path.basename(row.filename, ext);
          const original = await sharp(bytes).metadata();
          const small = await sharp(path.join(path.dirname(file), 'thumbs', `${base}_small${ext}`)).metadata();
          const mini = await sharp(path.join(path.dirname(file), 'thumbs', `${base}_mini${ext}`)).metadata();
          assert.equal(small.format, original.format);
          assert.equal(mini.format, original.format);
          assert.ok(small.width! <= 480 && small.height! <= 270, `small ${small.width}x${small.height}`);
          assert.ok(mini.width! <= 128 && mini.height! <= 72, `mini ${mini.width}x${mini.height}`);
          assert.ok(small.width === 480 || small.height === 270, 'small fills its box on one side');
          assert.ok(mini.width === 128 || mini.height === 72, 'mini fills its box on one side');
          const ratio = original.width! / original.height!;
          assert.ok(Math.abs(small.width! / small.height! - ratio) < 0.02, 'aspect ratio kept');
        }
        assert.equal(new Set(ecm.map((r) => `${r.filepath}/${r.filename}`)).size, ecm.length);
        const photoFiles = listFiles(path.join(s.dataRoot, 'commande')).filter((f) => !f.includes(`${path.sep}thumbs${path.sep}`));
        assert.deepEqual(
          photoFiles,
          ecm.map((r) => path.join(r.filepath.slice('commande/'.length), r.filename)).sort(),
          'no file without a row, no row without a file',
        );
        assert.equal(listFiles(s.dataRoot).filter((f) => f.endsWith('.tmp')).length, 0, 'no temporary files left');

        // The draft report shows photos of its own order, that order has the material lines, the
        // template's steps are a checklist with measured values and limits (the draft starts with the same
        // checklist, unanswered), and the cover-sheet template carries the company logo.
        const berichte = await db.selectFrom('bericht').select(['rowid', 'fk_element', 'is_template', 'odt_template']).execute();
        const draft = berichte.find((r) => Number(r.is_template) === 0)!;
        const template = berichte.find((r) => Number(r.is_template) === 1)!;
        assert.ok(draft && template && orderIds.has(Number(draft.fk_element)), 'a draft report on an order, and a template');
        const pagesOf = (id: number) =>
          db.selectFrom('bericht_page').select(['layout', 'source_path', 'source_path_2']).where('fk_bericht', '=', id).execute();
        const sources = (await pagesOf(draft.rowid))
          .flatMap((p) => [p.source_path, p.source_path_2])
          .filter((x): x is string => Boolean(x));
        assert.ok(sources.length > 0, 'the draft report has photo pages');
        for (const source of sources) {
          assert.ok(
            ecm.some((r) => `${r.filepath}/${r.filename}` === source && Number(r.src_object_id) === Number(draft.fk_element)),
            `${source} is a photo of the report's order`,
          );
        }
        const checklistOf = async (id: number) => {
          const row = await db
            .selectFrom('bericht_page')
            .select(['checklist'])
            .where('fk_bericht', '=', id)
            .where('layout', '=', 'checklist')
            .executeTakeFirst();
          return readItems(row?.checklist);
        };
        const steps = await checklistOf(template.rowid);
        assert.ok(
          steps.length >= 10 && steps.filter((i) => i.unit && (i.lower !== null || i.upper !== null)).length >= 4,
          `the template's checklist: ${JSON.stringify(steps)}`,
        );
        assert.deepEqual(
          (await checklistOf(draft.rowid)).map((i) => [i.label, i.state]),
          steps.map((i) => [i.label, 'open']),
          "the draft starts with the template's checklist",
        );
        const material = await db.selectFrom('bericht_material').select(['element_type', 'fk_element', 'qty']).execute();
        assert.ok(
          material.length > 0 &&
            material.every((m) => m.element_type === 'commande' && Number(m.fk_element) === Number(draft.fk_element) && Number(m.qty) > 0),
          "material lines on the report's order",
        );
        // The catalogue and the technician's van: parts on sale with barcodes, his stock beside them.
        const techLogin = (await login(app, 'techniker', 'demo')).json() as { token: string };
        const catalogue = (
          await app.inject({ method: 'GET', url: '/api/products.php?limit=500', headers: { authorization: `Bearer ${techLogin.token}` } })
        ).json() as { items: Array<{ ref: string; barcode: string | null; type: string; van_stock: number | null; on_sale: boolean }> };
        const byRef = new Map(catalogue.items.map((p) => [p.ref, p]));
        assert.ok(catalogue.items.length >= 10 && catalogue.items.every((p) => p.on_sale), 'parts on sale');
        assert.equal(byRef.get('DICHT-BR-01')?.van_stock, 6, 'the van carries 6 seal kits');
        assert.equal(byRef.get('DICHT-BR-01')?.barcode, '4260123450014');
        assert.equal(byRef.get('ARBEIT-STD')?.type, 'service', 'a labour service');
        assert.ok(!byRef.has('DICHT-ALT'), 'what is no longer sold is not offered');
        const cover = unzipSync(readFileSync(path.join(s.dataRoot, 'doctemplates', 'bericht', draft.odt_template!)));
        assert.deepEqual(
          Buffer.from(cover['Pictures/logo.png']!),
          readFileSync(path.join(s.dataRoot, 'mycompany', 'logos', 'logo.png')),
          'the cover shows the company logo',
        );

        // Logins.
        const techniker = await login(app, 'techniker', 'demo');
        assert.equal(techniker.statusCode, 200, techniker.body);
        assert.equal(techniker.json().perms.read, true);
        for (const l of ['meister', 'admin', 'buero']) assert.equal((await login(app, l, 'demo')).statusCode, 200, l);
        const gast = await login(app, 'gast', 'demo');
        assert.equal(gast.statusCode, 403);
        assert.equal(gast.json().error, 'Keine Bericht-Rechte');
        const ehemalig = await login(app, 'ehemalig', 'demo');
        assert.equal(ehemalig.statusCode, 403);
        assert.equal(ehemalig.json().error, 'User deaktiviert');
        assert.equal((await login(app, 'techniker', 'falsch')).statusCode, 401);

        const tables = [
          'user',
          'societe',
          'commande',
          'facture',
          'propal',
          'element_element',
          'ecm_files',
          'user_rights',
          'usergroup',
          'usergroup_rights',
          'usergroup_user',
          'const',
          'rights_def',
        ];
        const n: Record<string, number> = {};
        for (const t of tables) {
          const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(`llx_${t}`)}`.execute(db);
          n[t] = Number(rows[0]!.n);
        }
        return n;
      });

      const files = listFiles(s.dataRoot);
      const again = await ok(['demo'], s.env);
      assert.match(again.stdout, /already present/);
      await withApp(s.env, async (_app, handle) => {
        for (const [t, expected] of Object.entries(counts)) {
          const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(`llx_${t}`)}`.execute(handle.db);
          assert.equal(Number(rows[0]!.n), expected, `llx_${t} after the second demo`);
        }
      });
      assert.deepEqual(listFiles(s.dataRoot), files);
    });

    test('demo on a Dolibarr database exits 1 and writes nothing', async () => {
      const s = await setup(dialect);
      await makeDolibarrDatabase(s.database, { rows: false });
      const result = await run(['demo'], s.env);
      assert.equal(result.code, 1, result.stdout + result.stderr);
      assert.match(result.stderr, /refused/);
      noStack(result.stderr);
      const handle = createDb({ database: s.database, dbPrefix: 'llx_' }, { poolSize: 1 });
      try {
        const users = await sql<{ n: number | string }>`select count(*) as n from llx_user`.execute(handle.db);
        assert.equal(Number(users.rows[0]!.n), 0);
        const consts = await handle.db.selectFrom('const').select('name').execute();
        assert.deepEqual(consts, [], 'no demo marker, no company data');
        const tables = (await handle.db.introspection.getTables()).map((t) => t.name);
        assert.ok(!tables.includes('llx_societe') && !tables.includes('llx_commande'));
      } finally {
        await handle.destroy();
      }
      assert.deepEqual(listFiles(s.dataRoot), [], 'no files');
    });

    test('demo for ENTITY=2 puts files under DATA_ROOT/2/ and rows in entity 2; its logins work', async () => {
      const s = await setup(dialect);
      const env = { ...s.env, ENTITY: '2' };
      await ok(['demo'], env);
      assert.deepEqual(readdirSync(s.dataRoot), ['2']);
      await withApp(env, async (app, handle) => {
        const ecm = await handle.db.selectFrom('ecm_files').select(['filepath', 'filename', 'entity']).execute();
        assert.ok(ecm.length > 0);
        for (const row of ecm) {
          assert.equal(Number(row.entity), 2);
          assert.match(row.filepath, /^2\/commande\/[^/]+$/);
          assert.ok(existsSync(path.join(s.dataRoot, row.filepath, row.filename)));
        }
        const rights = await handle.db.selectFrom('rights_def').select('entity').where('module', '=', 'bericht').execute();
        assert.deepEqual([...new Set(rights.map((r) => Number(r.entity)))], [2]);
        assert.equal((await login(app, 'techniker', 'demo')).statusCode, 200);
      });
    });

    test('demo on a standalone database that has users exits 1', async () => {
      const s = await setup(dialect);
      await ok(['migrate'], s.env);
      await ok(['user', 'add', 'bob', '--password', 's3cret', '--rights', 'read'], s.env);
      const result = await run(['demo'], s.env);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /refused/);
      assert.deepEqual(listFiles(s.dataRoot), []);
    });
  });
}
