/**
 * One JSON error shape for every failure (docs/architecture.md): `{ error, code, details? }`.
 * - AppError: its own status, code and message.
 * - Schema failures: 400 VALIDATION_FAILED with the fields at fault.
 * - Fastify's own body errors: malformed JSON 400, too large 413, unknown content type 415.
 * - Unknown paths 404; a known path with another method 405 with an `Allow` header.
 * - Anything else: logged with the request id and answered with a generic 500, never the raw text.
 * - Errors Node raises before Fastify sees a request (headers or request too slow, headers too
 *   large, unreadable HTTP): `clientErrorHandler`, the same shape written to the socket.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { databaseFault, isConnectionError } from '../db/dialect.js';

/** Seconds a client waits before repeating a write the database was too busy for. */
export const DATABASE_BUSY_RETRY_SECONDS = 2;
import { AppError, toErrorBody, type ErrorCode } from '../errors.js';

interface ValidationIssue {
  field: string;
  message: string;
}

function validationDetails(error: FastifyError): ValidationIssue[] {
  const context = error.validationContext ?? 'body';
  return (error.validation ?? []).map((v) => {
    const missing = (v.params as { missingProperty?: string } | undefined)?.missingProperty;
    const path = (v.instancePath || '').replace(/^\//, '').replace(/\//g, '.');
    return { field: [context, path, missing].filter(Boolean).join('.'), message: v.message ?? 'invalid' };
  });
}

const FASTIFY_CODES: Readonly<Record<string, ErrorCode>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'BODY_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'MEDIA_TYPE_UNSUPPORTED',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'REQUEST_INVALID',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'BODY_INVALID_JSON',
  FST_ERR_CTP_INVALID_JSON_BODY: 'BODY_INVALID_JSON',
};

/** Maps any thrown value to an AppError, or undefined when it is an unexpected failure. */
export function toAppError(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  const e = error as FastifyError;
  if (e?.validation) return new AppError('VALIDATION_FAILED', { details: validationDetails(e) });
  const mapped = e?.code ? FASTIFY_CODES[e.code] : undefined;
  if (mapped) return new AppError(mapped);
  // JSON.parse failures of the body parser carry status 400 without a Fastify code.
  if (e instanceof SyntaxError && e.statusCode === 400) return new AppError('BODY_INVALID_JSON');
  if (isConnectionError(error)) return new AppError('SERVICE_UNAVAILABLE');
  const fault = databaseFault(error);
  if (fault === 'busy') return new AppError('DATABASE_BUSY', { headers: { 'retry-after': String(DATABASE_BUSY_RETRY_SECONDS) } });
  if (fault === 'read_only') return new AppError('DATABASE_READ_ONLY');
  if (fault === 'full') return new AppError('STORAGE_FULL');
  // The documents folder's disk or quota is full (also when sharp or a stream reported it).
  const errno = (e as { code?: unknown })?.code;
  if (errno === 'ENOSPC' || errno === 'EDQUOT') return new AppError('STORAGE_FULL');
  if (typeof e?.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return e.statusCode === 413 ? new AppError('BODY_TOO_LARGE') : new AppError('REQUEST_INVALID');
  }
  return undefined;
}

function allowHeader(methods: Set<string>): string {
  return [...methods]
    .filter((m) => m !== 'HEAD')
    .sort()
    .join(', ');
}

/** A CORS preflight: OPTIONS with an Origin and the method the browser wants to send. */
export function isPreflight(request: FastifyRequest): boolean {
  return request.method === 'OPTIONS' && !!request.headers.origin && !!request.headers['access-control-request-method'];
}

/**
 * How an answered error is logged, one line and no stack: a refusal the API foresees (4xx) at
 * info; a 5xx the service foresees (busy, not configured, the speech-to-text server failed) at
 * warn; a fault of the server's storage or database (a full disk, a read-only or unreachable
 * database: the operator must act) at error, with the system's code and message. Only failures
 * nobody foresaw (below) are logged with their stack.
 */
