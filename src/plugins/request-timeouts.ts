/**
 * Time limits on receiving a request (TimeoutConfig), so a client that sends a byte every few
 * seconds cannot hold a connection and a body parser for ever:
 * - headers and the whole request are Node's own limits (headersTimeout, requestTimeout), checked
 *   every `connectionsCheckingInterval`; Node then raises a client error, answered 408
 *   REQUEST_TIMEOUT by `clientErrorHandler` (error-handler.ts) before the connection is closed;
 * - a body the service parses itself (JSON) must arrive within `bodySeconds` of its headers: else
 *   408 REQUEST_TIMEOUT in the error shape, with `Connection: close`. Multipart bodies (photo, voice
 *   and signature uploads) are left out: uploads have their own idle limit (UPLOAD_IDLE_MS, 60 s
 *   without data) and the request timeout, so a 200 MB upload on a slow line is not cut off.
 */
import { PassThrough } from 'node:stream';
import type { ServerOptions } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { TimeoutConfig } from '../config.js';
import { AppError } from '../errors.js';

/** The Fastify options that set Node's limits. */
export function serverTimeouts(timeouts: TimeoutConfig): { requestTimeout: number; http: ServerOptions } {
  const headersTimeout = timeouts.headersSeconds * 1000;
  const requestTimeout = timeouts.requestSeconds * 1000;
  return {
    requestTimeout,
    http: {
      headersTimeout,
      requestTimeout,
      // Node checks the limits only this often (30 s by default, which would double a 30 s limit).
      connectionsCheckingInterval: Math.min(5000, Math.max(250, Math.floor(headersTimeout / 4))),
    },
  };
}

export default fp(
  async function requestTimeouts(app: FastifyInstance, options: { timeouts: TimeoutConfig }) {
    const bodyMs = options.timeouts.bodySeconds * 1000;
    app.addHook('preParsing', async (request, reply, payload) => {
      // Whole already (no body, or it came with the headers), or an upload with its own limits.
      if (request.raw.complete || /^multipart\//i.test(request.headers['content-type'] ?? '')) return payload;
      const guarded = new PassThrough();
      guarded.on('error', () => undefined); // the parser hears of it; a body nobody reads must not crash the process
      const timer = setTimeout(() => {
        payload.unpipe(guarded);
        // The rest of the body is never read: the connection cannot carry another request.
        guarded.destroy(new AppError('REQUEST_TIMEOUT', { headers: { connection: 'close' } }));
      }, bodyMs);
      guarded.once('end', () => clearTimeout(timer));
      reply.raw.once('close', () => {
        clearTimeout(timer);
        // Answered before the body was read (415, 413): let Node drain the rest as it would.
        payload.unpipe(guarded);
        if (!request.raw.complete) payload.resume();
      });
      // pipe() does not pass errors on: a client that hangs up must end the parse, not leave it waiting.
      payload.once('error', (error) => guarded.destroy(error));
      payload.once('close', () => {
        if (!request.raw.complete) guarded.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
      });
      payload.pipe(guarded);
      return guarded;
    });
  },
  { name: 'request-timeouts' },
);
