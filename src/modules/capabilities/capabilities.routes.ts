/** GET /api/capabilities.php: what this service offers the app (see capabilities.service.ts). */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { ErrorResponse } from '../common/common.schemas.js';
import type { CapabilitiesService } from './capabilities.service.js';

export const CapabilitiesResponse = Type.Object({
  transcription: Type.Boolean({
    description:
      'true when speech-to-text is set up and usable for the served entity: BERICHT_TRANSCRIBE_URL is set and BERICHT_TRANSCRIBE_MODE (and BERICHT_TRANSCRIBE_LANG) are valid, ' +
      'read as POST /api/transcribe.php reads them (llx_const, each overridden by the environment). false: that endpoint answers 503 TRANSCRIBE_NOT_CONFIGURED. ' +
      'It says nothing about whether the speech-to-text server answers right now.',
  }),
});
export type CapabilitiesResponse = Static<typeof CapabilitiesResponse>;

const DESCRIPTION =
  'What this service offers, for the app to read once per login (and again when it likes): `{ transcription }`. Read from the settings on every request, ' +
  "so a change in Dolibarr's setup shows at once. Needs a token and the read right (401, 403), like every endpoint; changes nothing.";

export async function capabilitiesRoutes(app: FastifyInstance, deps: { capabilities: CapabilitiesService }): Promise<void> {
  const service = deps.capabilities;

  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/api/capabilities.php',
    {
      schema: {
        tags: ['system'],
        summary: 'What this service offers (speech-to-text)',
        description: DESCRIPTION,
        response: { 200: CapabilitiesResponse, 401: ErrorResponse, 403: ErrorResponse },
      },
    },
    async () => service.capabilities(),
  );
}
