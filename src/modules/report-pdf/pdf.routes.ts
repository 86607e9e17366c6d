/**
 * Endpoint 17: GET /api/pdf.php?id=<report> — the final PDF, or a preview of a draft made now.
 * Like the file endpoint it reads the token from the `jwt` query parameter too, and it may be
 * shown in a frame of the web client's origin.
 */
import { createReadStream } from 'node:fs';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { callerOf } from '../../plugins/authenticate.js';
import { ErrorResponse } from '../common/common.schemas.js';
import { contentDisposition } from '../files/file-path.js';
import type { Config } from '../../config.js';
import type { ReportPdfService } from './report-pdf.service.js';
import { PdfQuery } from '../reports/reports.schemas.js';

const truthy = (v: unknown) => v === true || v === 1 || v === '1';

export async function pdfRoutes(app: FastifyInstance, deps: { pdf: ReportPdfService; config: Config }): Promise<void> {
  const { pdf, config } = deps;
  // Framing is allowed for the origins the API serves (CORS_ORIGINS), and the service itself.
  const ancestors = config.corsOrigins === '*' ? '*' : ["'self'", ...config.corsOrigins].join(' ');

  function pdfHeaders(reply: FastifyReply, filename: string, download: boolean, cache: string) {
    reply.header('content-type', 'application/pdf');
    reply.header(
      'content-disposition',
      download ? contentDisposition(filename).replace(/^inline/, 'attachment') : contentDisposition(filename),
    );
    reply.header('content-security-policy', `frame-ancestors ${ancestors}`);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('cache-control', cache);
  }

  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/api/pdf.php',
    {
      schema: {
        tags: ['reports'],
        summary: "A report's PDF: the final one, or a preview",
        description:
          'The PDF of report `id` (application/pdf, inline, so it shows in a frame; `download=1` for an attachment). A final report gives its stored PDF (final_pdf_path) unchanged; ' +
          'a draft, or `preview=1`, a preview made now from the current pages (images that are gone are drawn as grey "Bild fehlt" boxes). ' +
          'In both, every page after the report\'s last signature page carries the line "Nicht von der Unterschrift erfasst: nach der Unterschrift hinzugefügt" ' +
          '(text, in a red band above the page number): the signature does not cover it. ' +
          'Framing is allowed to the origins in CORS_ORIGINS (Content-Security-Policy frame-ancestors). The token may come in the `jwt` query parameter. ' +
          'Errors: 404 REPORT_NOT_FOUND (missing or not visible), 404 FILE_NOT_FOUND (a final report whose file is gone), 503 PDF_BUSY when too many PDFs are being made (Retry-After).',
        querystring: PdfQuery,
        produces: ['application/pdf'],
        response: {
          200: Type.Unknown({ description: 'The PDF (application/pdf).' }),
          400: ErrorResponse,
          401: ErrorResponse,
          403: ErrorResponse,
          404: ErrorResponse,
          503: ErrorResponse,
        },
      },
      config: { auth: 'token-or-query' },
    },
    async (request, reply) => {
      const user = callerOf(request);
      const { id } = request.query;
      const download = truthy(request.query.download);
      if (!truthy(request.query.preview)) {
        const final = await pdf.finalFile(user, id);
        if (final) {
          pdfHeaders(reply, final.filename, download, 'private, max-age=0, must-revalidate');
          return reply.send(createReadStream(final.path));
        }
      }
      const preview = await pdf.preview(user, id, { ip: request.ip });
      pdfHeaders(reply, preview.filename, download, 'private, no-store');
      return reply.send(preview.stream);
    },
  );
}
