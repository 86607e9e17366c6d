/**
 * Behind a reverse proxy without TRUST_PROXY every request seems to come from the proxy's address,
 * so the login limit per client address (LOGIN_MAX_FAILURES_PER_ADDRESS) counts everyone's failures
 * together: a few wrong passwords lock out every user behind the proxy. The service cannot tell a
 * proxy from a client that sends the headers itself (trusting them blindly would let anyone choose
 * an address), so it does not change behaviour; it says so in the log, once per process, at the
 * first forwarded request it sees.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../config.js';

export const FORWARDING_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip'] as const;

export default fp(
  async function proxyWarning(app: FastifyInstance, options: { trustProxy: Config['trustProxy'] }) {
    if (options.trustProxy) return; // also 0 hops or an empty list: nothing trusted
    let warned = false;
    app.addHook('onRequest', async (request) => {
      if (warned) return;
      const header = FORWARDING_HEADERS.find((name) => request.headers[name] !== undefined);
      if (!header) return;
      warned = true;
      request.log.warn(
        { header, peer: request.socket.remoteAddress },
        `a request came through a proxy (${header} header) but TRUST_PROXY is off: every client then has the proxy's address, ` +
          'and failed logins from all of them count against one address limit (LOGIN_MAX_FAILURES_PER_ADDRESS). ' +
          "Set TRUST_PROXY to the proxy's address (or hop count) if the service runs behind one; this is logged once",
      );
    });
  },
  { name: 'proxy-warning' },
);
