/**
 * buildApp(config, options): the whole service as a Fastify instance, without listen(), so tests
 * inject requests. The database handle may be passed in (tests); otherwise it is opened here and
 * closed with the app.
 */
import { randomUUID } from 'node:crypto';
import cors from '@fastify/cors';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Config } from './config.js';
import { createDb, type DbHandle } from './db/database.js';
import { createListTotals } from './db/list-total.js';
import { createConstRepository } from './dolibarr/const.repository.js';
import { totalDecimals } from './dolibarr/price.js';
import { createAuthService } from './modules/auth/auth.service.js';
import { authRoutes } from './modules/auth/auth.routes.js';
import { createLoginThrottleRepository } from './modules/auth/login-throttle.repository.js';
import { createTokenService } from './modules/auth/token.js';
import { createTokenVoidRepository, SWEEP_SECONDS } from './modules/auth/token-void.repository.js';
import { createUserRepository } from './modules/auth/user.repository.js';
import { healthRoutes } from './modules/health/health.routes.js';
import { createElementAccess, namedUserColumns } from './modules/access/element-access.js';
import type { ModuleContext } from './modules/common/module-context.js';
import { customersRoutes } from './modules/customers/customers.routes.js';
import { filesRoutes } from './modules/files/files.routes.js';
import { ordersRoutes } from './modules/orders/orders.routes.js';
import { uploadsRoutes } from './modules/uploads/uploads.routes.js';
import { transcriptionRoutes } from './modules/transcription/transcription.routes.js';
import { capabilitiesRoutes } from './modules/capabilities/capabilities.routes.js';
import { reportModuleRoutes } from './modules/reports/reports.module.js';
import { materialsRoutes } from './modules/materials/materials.routes.js';
import { runDailyCleanup, scheduleDailyCleanup } from './modules/maintenance/cleanup.js';
import { recoverDeadRuns, type RecoveryResult } from './modules/maintenance/recovery.js';
import { createRunRegistry } from './adapters/runs.js';
import { createPrintQueue } from './adapters/print-image.js';
import { createMailQueue } from './modules/mail/mail.queue.js';
import { printCacheDir } from './modules/reports/work-area.js';
import authenticate, { TOKEN_HEADERS } from './plugins/authenticate.js';
import { AppError } from './errors.js';
import drain from './plugins/drain.js';
import errorHandler, { clientErrorHandler, sendError } from './plugins/error-handler.js';
import openapi from './plugins/openapi.js';
import requestTimeouts, { serverTimeouts } from './plugins/request-timeouts.js';
import proxyWarning from './plugins/proxy-warning.js';
import securityHeaders from './plugins/security-headers.js';
import validation from './plugins/validation.js';
import webApp from './plugins/web-app.js';
import { VERSION } from './version.js';
import { loadSealCertificate } from './modules/signatures/seal-certificate.js';
import { createPdfSeal } from './modules/signatures/pdf-seal.service.js';

export { VERSION };

declare module 'fastify' {
  interface FastifyInstance {
    /** Removes what killed processes left (recovery.ts): run at start and by the daily clean-up. */
    recoverDeadRuns(): Promise<RecoveryResult>;
    /** The mails to send (modules/mail/mail.queue.ts): `runOnce` sends those due now. */
    mailQueue: import('./modules/mail/mail.queue.js').MailQueue;
    /** Print copies and uploaded photos' thumbnails made in the background (adapters/print-image.ts): `idle` resolves when none is being made. */
    printQueue: import('./adapters/print-image.js').PrintQueue;
    /** The PDF seal (modules/signatures/pdf-seal.service.ts): `queue.runOnce` adds the time stamps due now. */
    pdfSeal: import('./modules/signatures/pdf-seal.service.js').PdfSeal;
  }
}

export interface AppOptions {
  /** An open database; the app then leaves closing it to the caller. */
  db?: DbHandle;
  /** false: no logging. Otherwise pino at `level` (default config.logLevel) to `stream` (default stdout). */
  logger?: false | { level?: string; stream?: NodeJS.WritableStream };
}

/**
 * Request URLs as logged: a `jwt` query parameter is a credential and never reaches a log line,
 * however its name is spelt (`%6Awt` decodes to `jwt` too).
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawName = eq < 0 ? pair : pair.slice(0, eq);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        // an undecodable name is logged as it came
      }
      return name.trim().toLowerCase() === 'jwt' ? `${rawName}=[redacted]` : pair;
    });
  return `${url.slice(0, q)}?${params.join('&')}`;
}

/** Errors as logged: driver errors carry the SQL with its values (mysql2 `sql`, pg `detail`); not those. */
function serializeError(err: Error & { code?: unknown }): { type: string; message: string; stack: string; [key: string]: unknown } {
  return {
    type: err.name,
    message: err.message,
    code: err.code,
    stack: err.stack ?? '',
    ...(err.cause instanceof Error ? { cause: serializeError(err.cause) } : {}),
  };
}

