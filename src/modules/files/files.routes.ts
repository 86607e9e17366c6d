/**
 * Endpoint 16, GET /api/photo.php: a file of an order, invoice, proposal or report, or its
 * thumbnail. Endpoint 18, POST /api/delete_photo.php: deletes an attachment of an order.
 */
import path from 'node:path';
import { send } from '@fastify/send';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import { callerOf } from '../../plugins/authenticate.js';
import { ErrorResponse, MAX_ROW_ID } from '../common/common.schemas.js';
import { contentDisposition } from './file-path.js';
import { DeletePhotoBody, DeletePhotoQuery, DeletePhotoResponse, PhotoQuery, PhotoResponse } from './files.schemas.js';
import type { FilesService, LocatedFile } from './files.service.js';
import { notFoundCode } from '../access/element-access.js';

/** Private: the token may sit in the URL, and the files are a customer's. An hour, then revalidated by ETag. */
const CACHE_CONTROL = 'private, max-age=3600';

/** Streams a located file with @fastify/send (ranges, conditional requests), in our headers and error shape. */
async function sendFile(request: FastifyRequest, reply: FastifyReply, file: LocatedFile): Promise<FastifyReply> {
  // send() takes a URL path below `root`: the one name, encoded, below its real folder (no root-less decoding of the whole path).
  const result = await send(request.raw, `/${encodeURIComponent(path.basename(file.path))}`, {
    root: path.dirname(file.path),
    dotfiles: 'allow', // the path was checked already; a name may start with a dot
    index: false,
    contentType: false, // from the bytes, not the extension
    cacheControl: false, // ours, private
  });
  if (result.type !== 'file') {
    result.stream.destroy();
    const status = result.statusCode;
    if (status === 416)
      throw new AppError('RANGE_NOT_SATISFIABLE', { headers: { 'content-range': String(result.headers['Content-Range'] ?? '') } });
    if (status === 404) throw new AppError('FILE_NOT_FOUND');
    if (status === 400 || status === 403) throw new AppError('FILE_PATH_INVALID');
    // If-Match / If-Unmodified-Since failed.
    if (status === 412) throw new AppError('PRECONDITION_FAILED');
    throw result.type === 'error' ? result.metadata.error : new AppError('FILE_NOT_FOUND');
  }
  reply.code(result.statusCode).headers(result.headers);
  // As Dolibarr's document.php: a served file may not load or run anything.
  reply.header('content-security-policy', "default-src 'none'; sandbox");
  reply.header('cache-control', CACHE_CONTROL);
  reply.header('content-disposition', contentDisposition(file.name));
  reply.header('x-content-type-options', 'nosniff');
  if (result.statusCode === 304) {
    result.stream.destroy();
    return reply.send();
  }
  reply.header('content-type', file.contentType);
  return reply.send(result.stream);
}

export async function filesRoutes(app: FastifyInstance, deps: { files: FilesService }): Promise<void> {
  const { files } = deps;
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();

  typed.get(
    '/api/photo.php',
    {
      schema: {
        tags: ['files'],
        summary: 'A file of an order, invoice, proposal or report, or its thumbnail',
        description:
          "Serves a file from the object's folder in Dolibarr's documents folder (`commande/<ref>/`, `facture/<ref>/`, " +
          '`propale/<ref>/`, `bericht/<report ref>/`). The object is found by the first segment of `file` and must be ' +
          'visible to the caller; an object the caller may not see, an unknown ref and a missing file all answer ' +
          '404 FILE_NOT_FOUND. The token may come from the Authorization header (Bearer or bare), X-Authorization, ' +
          'Redirect-Http-Authorization, or the `jwt` query parameter. Supports Range (206; 416 RANGE_NOT_SATISFIABLE ' +
          'with `Content-Range: bytes */<size>`), If-None-Match / If-Modified-Since (304), If-Match / If-Unmodified-Since ' +
          '(412 PRECONDITION_FAILED). Errors are JSON in the usual shape; success is the file, not JSON.',
        querystring: PhotoQuery,
        response: {
          200: PhotoResponse,
          206: PhotoResponse,
          304: { description: 'Not modified.', type: 'null' },
          400: ErrorResponse,
          401: ErrorResponse,
          403: ErrorResponse,
          404: ErrorResponse,
          412: ErrorResponse,
          416: ErrorResponse,
        },
      },
      config: { auth: 'token-or-query' },
    },
    async (request, reply) => {
      const { modulepart, file, size } = request.query;
      return sendFile(request, reply, await files.locate(modulepart, file, size, callerOf(request)));
    },
  );

  typed.post(
    '/api/delete_photo.php',
    {
      schema: {
        tags: ['files'],
        summary: 'Delete an attachment of an order or an intervention',
        description:
          'Needs the `delete` right (403 AUTH_RIGHT_MISSING). Parameters `id` (order id) and `file` (file name) in a ' +
          "JSON body or, when the body does not give them, as query parameters. Deletes the file in the order's " +
          'folder (`commande/<ref>/<file>`), its thumbnails `thumbs/<base>_small<ext>` and `_mini<ext>` when present, ' +
          'and its `ecm_files` row. An order the caller may not see: 404 ORDER_NOT_FOUND; a missing file: 404 ' +
          'FILE_NOT_FOUND; a name with a path in it: 400 FILE_PATH_INVALID; a photo that a page of a report shows (draft or final, ' +
          "any version): 409 PHOTO_IN_USE with the reports' refs in `details.reports`, and nothing is deleted. Answers `{ deleted: true, name }`. " +
          'With `element_type` `fichinter`, `id` is an intervention and the file is deleted from its folder (`ficheinter/<ref>/`); one the caller may not see is 404 INTERVENTION_NOT_FOUND.',
        body: DeletePhotoBody,
        querystring: DeletePhotoQuery,
        response: {
          200: DeletePhotoResponse,
          400: ErrorResponse,
          401: ErrorResponse,
          403: ErrorResponse,
          404: ErrorResponse,
          409: ErrorResponse,
        },
      },
      config: { right: 'delete' },
      // Without a body the parameters come from the query: validate the absent body as an empty one.
      preValidation: async (request) => {
        if (request.body === undefined || request.body === null) request.body = {};
      },
    },
    async (request) => {
      const id = request.body?.id ?? request.query.id;
      const file = request.body?.file ?? request.query.file;
      const missing = [id === undefined && 'id', file === undefined && 'file'].filter((f): f is string => !!f);
      if (id === undefined || file === undefined) {
        throw new AppError('VALIDATION_FAILED', { details: missing.map((field) => ({ field, message: 'required' })) });
      }
      const type = request.body?.element_type ?? request.query.element_type ?? 'commande';
      // Digits as text may name a number beyond any rowid: such an object does not exist.
      if (Number(id) > MAX_ROW_ID) throw new AppError(notFoundCode(type));
      return files.deleteOrderFile(Number(id), file, callerOf(request), type);
    },
  );
}
