/**
 * Closing drains: app.close() (SIGTERM, SIGINT, a worker told to stop) stops taking new
 * connections and ends once every request it holds is answered, and not later.
 * - Every answer sent while closing carries `Connection: close`, so the connection ends with it.
 *   Without that, a keep-alive connection whose request was in flight would stay open after its
 *   answer until Fastify's keep-alive time (72 s), and the close with it.
 * - A request that arrives on an open connection while closing is answered like any other (the
 *   app sets return503OnClosing: false): it reached this process, and a 503 in another shape than
 *   the API's would turn it away for nothing. Each such connection carries at most that one
 *   request, so draining still ends.
 * - An answer whose headers went out before the close (a long download) leaves its connection
 *   idle afterwards: the keep-alive time drops to DRAIN_KEEP_ALIVE_MS then, so it ends soon after.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/** Keep-alive time of connections once closing. @default 1000 ms */
export const DRAIN_KEEP_ALIVE_MS = 1000;

export default fp(
  async function drain(app: FastifyInstance) {
    let closing = false;
    app.addHook('preClose', async () => {
      closing = true;
      app.server.keepAliveTimeout = Math.min(app.server.keepAliveTimeout || DRAIN_KEEP_ALIVE_MS, DRAIN_KEEP_ALIVE_MS);
    });
    app.addHook('onSend', async (request, reply) => {
      // HTTP/2 has no Connection header (and ends its sessions itself).
      if (closing && request.raw.httpVersionMajor === 1) reply.header('connection', 'close');
    });
  },
  { name: 'drain' },
);