function logOutcome(request: FastifyRequest, appError: AppError, original: unknown): void {
  const outcome = { code: appError.code, status: appError.status };
  if (appError.status < 500) return request.log.info(outcome, 'request refused');
  if (original === appError) return request.log.warn(outcome, appError.message);
  const e = original as { name?: unknown; code?: unknown; message?: unknown };
  request.log.error({ ...outcome, cause: { type: e?.name, code: e?.code, message: e?.message } }, 'request failed: server fault');
}

export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply.code(error.status).type('application/json; charset=utf-8').send(toErrorBody(error));
}

/**
 * Fastify's clientErrorHandler: Node's own errors on a connection, in the API's error shape.
 * A request or its headers that did not arrive within the time limits is 408 REQUEST_TIMEOUT,
 * headers over Node's size limit 431 HEADERS_TOO_LARGE, anything else 400 REQUEST_INVALID. The
 * connection is closed after it, as Node does; nothing is written when an answer has begun.
 */
export function clientErrorHandler(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const code: ErrorCode =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? 'REQUEST_TIMEOUT'
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? 'HEADERS_TOO_LARGE'
        : 'REQUEST_INVALID';
  this.log.debug({ err: error }, `client error: ${code}`);
  const answering = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (socket.writable && !answering) {
    const appError = new AppError(code);
    const body = JSON.stringify(toErrorBody(appError));
    socket.write(
      `HTTP/1.1 ${appError.status} ${STATUS_CODES[appError.status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The error a wrong method on this path answers with. @default METHOD_NOT_ALLOWED */
    methodNotAllowed?: ErrorCode;
  }
}

export default fp(
  async function errorHandler(app: FastifyInstance) {
    // Path → methods served, with the 405 error of that path; filled as routes are added.
    const routes = new Map<string, { methods: Set<string>; notAllowed: ErrorCode }>();
    app.addHook('onRoute', (route) => {
      if (route.url.includes('*') || route.url.includes(':')) return;
      const entry = routes.get(route.url) ?? { methods: new Set<string>(), notAllowed: 'METHOD_NOT_ALLOWED' as ErrorCode };
      for (const m of [route.method].flat()) entry.methods.add(m.toUpperCase());
      if (route.config?.methodNotAllowed) entry.notAllowed = route.config.methodNotAllowed;
      routes.set(route.url, entry);
    });

    app.setErrorHandler((error, request, reply) => {
      // A client that hung up before its body was whole: Node's 'aborted' (ECONNRESET) on the request
      // stream is the client's doing, not a lost database connection, and nobody is left to answer.
      if ((error as { code?: unknown }).code === 'ECONNRESET' && request.raw.destroyed && !request.raw.complete) {
        request.log.info('client closed the connection before its request was complete');
        return sendError(reply, new AppError('REQUEST_INVALID', { message: 'Die Verbindung wurde vor dem Ende der Anfrage geschlossen' }));
      }
      const appError = toAppError(error);
      if (appError) {
        logOutcome(request, appError, error);
        return sendError(reply, appError);
      }
      request.log.error({ err: error }, 'unexpected error');
      return sendError(reply, new AppError('INTERNAL_ERROR'));
    });

    // OPTIONS is for CORS preflights (answered by @fastify/cors); any other OPTIONS request is a
    // method the path does not serve. Registered before the CORS plugin, so it runs first.
    app.addHook('onRequest', async (request) => {
      if (request.method !== 'OPTIONS' || isPreflight(request)) return;
      const entry = routes.get(request.url.split('?')[0] ?? '');
      if (!entry) throw new AppError('ROUTE_NOT_FOUND');
      throw new AppError(entry.notAllowed, { headers: { allow: allowHeader(entry.methods) } });
    });

    app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
      const path = request.url.split('?')[0] ?? '';
      const entry = routes.get(path);
      if (entry && !entry.methods.has(request.method)) {
        return sendError(reply, new AppError(entry.notAllowed, { headers: { allow: allowHeader(entry.methods) } }));
      }
      return sendError(reply, new AppError('ROUTE_NOT_FOUND'));
    });
  },
  { name: 'error-handler' },
);
