/**
 * Large JSON answers sent gzip-compressed to a client that accepts it: the catalogue a phone copies
 * (500 products a page, about 100 KB of JSON) is a tenth of that compressed, which on a slow line
 * is most of the copy's time. Compressed in the thread pool (zlib's asynchronous gzip), so the
 * event loop does not wait for it. Only for the routes that ask for it (a route's onSend): the
 * small answers the lists give many times a second are not worth the CPU.
 */
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { encodingWeights } from '../../plugins/web-app.js';

const gzipAsync = promisify(gzip);

/** Answers from this size on are compressed. @default 8 KiB */
export const GZIP_FROM_BYTES = 8 * 1024;

/** Whether an Accept-Encoding header accepts gzip (by name, else by `*`, with a q above 0). */
export function acceptsGzip(header: string | undefined): boolean {
  const weights = encodingWeights(header);
  return (weights.get('gzip') ?? weights.get('*') ?? 0) > 0;
}

/** A route's onSend: a JSON answer of at least GZIP_FROM_BYTES, gzip-compressed when the client accepts it. */
export async function gzipWhenLarge(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  const vary = reply.getHeader('vary');
  // Whatever is sent, a cache must keep the answer per Accept-Encoding.
  if (
    !String(vary ?? '')
      .toLowerCase()
      .includes('accept-encoding')
  )
    reply.header('vary', vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding');
  if (typeof payload !== 'string' || Buffer.byteLength(payload) < GZIP_FROM_BYTES) return payload;
  if (reply.getHeader('content-encoding') || !acceptsGzip(request.headers['accept-encoding'])) return payload;
  reply.header('content-encoding', 'gzip');
  reply.removeHeader('content-length');
  return gzipAsync(payload);
}
