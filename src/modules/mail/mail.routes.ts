/**
 * /api/mails.php: a final report sent to the customer by e-mail (mail.schemas.ts, MAIL_RULES).
 * In the scope of the report's routes (app.ts): a mail is visible with its report.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { callerOf } from '../../plugins/authenticate.js';
import { ErrorResponse, IdempotencyHeaders } from '../common/common.schemas.js';
import { chooseAction, requireParam } from '../common/dispatch.js';
import { publicBaseUrl } from '../common/public-url.js';
import type { Config } from '../../config.js';
import type { MailService } from './mail.service.js';
import { parseSendBody } from './mail-address.js';
import { MailJob, MailList, MailProposal, MailsQuery, MAIL_RULES } from './mail.schemas.js';

const ERRORS = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse };

export async function mailRoutes(app: FastifyInstance, deps: { mails: MailService; config: Config }): Promise<void> {
  const { mails, config } = deps;
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();

  typed.get(
    '/api/mails.php',
    {
      schema: {
        tags: ['mails'],
        summary: "A report's mails, one mail, or what a new one would say",
        description: [
          "1. `bericht_id`: the report's mails, newest first, as `{ items, total }` (paged by limit/offset).",
          '2. `id`: one mail with its state (404 MAIL_NOT_FOUND when its report is not visible to the caller).',
          "3. `action=propose&bericht_id=`: the recipients Dolibarr knows for the report's object (its customer contacts, then the third party's address), " +
            "the copies the settings add, and subject and text from the template in the customer's language; `configured` false when mail is not set up. 409 REPORT_NOT_FINAL for a draft.",
          MAIL_RULES,
        ].join('\n\n'),
        querystring: MailsQuery,
        response: { 200: { anyOf: [MailList, MailJob, MailProposal] }, ...ERRORS },
      },
    },
    async (request) => {
      const user = callerOf(request);
      const { id, bericht_id: reportId, limit = 50, offset = 0 } = request.query;
      const action = chooseAction(request.query.action, ['propose'] as const);
      if (action === 'propose') return mails.propose(user, requireParam(reportId, 'bericht_id'), publicBaseUrl(config, request));
      if (id !== undefined) return mails.get(user, id);
      return mails.list(user, requireParam(reportId, 'bericht_id'), { limit, offset });
    },
  );

  typed.post(
    '/api/mails.php',
    {
      schema: {
        tags: ['mails'],
        summary: 'Send a final report by e-mail',
        description: [
          '`action=send`, body `{ bericht_id, to, cc?, subject?, text? }`; write right. 201 with the mail, `queued`: a service process sends it within seconds (GET `id` shows its state). ' +
            '409 REPORT_NOT_FINAL for a draft; 404 REPORT_NOT_FOUND for a report the caller may not see; 429 MAIL_LIMIT_REACHED (Retry-After) beyond the limits below.',
          MAIL_RULES,
          'Header Idempotency-Key: the key belongs to the report; a repeat (the app sends from its offline queue) gets the first answer and queues nothing.',
        ].join('\n\n'),
        querystring: MailsQuery,
        headers: IdempotencyHeaders,
        response: { 201: MailJob, ...ERRORS, 429: ErrorResponse },
      },
      config: { right: 'write' },
    },
    async (request, reply) => {
      chooseAction(requireParam(request.query.action, 'action'), ['send'] as const);
      const job = await mails.send(callerOf(request), parseSendBody(request.body), request.headers['idempotency-key'], {
        baseUrl: publicBaseUrl(config, request),
        ip: request.ip,
      });
      return reply.code(201).send(job);
    },
  );
}
