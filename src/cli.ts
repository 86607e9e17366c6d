/**
 * The `fieldreport` command line.
 */
import { parseArgs } from 'node:util';
import { ConfigError, describeDatabase, loadConfig, type Config } from './config.js';
import { createDb } from './db/database.js';
import { migrate } from './db/migrate.js';
import { DEMO_PASSWORD, demoLogins } from './demo/logins.js';
import { UserAdminError, createUserAdmin, parseRights } from './modules/auth/user-admin.service.js';
import { VERSION } from './version.js';

// What a command needs beyond the database is loaded when it runs: the primary of
// `serve --workers N` then holds no app (about 85 MB instead of 150), and short commands start sooner.

const HELP = `fieldreport ${VERSION}: field-service reports on top of Dolibarr

Usage:
  fieldreport serve [--demo] [--workers N]
                                  migrate, then serve the API (--demo: fill a new standalone
                                  database with demo data and print a login; --workers N: N
                                  processes on the one port, or auto for one per core; default
                                  WORKERS, else 1)
  fieldreport migrate             create or update the tables; register the module's rights
  fieldreport demo                fill a new standalone database with demo data
  fieldreport user add LOGIN [--password P] [--firstname F] [--lastname L] [--email E]
                             [--admin] [--rights read,write,delete,admin]
  fieldreport user passwd LOGIN [--password P]
  fieldreport user disable LOGIN          deactivate; ends every token of the user
  fieldreport user enable LOGIN           activate again (tokens from before stay void)
  fieldreport user grant LOGIN RIGHTS     e.g. read,write
  fieldreport cleanup             remove expired upload links, old idempotency keys, old
                                  failed-login rows, and what stopped processes left
                                  (for a system scheduler; CLEANUP_AT=off)
  fieldreport verify REPORT_REF   check every signature of a report from the database and the
                                  files (exit 0: all valid, 1: one is not, 2: no such report)
  fieldreport --help | --version

Without --password the password is read from standard input.
Configuration comes from the environment (see docs/operating.md): DATABASE_URL, DATA_ROOT, DB_PREFIX, ENTITY,
INSTANCE_UNIQUE_ID, DOLIBARR_CONF, HOST, PORT, WORKERS, TLS_CERT, TLS_KEY, STATE_DIR, CORS_ORIGINS, LOG_LEVEL, ...
`;

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new UserAdminError('no --password given and standard input is a terminal');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

async function withDb<T>(config: Config, run: (handle: ReturnType<typeof createDb>) => Promise<T>): Promise<T> {
  const handle = createDb(config, { poolSize: 2 });
  try {
    return await run(handle);
  } finally {
    await handle.destroy();
  }
}

