/**
 * Endpoints 11-13: /api/pages.php — add, update, delete and reorder a report's pages.
 * (The signature page, action=signature, comes with the signature module.)
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import { callerOf } from '../../plugins/authenticate.js';
import { ErrorResponse, IdempotencyHeaders } from '../common/common.schemas.js';
import { chooseAction, requireParam } from '../common/dispatch.js';
import type { Config } from '../../config.js';
import { parseBody } from '../common/body.js';
import type { SignatureService } from '../signatures/signatures.service.js';
import type { PageService } from './pages.service.js';
import { nameItemsIn } from './checklist.js';
import {
  AddPageBody,
  CheckAllBody,
  CheckBody,
  CHECKLIST_RULES,
  DeletedPage,
  SignedPage,
  EDITABLE_LAYOUTS,
  MAX_REPORT_PAGES,
  Page,
  PagesQuery,
  ReorderBody,
  ReportDetail,
  UpdatePageBody,
} from '../reports/reports.schemas.js';
import { Type } from 'typebox';
import { readSignatureForm } from '../signatures/signature-form.js';
import { SIGNATURE_DESCRIPTION } from '../signatures/signatures.schemas.js';

const ERRORS = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse, 415: ErrorResponse };

const POST_DESCRIPTION = [
  "Four operations, chosen by `action`, `id` and `delete`; all need the write right and a draft report the caller sees (a final report's pages are fixed: 409 REPORT_FINAL; " +
    "a template's pages need the template right: Dolibarr admin flag or the module's admin right).",
  '1. `action=add&bericht_id=<report>`: appends a page. Body: `layout` (' +
    EDITABLE_LAYOUTS.join(', ') +
    '), `title`, `note`, `rotation` (0, 90, 180, 270), ' +
    '`source` (the name of a photo in the parent order\'s attachments, as /api/orders.php?action=photos lists them; for a template a file of its own work area) and, for before_after, `source_2` (the "Nachher" photo). ' +
    'Without `layout`: photo when `source` is given, else title_only. photo needs `source`, before_after both (400 PAGE_SOURCE_REQUIRED). ' +
    `The photo must exist (404 FILE_NOT_FOUND) and be JPEG, PNG or WebP (415; a corrupt one 400 IMAGE_INVALID). At most ${MAX_REPORT_PAGES} pages (409 REPORT_TOO_MANY_PAGES). 201 with the page.`,
  '2. `id=<page>` (no action): updates the page. Body: any of `note`, `rotation`, `title`, `layout`, and `source`/`source_2` as for add. 200 with the page.',
  '3. `id=<page>&delete=1`: deletes the page, like DELETE (needs the delete right too).',
  '3a. Checklists. `layout: "checklist"` with `checklist`: the items (add; update replaces the list, keeping the answers of items named by id). ' +
    '`action=check&id=<page>`: one answer, body `{ item, state?, value?, note?, photos?, checked_at? }` (fields not given stay as they are; null clears). ' +
    '`action=check_all&id=<page>`: body `{ "state": "ok" }`, "alle übrigen OK": every item still open becomes ok, except a measurement (an item with a unit or a limit) ' +
    'without a value or with one outside its limits, which stays open. Both answer 200 with the page; a template is not filled in (409 CONFLICT), a page that is no checklist is 400. ' +
    CHECKLIST_RULES,
  '4. `action=reorder` (`bericht_id` in the query or the body): body `{ "order": [page ids] }` must name every page of the report exactly once; ' +
    'page_order is rewritten in one transaction. Anything else is 400 PAGE_ORDER_MISMATCH (details: duplicates, unknown, missing) and changes nothing. 200 with the report.',
  `5. ${SIGNATURE_DESCRIPTION}`,
  'Pages covered by a signature (every page before a signature page) cannot be changed, deleted or moved: 409 PAGE_SIGNED.',
  'A page or report that does not exist or that the caller may not see is 404 PAGE_NOT_FOUND / REPORT_NOT_FOUND.',
  'Header Idempotency-Key (see the header parameter), for a client that repeats a request after a lost answer (an offline queue): add, signature, update, reorder, check and check_all ' +
    'return the first answer (status and body) again and do nothing twice: no second page, no second signature page. The change and its stored answer are written in one transaction. ' +
    'Update and reorder would give the same result anyway; they take the key so a client can send one with every write. The key belongs to the operation and its object ' +
    "(add, signature and reorder: the report; update, check and check_all: the page): used for another operation or object, or for another endpoint's write, it is 409 IDEMPOTENCY_KEY_REUSED. " +
    'It is claimed once the report or page is found visible and before anything else is checked, so a repeat after the report was finalized still gets its first answer; ' +
    'for a signature, before the form is read. A refused request (404, 409 REPORT_FINAL, 400, …) keeps no key. A delete (`delete=1`) does not use the key.',
].join('\n\n');

const DELETE_DESCRIPTION =
  "Deletes the page `id` (delete right, a draft report the caller sees) and closes the gap in page_order. Its image files are deleted only when they lie in the reports' work area " +
  '(`bericht/<ref>/`) and no other page shows them; attachments of orders, invoices and proposals are never deleted. 200 `{ id, fk_bericht, deleted: true, files_deleted }`.';

export async function pagesRoutes(
  app: FastifyInstance,
  deps: { pages: PageService; signatures: SignatureService; config: Config },
): Promise<void> {
  const { pages, signatures, config } = deps;
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();

  const requirePage = (id: number | undefined): number => requireParam(id, 'id', { what: 'id (Seite)' });
  /** Deleting a page is a deletion (docs/architecture.md, Rights): the delete right, besides write for POST. */
  const remove = (request: FastifyRequest, id: number) => {
    const user = callerOf(request);
    if (!user.perms.delete) throw new AppError('AUTH_RIGHT_MISSING', { details: { right: 'delete' } });
    return pages.remove(user, id);
  };

  typed.post(
    '/api/pages.php',
    {
      schema: {
        tags: ['pages'],
        summary: 'Add, update, delete or reorder pages',
        description: POST_DESCRIPTION,
        querystring: PagesQuery,
        headers: IdempotencyHeaders,
        response: {
          200: Type.Union([Page, DeletedPage, ReportDetail]),
          201: Type.Union([SignedPage, Page]),
          ...ERRORS,
          413: ErrorResponse,
          503: ErrorResponse,
        },
      },
      config: { right: 'write' },
    },
    async (request, reply) => {
      const user = callerOf(request);
      const { id, bericht_id: reportId } = request.query;
      const action = chooseAction(request.query.action, ['add', 'reorder', 'signature', 'check', 'check_all'] as const);
      const key = request.headers['idempotency-key'];
      if (action === 'signature') {
        const readForm = () => readSignatureForm(request, config);
        return reply.code(201).send(await signatures.sign(user, requireParam(reportId, 'bericht_id'), readForm, key));
      }
      /** The body, or a refusal that names the checklist item it concerns. */
      const parse = <T extends Parameters<typeof parseBody>[0]>(schema: T) => {
        try {
          return parseBody(schema, request.body);
        } catch (error) {
          throw nameItemsIn(error, request.body);
        }
      };
      if (action === 'add') {
        return reply.code(201).send(await pages.add(user, requireParam(reportId, 'bericht_id'), parse(AddPageBody), key));
      }
      if (action === 'check') {
        const pageId = requirePage(id);
        let body: CheckBody;
        try {
          body = parseBody(CheckBody, request.body);
        } catch (error) {
          // The item is named by its id: its position and label are the page's.
          throw await pages.nameAnswerRefusal(user, pageId, error, request.body);
        }
        return pages.check(user, pageId, body, key);
      }
      if (action === 'check_all') return pages.checkAll(user, requirePage(id), parse(CheckAllBody), key);
      if (action === 'reorder') {
        const body = parseBody(ReorderBody, request.body);
        return pages.reorder(user, reportId ?? body.bericht_id, body.order, key);
      }
      const del = request.query.delete;
      if (del === true || del === 1 || del === '1' || del === 'true') return remove(request, requirePage(id));
      return pages.update(user, requirePage(id), parse(UpdatePageBody), key);
    },
  );

  typed.delete(
    '/api/pages.php',
    {
      schema: {
        tags: ['pages'],
        summary: 'Delete a page',
        description: DELETE_DESCRIPTION,
        querystring: Type.Object({ id: PagesQuery.properties.id }),
        response: { 200: DeletedPage, ...ERRORS },
      },
      config: { right: 'delete' },
    },
    async (request) => remove(request, requirePage(request.query.id)),
  );
}
