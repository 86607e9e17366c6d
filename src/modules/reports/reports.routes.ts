/**
 * Endpoints 6-10: /api/reports.php — list, detail, create, finalize, new version, delete; and
 * `action=update` (not in the contract, which has no way to change a report's own fields): a draft's
 * `photos_per_sheet`.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../errors.js';
import { MAX_MISSING_REASON } from '../signatures/signoff.js';
import { callerOf } from '../../plugins/authenticate.js';
import { ErrorResponse, IdempotencyHeaders, MAX_SEARCH_LENGTH } from '../common/common.schemas.js';
import { chooseAction, requireParam } from '../common/dispatch.js';
import { sendAs } from '../common/send-as.js';
import { parseBody } from '../common/body.js';
import type { ReportPdfService } from '../report-pdf/report-pdf.service.js';
import type { ReportSettingsService } from './report-settings.service.js';
import type { ReportService } from './reports.service.js';
import {
  CreateReportBody,
  DeletedReport,
  FinalizeReportBody,
  MAX_REPORT_PAGES,
  REPORT_FORMATS,
  ReportDetail,
  ReportList,
  ReportsQuery,
  UpdateReportBody,
} from './reports.schemas.js';

const ERRORS = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse };

const GET_DESCRIPTION = [
  "Without `id`: the caller's reports as `{ items, total }`, newest first, paged by `limit`/`offset`. Visible are reports of the served entity that the caller created " +
    'or whose parent object (order, invoice, proposal) the caller sees. Templates are left out (see /api/templates.php). ' +
    `Filters: \`element_type\` + \`fk_element\` (one object's reports), \`status\` (draft, final), \`q\` (ref, title, parent ref; at most ${MAX_SEARCH_LENGTH} characters).`,
  "With `id`: the report with its `pages` in page_order and `versions` (every version of it, by version number, for the editor's version links). " +
    'Every page (here and in every other answer with pages) carries `signature`: for a signature page `{ signer_name, signed_at, signed_at_device, signed_at_device_zone, device_time_plausible }` ' +
    '(times in Unix seconds; the device fields null when the phone sent no time), so a client can caption it in its own language; null for every other page.',
  'Errors: 400 VALIDATION_FAILED, 401, 403 without the read right, 404 REPORT_NOT_FOUND (missing or not visible: the same answer).',
].join('\n\n');

const POST_DESCRIPTION = [
  '`action=create` (no id): a new draft on an order (`element_type` commande, the default), invoice (facture), proposal (propal) or intervention (fichinter) the caller sees ' +
    '(404 ORDER_NOT_FOUND, INTERVENTION_NOT_FOUND or OBJECT_NOT_FOUND otherwise). ' +
    `Body: \`fk_element\` (required), \`title\` (required unless a template gives it), \`format\` (${REPORT_FORMATS.join(', ')}; default A4), ` +
    '`orientation` (portrait, landscape; default portrait), `odt_template` (a cover sheet from /api/odt_templates.php, or null), ' +
    "`photos_per_sheet` (1, 2 or 4 photo pages on one printed sheet of the PDF; default 4; see the field in the answer), `template_id` (start with a copy of a template's pages; " +
    'its title, format, orientation, cover sheet and photos_per_sheet are used where the body gives none). The ref is BR<yy><mm>-<nnnn>, the next of the month, unique also when two reports are created at once. 201 with the report.',
  '`action=update` with `id`: changes a draft (or a template: template right): body `{ photos_per_sheet }` (1, 2 or 4; any other value, also "4" or null, is 400 VALIDATION_FAILED). ' +
    'Title, format, orientation and cover sheet are fixed when the report is made. 409 REPORT_FINAL for a final report (a new version is a draft again). ' +
    'Header Idempotency-Key: a repeat after a lost answer gets the first answer again, also once the report is final; the key belongs to this action and report. 200 with the report.',
  '`action=finalize` with `id`: renders the PDF (cover sheet, then every page), writes it to `bericht/<ref>/<ref>.pdf` (under a temporary name, then renamed), adds its llx_ecm_files row ' +
    '(gen_or_uploaded "generated"), sets final_pdf_path and the status final, all or nothing: on any failure the report stays a draft and no file is left. ' +
    "In the same transaction the material lines of the object not yet settled leave the vans of the technicians who entered them, as Dolibarr's stock movements (llx_stock_mouvement, llx_product_stock, the lot; `fk_stock_mouvement` of each line), exactly once; " +
    'a line Dolibarr itself takes when the office validates (STOCK_CALCULATE_ON_*), free text, a service or a line without a van is settled without one (BERICHT_STOCK_FROM_VAN 0: all; docs/dolibarr-writes.md), and the agenda event says which. ' +
    'A report on an order makes a draft Dolibarr intervention linked to the order (llx_fichinter, llx_element_element; ref_ext `fieldreport:<report ref>`), or completes the draft one an earlier report of the order made; a report on a draft intervention completes it: ' +
    "its new lines are the time on site the report takes and the material lines it settles (llx_fichinterdet), its signed state the customer's signature, the PDF among its documents (BERICHT_INTERVENTION_FROM_REPORT 0: none). " +
    "A report on an order also makes a draft customer invoice linked to the order and the intervention (llx_facture, llx_facturedet; ref_ext `fieldreport:<report ref>`), or completes the draft one an earlier report made: the labour per technician (the service BERICHT_LABOUR_SERVICE, hours as Dolibarr's time billing rounds them), " +
    "a line per material line at the price Dolibarr picks (the order line's, else the customer's price or price level, else the product's), free text at 0; never validated or numbered (BERICHT_INVOICE_FROM_REPORT 0: none). " +
    '409 REPORT_FINAL when already final, 409 REPORT_EMPTY without pages, 409 REPORT_SOURCE_MISSING when an image of a page is gone (details name the pages), ' +
    '409 STOCK_INSUFFICIENT when Dolibarr refuses stock below zero (STOCK_DISALLOW_NEGATIVE_TRANSFER) and a van holds less (details.short: ref, batch, warehouse, held, wanted). 200 with the report. ' +
    'Optional body `{ "missing": [ { "what", "reason" } ] }`: why it is finalized with what is still missing (`what`: open_items, no_departure, no_signature, pages_after_signature; ' +
    `each at most once; \`reason\` 1-${MAX_MISSING_REASON} characters). The PDF's summary lists what the report lacks when finalized (checklist items not checked, someone still on site, ` +
    'no signature, pages after the last signature), each with its reason or "ohne Begründung"; a reason for something not missing is not printed.',
  '`action=new_version` with `id`: a new draft with the next version number and fk_bericht_parent = id, a copy of the report with all its pages except signature pages ' +
    "(a signature covers the version it was given on; the new version is signed anew), with its photos_per_sheet. Images in the report's work area are copied; " +
    'attachments of the order stay shared. The old version is left exactly as it was. 201 with the new report.',
  `All need the write right. A report has at most ${MAX_REPORT_PAGES} pages.`,
  'Header Idempotency-Key (see the header parameter), for `action=create`: a client that repeats the request after a lost answer (an offline queue) gets the first 201 and its report again, ' +
    "and no second report is made (nor a second copy of a template's pages); the report and its stored answer are written in one transaction. The key belongs to the object " +
    "(`element_type` + `fk_element`): used for another object, or for another endpoint's write (also /api/templates.php?action=create_from_template), it is 409 IDEMPOTENCY_KEY_REUSED. " +
    'A refused request (404, 400, …) keeps no key. finalize and new_version do not use the key (a repeated finalize answers 409 REPORT_FINAL).',
].join('\n\n');

const DELETE_DESCRIPTION =
  'Deletes the report `id`, its pages, its work-area folder (`bericht/<ref>/`: page images that belong to it, the final PDF) and their llx_ecm_files rows. ' +
  "Attachments of orders, invoices and proposals that pages showed are kept. Needs the delete right; a final report also the admin right (Dolibarr admin flag or the module's admin right), " +
  'a template the template right (the same). Newer versions of it then link to its parent. 200 `{ id, ref, deleted: true }`.';

export async function reportsRoutes(
  app: FastifyInstance,
  deps: { reports: ReportService; settings: ReportSettingsService; pdf: ReportPdfService },
): Promise<void> {
  const { reports, settings, pdf } = deps;
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();

  typed.get(
    '/api/reports.php',
    {
      schema: {
        tags: ['reports'],
        summary: "The caller's reports, or one report with its pages",
        description: GET_DESCRIPTION,
        querystring: ReportsQuery,
        response: { 200: Type.Union([ReportList, ReportDetail]), ...ERRORS },
      },
    },
    async (request, reply) => {
      const user = callerOf(request);
      const { id, q, element_type, fk_element, status, limit = 50, offset = 0 } = request.query;
      if (request.query.action)
        throw new AppError('ACTION_UNKNOWN', {
          message: 'GET kennt keine Aktion; finalize, new_version und create sind POST',
          details: { known: [] },
        });
      if (id !== undefined) return reports.get(user, id);
      return sendAs(
        reply,
        ReportList,
        await reports.list(user, { q, elementType: element_type, fkElement: fk_element, status, limit, offset }),
      );
    },
  );

  typed.post(
    '/api/reports.php',
    {
      schema: {
        tags: ['reports'],
        summary: 'Create, change, finalize or version a report (action=create|update|finalize|new_version)',
        description: POST_DESCRIPTION,
        querystring: ReportsQuery,
        headers: IdempotencyHeaders,
        response: { 200: ReportDetail, 201: ReportDetail, ...ERRORS, 503: ErrorResponse },
      },
      config: { right: 'write' },
    },
    async (request, reply) => {
      const user = callerOf(request);
      const known = ['create', 'update', 'finalize', 'new_version'] as const;
      const action = chooseAction(request.query.action, known);
      const { id } = request.query;
      if (action === undefined)
        throw new AppError('ACTION_UNKNOWN', {
          message: 'action erforderlich: create, update, finalize oder new_version',
          details: { known },
        });
      if (action === 'create') {
        const body = parseBody(CreateReportBody, request.body);
        return reply.code(201).send(await reports.create(user, body, { key: request.headers['idempotency-key'], route: 'report:create' }));
      }
      const reportId = requireParam(id, 'id', { why: `required for action=${action}` });
      if (action === 'update')
        return settings.update(user, reportId, parseBody(UpdateReportBody, request.body), request.headers['idempotency-key']);
      if (action === 'finalize') {
        const { missing = [] } = parseBody(FinalizeReportBody, request.body);
        const kinds = missing.map((m) => m.what);
        const twice = kinds.findIndex((kind, i) => kinds.indexOf(kind) !== i);
        if (twice >= 0)
          throw new AppError('VALIDATION_FAILED', {
            message: `Was fehlt, wird nur einmal begründet: ${kinds[twice]} steht zweimal`,
            details: [{ field: `body.missing.${twice}.what`, message: 'each kind at most once' }],
          });
        return pdf.finalize(user, reportId, { ip: request.ip, missing });
      }
      return reply.code(201).send(await reports.newVersion(user, reportId));
    },
  );

  typed.delete(
    '/api/reports.php',
    {
      schema: {
        tags: ['reports'],
        summary: 'Delete a report',
        description: DELETE_DESCRIPTION,
        querystring: Type.Object({ id: ReportsQuery.properties.id }),
        response: { 200: DeletedReport, ...ERRORS },
      },
      config: { right: 'delete' },
    },
    async (request) => {
      return reports.remove(callerOf(request), requireParam(request.query.id, 'id'));
    },
  );
}