function parseCommandLine(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
      demo: { type: 'boolean' },
      workers: { type: 'string' },
      password: { type: 'string' },
      firstname: { type: 'string' },
      lastname: { type: 'string' },
      email: { type: 'string' },
      admin: { type: 'boolean' },
      rights: { type: 'string' },
    },
  });
}

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv);
  } catch (error) {
    process.stderr.write(`fieldreport: ${(error as Error).message}\n\n${HELP}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, sub, ...rest] = positionals;
  if (values.version) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (values.help || !command) {
    process.stdout.write(HELP);
    return command || values.help ? 0 : 2;
  }

  try {
    // --workers wins over WORKERS, and is checked as it is.
    const config = loadConfig(values.workers === undefined ? env : { ...env, WORKERS: values.workers });
    switch (command) {
      case 'serve':
        if (config.workers > 1) await (await import('./cluster.js')).startCluster(config, { demo: values.demo === true });
        else await (await import('./server.js')).startServer(config, { demo: values.demo === true });
        return 0;
      case 'migrate':
        return await withDb(config, async (handle) => {
          const report = await migrate(handle, config);
          process.stdout.write(
            `Database ${describeDatabase(config.database)}: ` +
              `${report.applied.length ? `applied ${report.applied.join(', ')}` : 'up to date'}; ` +
              `${report.rightsAdded.length ? `rights registered: ${report.rightsAdded.join(', ')}` : 'rights present'}` +
              `${report.standalone ? ' (standalone Dolibarr tables)' : ''}\n`,
          );
          return 0;
        });
      case 'demo':
        return await withDb(config, async (handle) => {
          await migrate(handle, config);
          const { seedDemo } = await import('./demo/seed.js');
          const seeded = await seedDemo(handle, config);
          if (!seeded && (await demoLogins(handle.db)).length === 0) {
            process.stderr.write('demo: refused: the database is not a new standalone database (it has users, or it is a real Dolibarr)\n');
            return 1;
          }
          process.stdout.write(
            `${seeded ? 'Demo data written' : 'Demo data already present'}. Logins: ${(await demoLogins(handle.db)).join(', ')} (password: ${DEMO_PASSWORD})\n`,
          );
          return 0;
        });
      case 'user':
        return await withDb(config, async (handle) => {
          await migrate(handle, config); // idempotent; makes sure the tables and rights exist
          const admin = createUserAdmin(handle, config.entity, config.timeZone);
          const login = rest[0];
          if (!login) throw new UserAdminError(`user ${sub ?? ''}: LOGIN missing (see --help)`);
          if (sub === 'add') {
            const password = values.password ?? (await readStdin());
            const id = await admin.add({
              login,
              password,
              firstname: values.firstname,
              lastname: values.lastname,
              email: values.email,
              admin: values.admin === true,
              rights: values.rights ? parseRights(values.rights) : [],
            });
            process.stdout.write(`User '${login}' added (id ${id}).\n`);
          } else if (sub === 'passwd') {
            await admin.setPassword(login, values.password ?? (await readStdin()));
            process.stdout.write(`Password of '${login}' changed.\n`);
          } else if (sub === 'disable' || sub === 'enable') {
            await admin.setActive(login, sub === 'enable');
            process.stdout.write(`User '${login}' ${sub === 'enable' ? 'activated' : 'deactivated; every token issued so far is void'}.\n`);
          } else if (sub === 'grant') {
            const granted = await admin.grant(login, parseRights(rest[1] ?? ''));
            process.stdout.write(`Granted to '${login}': ${granted.join(', ') || 'nothing new'}.\n`);
          } else {
            throw new UserAdminError(`unknown command 'user ${sub ?? ''}' (add, passwd, disable, enable, grant)`);
          }
          return 0;
        });
      case 'cleanup':
        return await withDb(config, async (handle) => {
          const [{ runDailyCleanup }, { createRunRegistry }] = await Promise.all([
            import('./modules/maintenance/cleanup.js'),
            import('./adapters/runs.js'),
          ]);
          await migrate(handle, config);
          const {
            removed,
            recovered,
            print_copies: copies,
          } = await runDailyCleanup({
            db: handle.db,
            dataRoot: config.dataRoot,
            entity: config.entity,
            runs: createRunRegistry(config.dataRoot),
            limits: { uploadTokenMaxDays: config.uploadTokenMaxDays, knownAddressDays: config.login.knownAddressDays },
          });
          process.stdout.write(
            `Removed: ${removed.upload_tokens} expired upload links, ${removed.idempotency_keys} old idempotency keys, ${removed.login_failures} old failed logins, ${removed.revoked_tokens} expired ended tokens, ${removed.known_addresses} unused login addresses.\n` +
              `Left by stopped processes: ${recovered.temp_files} temporary files, ${recovered.temp_dirs} working folders, ${recovered.kept_folders} unstored signatures' copies, ${recovered.processes} LibreOffice processes, ` +
              `${recovered.intents_removed} unfinished files removed, ${recovered.intents_kept} finished files kept.\n` +
              `Print-size copies: ${copies.removed} removed, ${copies.kept} kept (${Math.round(copies.bytes / 1048576)} MB).\n`,
          );
          return 0;
        });
      case 'verify':
        return await withDb(config, async (handle) => {
          const ref = sub;
          if (!ref) throw new UserAdminError('verify: REPORT_REF missing (see --help)');
          const [{ createReportRepository }, { loadSigningKey }, { createSignatureVerifier }, { notCoveredInWords }] = await Promise.all([
            import('./modules/reports/reports.repository.js'),
            import('./modules/signatures/signing-key.js'),
            import('./modules/signatures/signature-verifier.js'),
            import('./modules/signatures/signoff.js'),
          ]);
          const verifier = createSignatureVerifier({
            handle,
            repo: createReportRepository(handle.dialect),
            config,
            key: loadSigningKey(config.signingKeyFile, { create: false }),
          });
          const results = await verifier.verifyReport(ref);
          if (!results) {
            process.stderr.write(`verify: no report ${ref} in entity ${config.entity}\n`);
            return 2;
          }
          if (results.length === 0) process.stdout.write(`${ref}: no signature pages\n`);
          for (const r of results) {
            const who = r.metadata ? `${r.metadata.signer_name}, ${r.metadata.server_time}` : 'no metadata';
            const page = r.metadata ? `page ${r.metadata.page_count_at_signing + 1}` : `page id ${r.page_id}`;
            process.stdout.write(`${ref} ${page} (${who}): ${r.verified ? 'valid' : `NOT VALID: ${r.reason} (${r.message})`}\n`);
            // A sign-off's visit: what changed since and the signature does not cover (not a fault of the signature).
            const changed = notCoveredInWords(r.not_covered);
            if (r.metadata?.signoff) process.stdout.write(`  covers: pages, work, times and material as shown at signing\n`);
            if (changed) process.stdout.write(`  not covered (changed since): ${changed}\n`);
          }
          return results.every((r) => r.verified) ? 0 : 1;
        });
      default:
        process.stderr.write(`fieldreport: unknown command '${command}'\n\n${HELP}`);
        return 2;
    }
  } catch (error) {
    // One line a person can act on; the stack only when asked for (LOG_LEVEL=debug).
    process.stderr.write(`fieldreport: ${(error as Error).message}\n`);
    if (env.LOG_LEVEL === 'debug' || env.LOG_LEVEL === 'trace') process.stderr.write(`${(error as Error).stack}\n`);
    return error instanceof ConfigError ? 2 : 1;
  }
}
