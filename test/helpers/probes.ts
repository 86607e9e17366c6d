/** Probe routes for testing authentication before the real endpoints use it. */
import type { FastifyInstance } from 'fastify';

export function registerProbes(app: FastifyInstance): void {
  app.get('/api/probe.php', { schema: { hide: true } }, async (request) => ({ user: request.user }));
  app.get('/api/probe-file.php', { schema: { hide: true }, config: { auth: 'token-or-query' } }, async (request) => ({
    user: request.user,
  }));
  app.post('/api/probe-write.php', { schema: { hide: true }, config: { right: 'write' } }, async (request) => ({ user: request.user }));
}
