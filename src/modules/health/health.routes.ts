/**
 * GET /api/health: for load balancers and operators. 200 when the database answers and takes
 * writes; 503 when it is unreachable (SERVICE_UNAVAILABLE) or refuses writes (DATABASE_READ_ONLY:
 * a read-only file or server), with `details.database` saying which. Another process holding
 * SQLite's write lock is no fault: 200 with `writes: "busy"` (writes wait for it, up to 5 s).
 * Answered without waiting for any lock.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { pingDb, type DbHandle } from '../../db/database.js';
import { AppError } from '../../errors.js';
import { ErrorResponse } from '../common/common.schemas.js';

const HealthResponse = Type.Object({
  status: Type.Literal('ok'),
  database: Type.Literal('ok'),
  writes: Type.Union([Type.Literal('ok'), Type.Literal('busy')], {
    description: "`busy`: another process holds the database's write lock now; writes wait for it (SQLite).",
  }),
  version: Type.String(),
});

export async function healthRoutes(app: FastifyInstance, options: { handle: DbHandle; version: string }): Promise<void> {
  app.get(
    '/api/health',
    {
      schema: {
        tags: ['system'],
        summary: 'Health check (database round trip and write check)',
        description:
          '503 SERVICE_UNAVAILABLE with `details.database: "unreachable"` when the database does not answer; ' +
          '503 DATABASE_READ_ONLY with `details.database: "read_only"` when it answers but refuses writes.',
        security: [],
        response: { 200: HealthResponse, 503: ErrorResponse },
      },
      config: { auth: 'public' },
    },
    async (request) => {
      let writes;
      try {
        await pingDb(options.handle.db);
        writes = await options.handle.probeWrites();
      } catch (error) {
        request.log.error({ err: error }, 'health check: database unreachable');
        throw new AppError('SERVICE_UNAVAILABLE', { details: { database: 'unreachable' } });
      }
      if (writes === 'read_only') throw new AppError('DATABASE_READ_ONLY', { details: { database: 'read_only' } });
      return { status: 'ok' as const, database: 'ok' as const, writes, version: options.version };
    },
  );
}
