/**
 * /api/times.php: time on site at an order, invoice, proposal or intervention (times.schemas.ts, TIME_RULES).
 * In the scope of the report's routes (app.ts): a report's intervals are read under its visibility.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { callerOf } from '../../plugins/authenticate.js';
import { ErrorResponse, IdempotencyHeaders } from '../common/common.schemas.js';
import { chooseAction, requireParam } from '../common/dispatch.js';
import { parseBody } from '../common/body.js';
import type { ReportService } from '../reports/reports.service.js';
import type { TimeService } from './times.service.js';
import {
  AddTimeBody,
  CorrectTimeBody,
  TapBody,
  TimeInterval,
  TimeList,
  TIME_RULES,
  TimesQuery,
  UNDO_SECONDS,
  UndoneTime,
  UndoTimeBody,
} from './times.schemas.js';
import { totalSeconds } from './times.service.js';

const ERRORS = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse };

export async function timesRoutes(
  app: FastifyInstance,
  deps: { times: TimeService; reports: Pick<ReportService, 'visibleReport'> },
): Promise<void> {
  const { times, reports } = deps;
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();

  typed.get(
    '/api/times.php',
    {
      schema: {
        tags: ['times'],
        summary: 'Time on site of an object or a report',
        description:
          '`element_type` + `fk_element`: every interval at the object (all technicians), by arrival, as `{ items, total, total_seconds, open }` (paged by limit/offset; ' +
          "`total_seconds` sums all closed intervals; `open` is the caller's interval still open there). `bericht_id`: the intervals the report's PDF shows. " +
          'The caller must see the object or report: 404 otherwise, as a missing one. ' +
          TIME_RULES,
        querystring: TimesQuery,
        response: { 200: TimeList, ...ERRORS },
      },
    },
    async (request) => {
      const { element_type: type, fk_element: id, bericht_id: reportId, limit = 50, offset = 0 } = request.query;
      const user = callerOf(request);
      if (reportId !== undefined) {
        const all = await times.shownOnReport(user, await reports.visibleReport(user, reportId));
        return { items: all.slice(offset, offset + limit), total: all.length, total_seconds: totalSeconds(all), open: null };
      }
      return times.list(user, requireParam(type, 'element_type'), requireParam(id, 'fk_element'), { limit, offset });
    },
  );

  typed.post(
    '/api/times.php',
    {
      schema: {
        tags: ['times'],
        summary: 'Arrive, leave, enter, correct or take back time on site',
        description: [
          'Five operations, chosen by `action` and `id`; write right; the object must be visible (404 ORDER_NOT_FOUND for an order, INTERVENTION_NOT_FOUND for an intervention, OBJECT_NOT_FOUND otherwise).',
          "1. `action=arrive`, body `{ element_type, fk_element, at? }`: opens the caller's interval (201). Already open there: 409 TIME_ALREADY_OPEN.",
          '2. `action=leave`, the same body: closes it (200). None open: 409 TIME_NOT_OPEN.',
          '3. `action=add`, body `{ element_type, fk_element, arrival, departure, reason }`: an interval entered by hand (201).',
          "4. `id=<interval>`, body `{ arrival?, departure?, reason }`: a correction (200); the caller's own interval, or any with the admin right (else 404 TIME_NOT_FOUND).",
          `5. \`action=undo&id=<interval>\`, body \`{ tap: "arrive" | "leave" }\`: a tap taken back (200 \`{ id, tap, interval }\`): \`arrive\` removes the interval (it must still be open; \`interval\` null), \`leave\` opens it again. ` +
            `Only the caller's own tapped interval (404 TIME_NOT_FOUND otherwise), not entered or corrected by hand, not taken by a report (409 TIME_REPORTED), within ${UNDO_SECONDS} seconds of the tap reaching the service; ` +
            'otherwise 409 TIME_UNDO_NOT_POSSIBLE (a correction with a reason is the way then). Taking back a departure while another interval is open there: 409 TIME_ALREADY_OPEN.',
          TIME_RULES,
          'Header Idempotency-Key: the key belongs to the operation and its object (the object for 1-3, the interval for 4).',
        ].join('\n\n'),
        querystring: TimesQuery,
        headers: IdempotencyHeaders,
        response: { 200: Type.Union([TimeInterval, UndoneTime]), 201: TimeInterval, ...ERRORS },
      },
      config: { right: 'write' },
    },
    async (request, reply) => {
      const user = callerOf(request);
      const key = request.headers['idempotency-key'];
      const action = chooseAction(request.query.action, ['arrive', 'leave', 'add', 'undo'] as const);
      if (action === 'arrive') return reply.code(201).send(await times.arrive(user, parseBody(TapBody, request.body), key));
      if (action === 'leave') return times.leave(user, parseBody(TapBody, request.body), key);
      if (action === 'add') return reply.code(201).send(await times.add(user, parseBody(AddTimeBody, request.body), key));
      if (action === 'undo')
        return times.undo(
          user,
          requireParam(request.query.id, 'id', { what: 'id (Zeiteintrag)' }),
          parseBody(UndoTimeBody, request.body),
          key,
        );
      return times.correct(
        user,
        requireParam(request.query.id, 'id', { what: 'id (Zeiteintrag)' }),
        parseBody(CorrectTimeBody, request.body),
        key,
      );
    },
  );
}
