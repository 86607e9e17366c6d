/**
 * A whole service on a fresh database of one dialect: migrated, with its own documents and state
 * folders, and the app ready for `inject`. `close()` undoes everything.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from '../../src/app.js';
import { loadConfig, type Config, type Dialect } from '../../src/config.js';
import { createDb, type DbHandle } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { entityRoot } from '../../src/dolibarr/ecm.js';
import { createTestDatabase } from './databases.js';
import { checkFinalizedPdfs } from './pdfa.js';
import { createFactories, type Factories } from './factories.js';

export const TEST_INSTANCE_ID = '0123456789abcdef0123456789abcdef';

export interface TestContext {
  dialect: Dialect;
  config: Config;
  handle: DbHandle;
  app: FastifyInstance;
  make: Factories;
  close(): Promise<void>;
}

/** The configuration a test runs with: a literal, not the environment. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  // The zone is the test's (the process's unless given): the demo's data is written in it too.
  return {
    ...loadConfig({}, { instanceUniqueId: TEST_INSTANCE_ID, logLevel: 'silent', ...overrides }),
    timeZoneSet: overrides.timeZoneSet ?? true,
  };
}

export interface TestContextOptions {
  /** @default false */
  logger?: AppOptions['logger'];
  /** Extra routes (probes) registered before the app is ready. */
  routes?: (app: FastifyInstance) => void;
  /** Runs on the migrated database before the app starts (settings its first start reads). */
  beforeApp?: (handle: DbHandle) => Promise<void>;
}

/** The final PDFs of reports in the documents folder, by their `ecm_files` rows (those still there). */
async function finalizedPdfs(handle: DbHandle, config: Config): Promise<string[]> {
  const rows = await handle.db
    .selectFrom('ecm_files')
    .select(['filepath', 'filename', 'entity'])
    .where('src_object_type', '=', 'bericht')
    .where('gen_or_uploaded', '=', 'generated')
    .execute()
    .catch(() => []);
  const files = rows
    .map((r) => path.join(entityRoot(config.dataRoot, Number(r.entity)), r.filepath, r.filename))
    .filter((file) => file.endsWith('.pdf'));
  return files.filter((file) => existsSync(file));
}

export async function createTestContext(
  dialect: Dialect,
  overrides: Partial<Config> = {},
  options: TestContextOptions = {},
): Promise<TestContext> {
  const database = await createTestDatabase(dialect);
  const folder = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-data-'));
  const config = testConfig({
    database: database.config,
    dataRoot: path.join(folder, 'documents'),
    stateDir: path.join(folder, 'state'),
    ...overrides,
  });
  const opened = createDb(config, { poolSize: 4 });
  // Tests may close the database early (to see the service without it); closing twice is fine.
  let destroyed = false;
  const handle: DbHandle = {
    ...opened,
    async destroy() {
      if (destroyed) return;
      destroyed = true;
      await opened.destroy();
    },
  };
  try {
    await migrate(handle, config);
    await options.beforeApp?.(handle);
    const app = await buildApp(config, { db: handle, logger: options.logger ?? false });
    options.routes?.(app);
    await app.ready();
    return {
      dialect,
      config,
      handle,
      app,
      make: createFactories(handle, config, app),
      async close() {
        await app.close();
        try {
          // Every PDF the service finalized here is PDF/A-1b (one Preflight run for them all).
          await checkFinalizedPdfs(await finalizedPdfs(handle, config), path.basename(process.argv[1] ?? 'test'));
        } finally {
          await handle.destroy();
          await database.drop();
          rmSync(folder, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    await handle.destroy();
    await database.drop();
    rmSync(folder, { recursive: true, force: true });
    throw error;
  }
}
