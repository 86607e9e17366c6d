/**
 * startServer: resolve the instance id, migrate, optionally fill demo data, build the app, listen,
 * and close cleanly on SIGINT/SIGTERM. With WORKERS above 1 the CLI starts cluster.ts instead,
 * which uses the pieces here.
 */
import { documentsOwnerWarning } from './documents-owner.js';
import { Server as TlsServer } from 'node:tls';
import type { FastifyInstance } from 'fastify';
import { warmUpSoon } from './adapters/pdf/warm-up.js';
import { buildApp } from './app.js';
import { withDolibarrTimeZone } from './dolibarr/time-zone.js';
import { describeDatabase, type Config } from './config.js';
import { createDb, type DbHandle } from './db/database.js';
import { migrate } from './db/migrate.js';
import { demoLogins, seedDemo } from './demo/seed.js';
import { resolveInstanceId } from './instance-id.js';
import { addressUrl, startBanner } from './start-banner.js';

export interface ServeOptions {
  /** Fill a new standalone database with demo data and print a login. */
  demo: boolean;
}

/** http://host:port, or https:// when it serves TLS, of a listening app. */
export function baseUrl(app: FastifyInstance): string {
  const address = app.server.address();
  if (!address || typeof address === 'string') return String(address ?? '');
  return addressUrl(address.address, address.port, app.server instanceof TlsServer);
}

/** Builds the app on an open database and listens; the app closes the database with itself. */
export async function listenApp(given: Config, handle: DbHandle): Promise<FastifyInstance> {
  let app: FastifyInstance | undefined;
  try {
    // Without TIME_ZONE: the zone Dolibarr writes its dates in (MAIN_SERVER_TZ), where it names one.
    const config = await withDolibarrTimeZone(given, handle.db);
    app = await buildApp(config, { db: handle });
    app.addHook('onClose', async () => handle.destroy());
    await app.listen({ host: config.host, port: config.port });
    warmUpSoon((error) => app!.log.warn({ err: error }, 'the report renderer could not be made ready; the first finalize takes longer'));
    // LibreOffice kept running for cover sheets, started now rather than by the first report that has one.
    app.warmUpCovers().catch((error: unknown) => app!.log.warn({ err: error }, 'LibreOffice could not be started for cover sheets'));
    return app;
  } catch (error) {
    if (app) await app.close();
    else await handle.destroy();
    throw error;
  }
}

/**
 * What a killed predecessor left (temporary files, half-made uploads, LibreOffice processes), in
 * the background: the service answers meanwhile.
 */
export function recoverInBackground(app: FastifyInstance): void {
  void app.recoverDeadRuns().then(
    (recovered) => app.log.info({ recovered }, 'recovery after earlier runs done'),
    (error: unknown) => app.log.error({ err: error }, 'recovery after earlier runs failed; the daily clean-up tries again'),
  );
}

/** One process: migrate, optionally fill demo data, serve; SIGINT/SIGTERM close it. */
export async function startServer(baseConfig: Config, options: ServeOptions): Promise<FastifyInstance> {
  const config = resolveInstanceId(baseConfig);
  const handle = createDb(config);
  let report: Awaited<ReturnType<typeof migrate>>;
  try {
    report = await migrate(handle, config);
    if (options.demo) await seedDemo(handle, config);
  } catch (error) {
    await handle.destroy();
    throw error;
  }
  const app = await listenApp(config, handle);
  try {
    app.log.info(
      { database: describeDatabase(config.database), dataRoot: config.dataRoot, migrations: report.applied },
      'fieldreport ready',
    );
    if (!report.standalone) {
      const warning = documentsOwnerWarning(config.dataRoot);
      if (warning) app.log.warn({ dataRoot: config.dataRoot }, warning);
    }
    recoverInBackground(app);
    const logins = report.standalone ? await demoLogins(handle.db) : [];
    if (logins.length > 0) process.stdout.write(startBanner(baseUrl(app), logins));
  } catch (error) {
    await app.close();
    throw error;
  }

  const stop = async (signal: string) => {
    app.log.info({ signal }, 'shutting down');
    await app.close();
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  return app;
}
