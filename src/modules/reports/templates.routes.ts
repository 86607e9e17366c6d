/**
 * Endpoints 23 and 24: report templates (/api/templates.php) and cover-sheet templates
 * (/api/odt_templates.php).
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../errors.js';
import { callerOf } from '../../plugins/authenticate.js';
import { ErrorResponse, IdempotencyHeaders } from '../common/common.schemas.js';
import { chooseAction } from '../common/dispatch.js';
import type { listOdtTemplates } from '../../adapters/odt.js';
import { parseBody } from '../common/body.js';
import type { ReportService } from './reports.service.js';
import { CreateTemplateBody, FromTemplateBody, OdtTemplateList, ReportDetail, TemplateList, TemplatesQuery } from './reports.schemas.js';
import { odtTitle, TEMPLATE_PATH_CONST } from '../../adapters/odt.js';
import path from 'node:path';

const ERRORS = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse };

export async function templatesRoutes(
  app: FastifyInstance,
  deps: { reports: ReportService; odtTemplates: () => ReturnType<typeof listOdtTemplates> },
): Promise<void> {
  const { reports, odtTemplates } = deps;
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();

  typed.get(
    '/api/templates.php',
    {
      schema: {
        tags: ['templates'],
        summary: 'Report templates',
        description:
          'The report templates of the entity (reports flagged is_template, with template_label, on no object) as `{ items, total }`, newest first; every internal user with the read right sees them ' +
          '(external users, bound to a customer, see none). ' +
          "`q` searches label, title and ref. A template's pages: GET /api/reports.php?id=<template id>. Templates never appear in ordinary report lists.",
        querystring: TemplatesQuery,
        response: { 200: TemplateList, ...ERRORS },
      },
    },
    async (request) => {
      if (request.query.action || request.query.id !== undefined)
        throw new AppError('ACTION_UNKNOWN', {
          message: 'GET listet die Vorlagen; create_from_template und create sind POST',
          details: { known: [] },
        });
      const { q, limit = 50, offset = 0 } = request.query;
      return reports.listTemplates(callerOf(request), { q, limit, offset });
    },
  );

  typed.post(
    '/api/templates.php',
    {
      schema: {
        tags: ['templates'],
        summary: 'Create a report from a template, or a template',
        description: [
          '`action=create_from_template`: body `{ template_id, fk_element, element_type?, title?, format?, orientation?, odt_template? }`; the same as POST /api/reports.php?action=create with template_id: ' +
            "a new draft on the object with a copy of the template's pages (its images copied into the report's work area). Write right. 201 with the report. " +
            'Header Idempotency-Key (see the header parameter): a repeat after a lost answer gets the first 201 and its report again, and no second report is made; ' +
            'the report and its stored answer are written in one transaction. The key belongs to this action and the object (`element_type` + `fk_element`): ' +
            "used for another object or another endpoint's write (also /api/reports.php?action=create), it is 409 IDEMPOTENCY_KEY_REUSED. A refused request (404, 400, …) keeps no key.",
          "`action=create`: a new template, body `{ template_label, from_report?, title?, format?, orientation?, odt_template? }`. With `from_report`, the report's pages (not signature pages) and their images are copied, " +
            "so the template keeps them whatever happens to the order. Needs the template right (Dolibarr admin flag or the module's admin right). 201 with the template. " +
            "A template's pages are edited with /api/pages.php and it is deleted with DELETE /api/reports.php (template right). This action does not use an Idempotency-Key.",
        ].join('\n\n'),
        querystring: TemplatesQuery,
        headers: IdempotencyHeaders,
        response: { 201: ReportDetail, ...ERRORS },
      },
      config: { right: 'write' },
    },
    async (request, reply) => {
      const user = callerOf(request);
      const action = chooseAction(request.query.action, ['create_from_template', 'create'] as const);
      if (action === 'create') return reply.code(201).send(await reports.createTemplate(user, parseBody(CreateTemplateBody, request.body)));
      if (action === 'create_from_template') {
        const body = parseBody(FromTemplateBody, request.body);
        const idempotency = { key: request.headers['idempotency-key'], route: 'template:create_from_template' };
        return reply.code(201).send(await reports.create(user, { ...body, template_id: body.template_id }, idempotency));
      }
      throw new AppError('ACTION_UNKNOWN', {
        message: 'action erforderlich: create_from_template oder create',
        details: { known: ['create_from_template', 'create'] },
      });
    },
  );

  typed.get(
    '/api/odt_templates.php',
    {
      schema: {
        tags: ['templates'],
        summary: 'Cover-sheet templates (ODT)',
        description:
          `The ODT files in the module's template folders, as Dolibarr keeps document templates: the folders listed in the constant ${TEMPLATE_PATH_CONST} (comma or newline separated; ` +
          "DOL_DATA_ROOT stands for the documents folder), by default `doctemplates/bericht/` in the documents folder. `{ items, total }` by name; pass `name` as a report's odt_template. " +
          'The cover sheet is filled with Dolibarr-style {placeholders} (report, order, customer, company) and converted by LibreOffice when a report is finalized or previewed.',
        response: { 200: OdtTemplateList, 401: ErrorResponse, 403: ErrorResponse },
      },
    },
    async () => {
      // The first folder holding a name wins, as when a report's cover sheet is looked up.
      const seen = new Set<string>();
      const listed = (await odtTemplates()).filter((t) => !seen.has(t.name) && seen.add(t.name));
      // The title of each listed file (only these are opened), for the app to show instead of a file name.
      const items = await Promise.all(
        listed.map(async (t) => ({
          name: t.name,
          title: await odtTitle(path.join(t.dir, t.name)),
          size: t.size,
          mtime: Math.floor(t.mtime / 1000),
        })),
      );
      return { items, total: items.length };
    },
  );
}
