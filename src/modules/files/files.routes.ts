import type { FastifyInstance } from 'fastify';
import type { ModuleContext } from '../common/module-context.js';

export async function filesRoutes(_app: FastifyInstance, _ctx: ModuleContext): Promise<void> {
  // Endpoints of this module are added here.
}
