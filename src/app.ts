/**
 * buildApp(config, options): the whole service as a Fastify instance, without listen(), so tests
 * inject requests. The database handle may be passed in (tests); otherwise it is opened here and
 * closed with the app.
 */
import { randomUUID } from 'node:crypto';
import cors from '@fastify/cors';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import fastJsonStringify, { type Schema as FjsSchema } from 'fast-json-stringify';
import { nullableAsTypeList } from './modules/common/send-as.js';
import type { Config } from './config.js';
import { createDb, type DbHandle } from './db/database.js';
import { authRoutes } from './modules/auth/auth.routes.js';
import { SWEEP_SECONDS } from './modules/auth/token-void.repository.js';
import { healthRoutes } from './modules/health/health.routes.js';
import { customersRoutes } from './modules/customers/customers.routes.js';
import { agendaRoutes } from './modules/agenda/agenda.routes.js';
import { interventionsRoutes } from './modules/interventions/interventions.routes.js';
import { filesRoutes } from './modules/files/files.routes.js';
import { ordersRoutes } from './modules/orders/orders.routes.js';
import { uploadsRoutes } from './modules/uploads/uploads.routes.js';
import { transcriptionRoutes } from './modules/transcription/transcription.routes.js';
import { capabilitiesRoutes } from './modules/capabilities/capabilities.routes.js';
import { materialsRoutes } from './modules/materials/materials.routes.js';
import { productsRoutes } from './modules/products/products.routes.js';
import { runDailyCleanup, scheduleDailyCleanup } from './modules/maintenance/cleanup.js';
import { recoverDeadRuns, type RecoveryResult } from './modules/maintenance/recovery.js';
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
import multipart from '@fastify/multipart';
import { composeServices } from './compose.js';
import { mailRoutes } from './modules/mail/mail.routes.js';
import { pagesRoutes } from './modules/pages/pages.routes.js';
import { pdfRoutes } from './modules/report-pdf/pdf.routes.js';
import { reportsRoutes } from './modules/reports/reports.routes.js';
import { templatesRoutes } from './modules/reports/templates.routes.js';
import { publicCheckRoutes } from './modules/seal/public-check.routes.js';
import { SIGNATURE_MULTIPART_LIMITS } from './modules/signatures/signature-form.js';
import { signaturesRoutes } from './modules/signatures/signatures.routes.js';
import { timesRoutes } from './modules/times/times.routes.js';

export { VERSION };

declare module 'fastify' {
  interface FastifyInstance {
    /** Removes what killed processes left (recovery.ts): run at start and by the daily clean-up. */
    recoverDeadRuns(): Promise<RecoveryResult>;
    /** The mails to send (modules/mail/mail.queue.ts): `runOnce` sends those due now. */
    mailQueue: import('./modules/mail/mail.queue.js').MailQueue;
    /** Print copies and uploaded photos' thumbnails made in the background (adapters/print-image.ts): `idle` resolves when none is being made. */
    printQueue: import('./adapters/print-image.js').PrintQueue;
    /** The PDF seal (modules/seal/pdf-seal.ts): `queue.runOnce` adds the time stamps due now. */
    pdfSeal: import('./modules/seal/pdf-seal.js').PdfSeal;
    /** Starts the LibreOffice kept running for cover sheets (adapters/libreoffice.ts) when there is an ODT cover sheet. */
    warmUpCovers: () => Promise<void>;
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

  // Every answer is written by its schema with its nullable fields as type lists (send-as.ts): the
  // same JSON, without Ajv run on each such value to pick its branch, nor compiled for it the first
  // time a value takes one (a first finalize's answer of 50 pages spent 80 ms compiling).
  app.setSerializerCompiler(({ schema }) => fastJsonStringify(nullableAsTypeList(schema) as FjsSchema));

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

  const services = await composeServices(app, config, handle);
  const { ctx, auth, voids, runs } = services;

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
  await app.register(ordersRoutes, services);
  await app.register(uploadsRoutes, { ...ctx, ...services });
  await app.register(filesRoutes, services);
  await app.register(customersRoutes, services);
  await app.register(agendaRoutes, services);
  await app.register(interventionsRoutes, services);
  // The report's life in one scope with the multipart parser, for the signature form (endpoint 14).
  await app.register(async (scope) => {
    await scope.register(multipart, { limits: SIGNATURE_MULTIPART_LIMITS });
    await reportsRoutes(scope, services);
    await signaturesRoutes(scope, services);
    await publicCheckRoutes(scope, {
      signatures: services.signatures,
      pdfSeal: services.pdfSeal,
      timeZone: config.timeZone,
      uploadIdleMs: config.timeouts.uploadIdleSeconds * 1000,
    });
    await pagesRoutes(scope, { ...services, config });
    await templatesRoutes(scope, services);
    await pdfRoutes(scope, { ...services, config });
    await timesRoutes(scope, services);
    await mailRoutes(scope, { ...services, config });
  });
  await app.register(transcriptionRoutes, services);
  await app.register(capabilitiesRoutes, services);
  await app.register(materialsRoutes, services);
  await app.register(productsRoutes, services);
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
