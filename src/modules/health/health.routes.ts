/**
 * GET /api/health: 200 when the database answers, 503 otherwise. Public, for load balancers.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { pingDb, type Db } from '../../db/database.js';
import { AppError } from '../../errors.js';
import { ErrorResponse } from '../common/common.schemas.js';

const HealthResponse = Type.Object({
  status: Type.Literal('ok'),
  database: Type.Literal('ok'),
  version: Type.String(),
});

export async function healthRoutes(app: FastifyInstance, options: { db: Db; version: string }): Promise<void> {
  app.get(
    '/api/health',
    {
      schema: {
        tags: ['system'],
        summary: 'Health check (database round trip)',
        security: [],
        response: { 200: HealthResponse, 503: ErrorResponse },
      },
      config: { auth: 'public' },
    },
    async (request) => {
      try {
        await pingDb(options.db);
      } catch (error) {
        request.log.error({ err: error }, 'health check: database unreachable');
        throw new AppError('SERVICE_UNAVAILABLE', { details: { database: 'unreachable' } });
      }
      return { status: 'ok' as const, database: 'ok' as const, version: options.version };
    },
  );
}