/** Logger settings; the redaction of credentials applies whatever the caller chose. */
function loggerOptions(config: Config, option: AppOptions['logger']): FastifyServerOptions['logger'] {
  if (option === false) return false;
  return {
    level: option?.level ?? config.logLevel,
    ...(option?.stream ? { stream: option.stream } : {}),
    // What a request logs is chosen here (no headers, a redacted URL), so no credential reaches a line.
    serializers: {
      req: (req: { method: string; url: string; ip?: string }) => ({ method: req.method, url: redactUrl(req.url), ip: req.ip }),
      err: serializeError,
    },
  };
}

export async function buildApp(config: Config, options: AppOptions = {}): Promise<FastifyInstance> {
  if (!config.instanceUniqueId) throw new Error('buildApp: config.instanceUniqueId must be resolved first');
  const ownsDb = !options.db;
  const handle = options.db ?? createDb(config);

  const timeouts = serverTimeouts(config.timeouts);
  const app = Fastify({
    logger: loggerOptions(config, options.logger),
    bodyLimit: config.bodyLimit,
    // A hop count is valid at run time (proxy-addr); Fastify's types leave numbers out.
    trustProxy: config.trustProxy as Exclude<FastifyServerOptions['trustProxy'], undefined>,
    genReqId: () => randomUUID(),
    // A request that reaches a closing app is answered, not turned away (drain.ts).
    return503OnClosing: false,
    requestIdHeader: 'x-request-id',
    // Fastify's defaults leave request time unbounded; see request-timeouts.ts.
    ...timeouts,
    // HTTPS (TLS_CERT, TLS_KEY): Fastify then ignores `http`, so Node's time limits go here too.
    ...(config.tls ? { https: { ...timeouts.http, cert: config.tls.cert, key: config.tls.key } } : {}),
    clientErrorHandler,
    // A URL the router cannot read (a broken %-escape) gets the one error shape too.
    frameworkErrors: (_error, _request, reply) => {
      sendError(reply, new AppError('REQUEST_INVALID', { message: 'Ungültige Adresse' }));
    },
  });

  // Bodies are JSON (and multipart for uploads); anything else is 415, not a string handed on.
  app.removeContentTypeParser('text/plain');
  // Actions without input (finalize, new_version) are often sent with a JSON content type and no
  // body: that is "no body", not malformed JSON. Anything else goes to Fastify's own parser,
  // which also refuses __proto__ and constructor keys.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    return parseJson(request, text, done);
  });

  const tables = await handle.db.introspection.getTables();
  const columnsOf = (name: string) => tables.find((t) => t.name === `${config.dbPrefix}${name}`)?.columns.map((c) => c.name);
  const userColumns = columnsOf('user');
  if (!userColumns) throw new Error(`Table ${config.dbPrefix}user not found: run \`fieldreport migrate\` first`);
  const fkUserColumns = namedUserColumns(tables, config.dbPrefix);
  const runs = createRunRegistry(config.dataRoot);
  runs.start((error) =>
    app.log.warn(
      { err: error, folder: runs.dir },
      'the run marker cannot be written: what this process leaves after a crash is removed only after some hours',
    ),
  );
  app.addHook('onClose', async () => runs.stop());
  const consts = createConstRepository(handle.db, { entity: config.entity, instanceUniqueId: config.instanceUniqueId });
  const printQueue = createPrintQueue(printCacheDir(config.dataRoot, config.entity), {
    onError: (source, error) =>
      app.log.warn(
        { source, err: error },
        "a photo's print-size copy (or an uploaded JPEG's thumbnails) not made ahead; the copy is made when a PDF needs it, a thumbnail when it is asked for",
      ),
  });
  app.decorate('printQueue', printQueue);
  // Before onClose, where the database closes: an uploaded photo's work settles its upload in it.
  app.addHook('preClose', async () => printQueue.close());
  // Every process sends the report mails due: started once the app is ready, stopped with it.
  const mailQueue = createMailQueue({
    db: handle.db,
    dialect: handle.dialect,
    prefix: handle.prefix,
    entity: config.entity,
    dataRoot: config.dataRoot,
    consts,
    mailEnv: config.mail.env,
    instanceId: config.instanceUniqueId,
    timeZone: config.timeZone,
    runs,
    logger: app.log,
    pollSeconds: config.mail.pollSeconds,
  });
  app.decorate('mailQueue', mailQueue);
  app.addHook('onReady', async () => mailQueue.start());
  app.addHook('onClose', async () => mailQueue.stop());
  // The PDF seal's certificate: the configured PKCS#12, else the one made at first start in the company's name.
  const sealCertificate = loadSealCertificate({
    keyFile: config.seal.keyFile,
    p12File: config.seal.p12File,
    p12Password: config.seal.p12Password,
    companyName: (await consts.getMany(['MAIN_INFO_SOCIETE_NOM'])).get('MAIN_INFO_SOCIETE_NOM') ?? '',
  });
  if (sealCertificate.created) {
    app.log.warn(
      { file: sealCertificate.file, subject: sealCertificate.subject },
      'made a new key and self-signed certificate for the PDF seal: keep this file and back it up; every process must use the same one (SEAL_KEY_FILE), or configure a CA certificate (SEAL_P12_FILE)',
    );
  }
  const pdfSeal = createPdfSeal({ handle, config, certificate: sealCertificate, runs, logger: app.log });
  app.decorate('pdfSeal', pdfSeal);
  app.addHook('onReady', async () => pdfSeal.queue.start());
  app.addHook('onClose', async () => pdfSeal.queue.stop());
  app.addHook('onClose', async () => pdfSeal.close());
  const tokens = createTokenService(config.instanceUniqueId);
  const users = createUserRepository(handle.db, {
    entity: config.entity,
    userColumns: new Set(userColumns),
  });
  const voids = createTokenVoidRepository(handle.db);
  const auth = createAuthService({
    users,
    throttle: createLoginThrottleRepository(handle),
    consts,
    tokens,
    voids,
    limits: config.login,
    dummyCost: await users.maxBcryptCost(),
    timeZone: config.timeZone,
    cache: { seconds: config.authCacheSeconds, version: handle.dataVersion ?? handle.writes },
  });

  const ctx: ModuleContext = {
    config,
    handle,
    runs,
    printQueue,
    mailQueue,
    pdfSeal,
    totalDecimals: totalDecimals((await consts.getMany(['MAIN_MAX_DECIMALS_TOT'])).get('MAIN_MAX_DECIMALS_TOT')),
    access: createElementAccess(handle.db, { entity: config.entity, userColumns: fkUserColumns }),
    totals: createListTotals(handle),
    currentUser: (id) => auth.currentUser(id),
  };

  await app.register(drain);
  await app.register(errorHandler);
  await app.register(validation);
  await app.register(requestTimeouts, { timeouts: config.timeouts });
  await app.register(securityHeaders);
  await app.register(proxyWarning, { trustProxy: config.trustProxy });
  await app.register(cors, {
    origin: config.corsOrigins === '*' ? '*' : [...config.corsOrigins],
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    allowedHeaders: ['Content-Type', 'Idempotency-Key', 'X-Request-Id', ...TOKEN_HEADERS],
    exposedHeaders: ['Content-Disposition', 'Content-Length', 'ETag', 'Last-Modified', 'Retry-After', 'X-Request-Id'],
    maxAge: 600,
    strictPreflight: false,
  });
  await app.register(openapi, { version: VERSION });
  await app.register(authenticate, { auth, dataVersion: handle.dataVersion });

  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  await app.register(authRoutes, { auth });
  await app.register(healthRoutes, { handle, version: VERSION });
  await app.register(ordersRoutes, ctx);
  await app.register(uploadsRoutes, ctx);
  await app.register(filesRoutes, ctx);
  await app.register(customersRoutes, ctx);
  await app.register(reportModuleRoutes, ctx);
  await app.register(transcriptionRoutes, ctx);
  await app.register(capabilitiesRoutes, ctx);
  await app.register(materialsRoutes, ctx);
  await app.register(webApp, { appDir: config.appDir });

  // A user deactivated in Dolibarr keeps its tokens void when it is activated again: the sweep
  // notes each deactivation within SWEEP_SECONDS (a request with one of its tokens at once).
  const sweepMs = SWEEP_SECONDS * 1000;
  let sweepFailed = false;
  let sweeping = false;
  const sweep = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    voids
      .sweep(config.entity, Math.floor(Date.now() / 1000))
      .then(
        () => (sweepFailed = false),
        (error: unknown) => {
          if (!sweepFailed)
            app.log.warn({ err: error }, 'could not look for deactivated users (their tokens are voided once it works again)');
          sweepFailed = true;
        },
      )
      .finally(() => (sweeping = false));
  }, sweepMs);
  sweep.unref();
  app.addHook('onClose', async () => clearInterval(sweep));

  // The daily clean-up runs in every process (its deletes do no harm twice); CLEANUP_AT=off leaves it to `fieldreport cleanup`.
  app.decorate('recoverDeadRuns', () => recoverDeadRuns({ db: handle.db, dataRoot: config.dataRoot, entity: config.entity, runs }));
  if (config.cleanupAt !== 'off') {
    const stop = scheduleDailyCleanup(
      () =>
        runDailyCleanup({
          db: handle.db,
          dataRoot: config.dataRoot,
          entity: config.entity,
          runs,
          limits: { uploadTokenMaxDays: config.uploadTokenMaxDays, knownAddressDays: config.login.knownAddressDays },
        }),
      config.cleanupAt,
      app.log,
    );
    app.addHook('onClose', async () => stop());
  }

  if (ownsDb) app.addHook('onClose', async () => handle.destroy());
  return app;
}
