/**
 * Endpoint 15 (/ajax/verify_signature.php: a technician verifies a signature page) and the
 * service's public key for signature seals (/api/signing_key.php). The signature itself is made
 * through the pages endpoint (its form: signature-form.ts).
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { callerOf } from '../../plugins/authenticate.js';
import { ErrorResponse } from '../common/common.schemas.js';
import { requireParam } from '../common/dispatch.js';
import { VERIFY_DESCRIPTION, VerifyQuery, VerifyResponse } from './signatures.schemas.js';
import type { SignatureService } from './signatures.service.js';

export async function signaturesRoutes(app: FastifyInstance, deps: { signatures: SignatureService }): Promise<void> {
  const { signatures } = deps;
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const handler = async (request: FastifyRequest<{ Querystring: { id?: number; page_id?: number } }>) => {
    const body = (request.body ?? {}) as { id?: unknown; page_id?: unknown };
    const fromBody = body.id ?? body.page_id;
    const id =
      request.query.id ??
      request.query.page_id ??
      (typeof fromBody === 'number' && Number.isInteger(fromBody) && fromBody > 0 ? fromBody : undefined);
    return signatures.verify(callerOf(request), requireParam(id, 'id', { what: 'id (Unterschriftsseite)' }));
  };
  const schema = {
    tags: ['signatures'],
    summary: 'Verify a signature page',
    description: VERIFY_DESCRIPTION,
    querystring: VerifyQuery,
    response: { 200: VerifyResponse, 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse },
  };
  typed.get('/ajax/verify_signature.php', { schema }, handler);
  typed.post('/ajax/verify_signature.php', { schema }, handler);

  typed.get(
    '/api/signing_key.php',
    {
      schema: {
        tags: ['signatures'],
        summary: "The service's public key for signature seals",
        description:
          'No token needed. `{ algorithm: "Ed25519", key_id, public_key_pem, public_key_raw }`: with it anyone can check the `seal` of a signature\'s metadata (Ed25519 over the canonical JSON of the metadata without `seal`: keys sorted, no whitespace, UTF-8).',
      },
      config: { auth: 'public' },
    },
    async () => signatures.signingKey(),
  );
}
