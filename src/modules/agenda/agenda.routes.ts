/** GET /api/agenda.php: the caller's appointments from Dolibarr's agenda, day by day (the app's "Heute"). */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { callerOf } from '../../plugins/authenticate.js';
import { ErrorResponse } from '../common/common.schemas.js';
import type { AgendaService } from './agenda.service.js';
import { AgendaList, AgendaQuery, MAX_AGENDA_DAYS, MAX_AGENDA_ITEMS } from './agenda.schemas.js';

const DESCRIPTION =
  "Added beyond the original contract. The caller's appointments: the events of Dolibarr's agenda (`llx_actioncomm`) of the served " +
  'entity whose owner (`fk_user_action`) or attendee (`llx_actioncomm_resources`, type `user`) the caller is, that begin on one of the ' +
  `\`days\` days from \`from\` on (default: today and the next 6, at most ${MAX_AGENDA_DAYS}) or began before and last into them, in time ` +
  `order (start, then id), at most ${MAX_AGENDA_ITEMS}. Days begin at midnight in Dolibarr's time zone (TIME_ZONE, given as \`time_zone\`). ` +
  "Dolibarr's automatic entries (type `systemauto`: an order validated, a mail sent) are left out. Each appointment has the order, " +
  'invoice, proposal or intervention it is linked to when the caller may see it (with its reports: how many, how many final), and the customer ' +
  "(the event's third party, else the object's) with address and phone, when the caller may see it as GET /api/customers.php?id= would. " +
  'Errors: 400 VALIDATION_FAILED (`from` not a day of the calendar or the days asked beyond 9999-12-31, `days` outside 1 to ' +
  `${MAX_AGENDA_DAYS}), 401 no or invalid token, 403 no read right.`;

export async function agendaRoutes(app: FastifyInstance, deps: { agenda: AgendaService }): Promise<void> {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/api/agenda.php',
    {
      schema: {
        tags: ['agenda'],
        summary: "The caller's appointments of today and the next days",
        description: DESCRIPTION,
        querystring: AgendaQuery,
        response: { 200: AgendaList, 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse },
      },
    },
    async (request) => deps.agenda.list(callerOf(request), request.query),
  );
}
