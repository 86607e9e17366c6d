/**
 * Endpoint 5, POST /api/orders.php?id=<order>&action=upload_photo, and endpoint 19,
 * POST /api/voice.php?id=<order>: a file into the order's folder (see uploads.service.ts).
 * Multipart is parsed only here (the plugin is registered inside this encapsulated context), with
 * tight limits: one file, at most 10 small fields, 12 parts; the file size limit is the route's cap + 1,
 * so a file over the cap is known after cap + 1 bytes.
 */
import multipart, { type Multipart } from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import { callerOf } from '../../plugins/authenticate.js';
import { ErrorResponse, IdempotencyHeaders } from '../common/common.schemas.js';
import { chooseAction } from '../common/dispatch.js';
import { COORDINATE_FORMS } from '../common/form-fields.js';
import { multipartError } from '../common/multipart.js';
import type { ModuleContext } from '../common/module-context.js';
import { beginIdempotent } from '../common/idempotency.js';
import { ACCEPTED_DESCRIPTION, type UploadKind, uploadCaps } from './upload-types.js';
import { UploadInterventionPhotoQuery, UploadPhotoQuery, UploadResponse, UploadVoiceQuery } from './uploads.schemas.js';
import { imageBoxFor } from '../../adapters/pdf.js';
import { rememberSha256 } from '../../adapters/file-digest.js';
import { DEFAULT_PHOTOS_PER_SHEET } from '../reports/photos-per-sheet.js';
import type { AttachedUpload, IncomingFile, UploadService } from './uploads.service.js';
import { EVIDENCE_FIELDS } from '../photo-evidence/photo-evidence.js';
import { randomBytes } from 'node:crypto';
import { Type } from 'typebox';
import { RowId } from '../common/common.schemas.js';
import { publicBaseUrl } from '../common/public-url.js';
import { contentSecurityPolicy, messagePage, uploadPage } from './upload-page.js';
import type { UploadTokenService } from './upload-tokens.service.js';
import { collectIfBuffersPiled } from '../../adapters/heap.js';
import { notFoundCode } from '../access/element-access.js';

/** A form field that is no proper text field: 400 naming it. */
const fieldRefused = (name: string, why: string) =>
  new AppError('VALIDATION_FAILED', {
    message: `Das Feld ${name} ist ungültig (${why === 'too long' ? 'zu lang' : why === 'given more than once' ? 'mehrfach angegeben' : 'eine Datei statt Text'})`,
    details: [{ field: `body.${name}`, message: why }],
  });

const ERRORS = {
  400: ErrorResponse,
  401: ErrorResponse,
  403: ErrorResponse,
  404: ErrorResponse,
  409: ErrorResponse,
  413: ErrorResponse,
  415: ErrorResponse,
};

const EVIDENCE_DESCRIPTION =
  "Photo evidence: optional text fields beside `file` (before or after it): `taken_at_device`, the phone's capture time as an RFC 3339 date-time WITH its UTC offset " +
  "(e.g. `2026-11-24T09:14:03.120+01:00` or `…Z`; kept as sent however far off), and `gps_lat` (-90..90) with `gps_lon` (-180..180), the phone's position at capture " +
  '(both or neither; the app sends them only when the person switched it on). An empty field counts as absent. A malformed time, one coordinate alone, ' +
  'a coordinate out of range or not in its form (' +
  COORDINATE_FORMS +
  '), or one of these fields sent as a file, cut off or twice: 400 VALIDATION_FAILED naming the field (`details[0].field`, e.g. `body.gps_lat`), and nothing is stored. ' +
  'The service records the SHA-256 of the bytes received, EXIF DateTimeOriginal (else DateTimeDigitized, with OffsetTimeOriginal) and EXIF GPS position where present, ' +
  "and the fields sent; the answer's `evidence` holds it, the pages that show the photo carry it (`evidence`, `evidence_2`), a signature's hash covers it " +
  '(form `fieldreport-pages/3`) and the PDF prints time and place under the photo. ';

function describe(kind: UploadKind, cap: number): string {
  return (
    `Multipart/form-data with the file in the field \`file\` (a part under another name, or none: 400 UPLOAD_MISSING). ` +
    `Accepted, decided from the bytes, not the name: ${ACCEPTED_DESCRIPTION[kind]}; anything else 415 UPLOAD_TYPE_UNSUPPORTED. ` +
    `At most ${cap} bytes (configurable, UPLOAD_MAX_${kind === 'photo' ? 'PHOTO' : 'AUDIO'}_BYTES); larger: 413 UPLOAD_TOO_LARGE. ` +
    (kind === 'photo'
      ? 'JPEG, PNG and WebP are opened (at most 100 megapixels); a corrupt image is 400 IMAGE_INVALID (a JPEG from its structure: cut off, or a wrong marker inside; PNG and WebP decoded). ' +
        'They get both Dolibarr thumbnails in thumbs/ (EXIF orientation applied): PNG and WebP before the answer, a JPEG just after it (the thumbnail URLs answer at once either way: a missing thumbnail is made when asked for). ' +
        EVIDENCE_DESCRIPTION
      : '') +
    'The file goes into the order folder (commande/<ref>/) under the client name cleaned as Dolibarr does, never overwriting (name_2.ext, …), ' +
    'with an llx_ecm_files row (gen_or_uploaded "uploaded"). No report or page is touched. Needs the write right; ' +
    'an order the caller cannot see is 404 ORDER_NOT_FOUND. Header Idempotency-Key: see the header parameter.'
  );
}

export async function uploadsRoutes(
  app: FastifyInstance,
  deps: ModuleContext & { uploads: UploadService; uploadTokens: UploadTokenService },
): Promise<void> {
  const { config, handle, access, runs, printQueue } = deps;
  const caps = uploadCaps(config);
  const service = deps.uploads;

  await app.register(multipart, {
    limits: {
      files: 1,
      fileSize: Math.max(caps.photo, caps.audio) + 1,
      fields: 10,
      fieldSize: 1024,
      parts: 12,
      fieldNameSize: 100,
      headerPairs: 50,
    },
  });

  /**
   * After the answer: the file's SHA-256, hashed on its way in, is kept for the PDFs that will show
   * it, and a photo's print-size copy for the default layout (4 to a sheet on A4 portrait) is made
   * in the background (with a JPEG's thumbnails), so a report finalized at once finds it. A page in another layout has its
   * own copy made when it is added (work-area.ts, prepareAhead).
   */
  function madeAhead(attached: AttachedUpload): void {
    collectIfBuffersPiled(); // the upload's chunks
    void rememberSha256(attached.file, attached.sha256).catch(() => undefined);
    // A JPEG's thumbnails come from the same decode; its upload is settled when they are written.
    const settle = attached.settle;
    if (attached.raster)
      printQueue.add(attached.file, imageBoxFor('A4', 'portrait', DEFAULT_PHOTOS_PER_SHEET, 'photo'), settle && { done: settle });
  }

  /**
   * The part in the field `file`, with the route's size limit, and the form's text fields: those
   * before the file at once, those after it once the file was read (`fields`). A second file part
   * is passed over, as before (a photo's evidence field sent as a file is refused, naming it).
   */
  async function filePart(request: FastifyRequest, kind: UploadKind): Promise<IncomingFile> {
    if (!request.isMultipart()) throw new AppError('UPLOAD_MISSING');
    // Two files: a second one is seen (by its name) and passed over; a third ends the reading.
    const parts = request.parts({ limits: { fileSize: caps[kind] + 1, files: 2 } })[Symbol.asyncIterator]();
    const fields: Record<string, string> = {};
    const take = (part: Multipart): void => {
      const name = part.fieldname;
      if (part.type === 'file') {
        part.file.resume();
        if ((EVIDENCE_FIELDS as readonly string[]).includes(name)) throw fieldRefused(name, 'must be a text field, not a file');
        return;
      }
      if (part.valueTruncated || typeof part.value !== 'string') throw fieldRefused(name, 'too long');
      if (name in fields && (EVIDENCE_FIELDS as readonly string[]).includes(name)) throw fieldRefused(name, 'given more than once');
      fields[name] = part.value;
    };
    let next;
    try {
      while (!(next = await parts.next()).done && next.value.type !== 'file') take(next.value);
      // The first file, if it is the photo; else one that comes after another part under another name is no photo either.
      if (!next.done && next.value.fieldname !== 'file') take(next.value);
    } catch (error) {
      throw multipartError(error);
    }
    const part = next.done ? undefined : next.value;
    if (!part || part.type !== 'file' || part.fieldname !== 'file') throw new AppError('UPLOAD_MISSING');
    return {
      stream: part.file,
      filename: part.filename ?? '',
      async fields() {
        try {
          for (let rest = await parts.next(); !rest.done; rest = await parts.next()) take(rest.value);
        } catch (error) {
          // A third file ends the reading, as before (the fields read so far count).
          if ((error as { code?: string }).code === 'FST_FILES_LIMIT') return fields;
          throw multipartError(error);
        }
        return fields;
      },
    };
  }

  async function upload(
    request: FastifyRequest,
    reply: FastifyReply,
    kind: UploadKind,
    route: string,
    id: number,
    type: 'commande' | 'fichinter' = 'commande',
  ) {
    const caller = callerOf(request);
    const found = await access.getById(type, id, caller);
    if (!found) throw new AppError(notFoundCode(type));
    const order = { ...found, type };
    const key = request.headers['idempotency-key'];
    const idem =
      typeof key === 'string'
        ? await beginIdempotent(
            { db: handle.db, runs, confirm: (planned) => service.confirm(order, planned) },
            {
              entity: config.entity,
              userId: caller.id,
              key,
              scope: type === 'commande' ? `${route}:${order.id}` : `${route}:${type}:${order.id}`,
            },
          )
        : undefined;
    if (idem?.replay) {
      // An answer stored before uploads carried `evidence` (kept 7 days): none was recorded then.
      const body = idem.replay.body as { evidence?: unknown } | null;
      if (body && typeof body === 'object' && idem.replay.statusCode === 201 && body.evidence === undefined) body.evidence = null;
      return reply.code(idem.replay.statusCode).send(body);
    }
    try {
      const attached = await service.attach(kind, order, await filePart(request, kind), caller.id, idem?.claim);
      await idem?.complete(201, attached.response).catch(async (error: unknown) => {
        await attached.undo().catch(() => undefined);
        throw error;
      });
      madeAhead(attached);
      return reply.code(201).send(attached.response);
    } catch (error) {
      await idem?.release().catch(() => undefined);
      throw error;
    }
  }

  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  // action=upload_photo on an order and on an intervention: the same upload into the object's folder.
  const photoRoutes = [
    {
      url: '/api/orders.php',
      summary: 'Upload a photo into the order folder (action=upload_photo)',
      description: describe('photo', caps.photo),
      querystring: UploadPhotoQuery,
      element: undefined,
    },
    {
      url: '/api/interventions.php',
      summary: "Upload a photo into the intervention's folder (action=upload_photo)",
      description: describe('photo', caps.photo)
        .replace(
          'The file goes into the order folder (commande/<ref>/)',
          "The file goes into the intervention's folder (ficheinter/<ref>/, llx_fichinter)",
        )
        .replace(
          'an order the caller cannot see is 404 ORDER_NOT_FOUND',
          'an intervention the caller cannot see is 404 INTERVENTION_NOT_FOUND',
        ),
      querystring: UploadInterventionPhotoQuery,
      element: 'fichinter',
    },
  ] as const;
  for (const route of photoRoutes)
    typed.post(
      route.url,
      {
        schema: {
          tags: ['uploads'],
          summary: route.summary,
          description: route.description,
          querystring: route.querystring,
          headers: IdempotencyHeaders,
          consumes: ['multipart/form-data'],
          response: { 201: UploadResponse, ...ERRORS },
        },
        config: { right: 'write', multipartFile: { description: 'The photo: JPEG, PNG, WebP or HEIC/HEIF (decided from its bytes).' } },
      },
      async (request, reply) => {
        if (chooseAction(request.query.action, ['upload_photo'] as const) === undefined)
          throw new AppError('ACTION_UNKNOWN', { details: { known: ['upload_photo'] } });
        return upload(request, reply, 'photo', 'upload_photo', request.query.id, route.element);
      },
    );

  // ---- QR upload links (docs/api-contract.md, Upload token) ----------------------------------------------------
  const LinkTargetType = Type.Union([Type.Literal('commande'), Type.Literal('fichinter')], {
    description: 'Whose folder the link fills: `commande` (the default, an order) or `fichinter` (an intervention).',
  });
  const tokens = deps.uploadTokens;
  const MAX_TOKEN_HOURS = config.uploadTokenMaxDays * 24;
  const LINK_RULES =
    'A link acts for its maker, and only while the maker could do the same: on every use the maker must still be active, hold the write right and see the order; ' +
    `otherwise 410 UPLOAD_TOKEN_REVOKED. No link lives longer than UPLOAD_TOKEN_MAX_DAYS (${config.uploadTokenMaxDays}) days after it was made, also one made before under a longer limit. `;

  typed.post(
    '/api/upload_token.php',
    {
      schema: {
        tags: ['uploads'],
        summary: 'A QR upload link for an order',
        description:
          `JSON \`{ fk_element, element_type?: "commande" | "fichinter", hours? }\`: a link that lets any phone that has it put photos into the order's folder ` +
          "(with `element_type` `fichinter`: the intervention's, `ficheinter/<ref>/`; 404 INTERVENTION_NOT_FOUND) without a login, " +
          `for \`hours\` (default UPLOAD_TOKEN_HOURS = ${config.uploadTokenHours}, at most ${MAX_TOKEN_HOURS}, UPLOAD_TOKEN_MAX_DAYS × 24). Write right; the order must be visible (404 ORDER_NOT_FOUND). ` +
          LINK_RULES +
          '201 `{ id, token, expires, upload_url, qr_svg, qr_png }`: `id` names the link for the list and for revoking it; `qr_svg` is an SVG document, `qr_png` a data: URL, both of `upload_url` ' +
          "(`/public/upload.php?token=…`; the address comes from PUBLIC_URL, else from the request). Only the token's SHA-256 is stored. " +
          'The page at the link uploads with the same checks and storage as action=upload_photo; an expired link answers 410, an unknown one 404. Expired links are removed by the daily clean-up.',
        body: Type.Object(
          {
            fk_element: RowId('The order.'),
            element_type: Type.Optional(LinkTargetType),
            hours: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_TOKEN_HOURS })),
          },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Object({
            id: Type.Integer(),
            token: Type.String(),
            expires: Type.Integer(),
            upload_url: Type.String(),
            qr_svg: Type.String(),
            qr_png: Type.String(),
          }),
          ...ERRORS,
        },
      },
      config: { right: 'write' },
    },
    async (request, reply) => {
      return reply
        .code(201)
        .send(
          await tokens.create(
            callerOf(request),
            request.body.fk_element,
            request.body.hours,
            publicBaseUrl(config, request),
            request.body.element_type,
          ),
        );
    },
  );

  const LiveLink = Type.Object({
    id: Type.Integer({ description: 'The link, for DELETE /api/upload_token.php?id=…' }),
    created: Type.Integer({ description: 'When it was made, Unix seconds.' }),
    expires: Type.Integer({
      description: 'When it ends, Unix seconds (its own expiry, or UPLOAD_TOKEN_MAX_DAYS after it was made, whichever is first).',
    }),
    created_by: Type.Object(
      { id: Type.Integer(), name: Type.String({ description: 'Full name, or the login.' }) },
      { description: 'Who made it: the link acts for this user.' },
    ),
  });
  typed.get(
    '/api/upload_token.php',
    {
      schema: {
        tags: ['uploads'],
        summary: "The order's QR upload links that work now",
        description:
          "`?fk_element=<order>`: the order's links that work now, newest first (at most 200): not expired, and their maker may still write to the order. " +
          'The token itself is not stored and never listed. Write right; the order must be visible (404 ORDER_NOT_FOUND). ' +
          LINK_RULES,
        querystring: Type.Object(
          { fk_element: RowId('The order (or intervention).'), element_type: Type.Optional(LinkTargetType) },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ items: Type.Array(LiveLink) }), ...ERRORS },
      },
      config: { right: 'write' },
    },
    async (request) => ({ items: await tokens.list(callerOf(request), request.query.fk_element, request.query.element_type) }),
  );

  typed.delete(
    '/api/upload_token.php',
    {
      schema: {
        tags: ['uploads'],
        summary: 'Revoke a QR upload link',
        description:
          '`?id=<link>`: ends the link at once; its page and uploads answer 404 UPLOAD_TOKEN_NOT_FOUND from then on. ' +
          "Anyone who may write to the link's order may revoke it (write right, order visible), not only its maker: the office or a colleague can end the link of a lost phone. " +
          'A link that does not exist (never made, revoked or cleaned up already) and the link of an order the caller does not see answer alike: 404 UPLOAD_TOKEN_NOT_FOUND, as for every object the caller cannot see.',
        querystring: Type.Object({ id: RowId('The link (`id` from making or listing it).') }, { additionalProperties: false }),
        response: { 200: Type.Object({ id: Type.Integer(), revoked: Type.Literal(true) }), ...ERRORS },
      },
      config: { right: 'write' },
    },
    async (request) => {
      await tokens.revoke(callerOf(request), request.query.id);
      return { id: request.query.id, revoked: true as const };
    },
  );

  const TokenQuery = Type.Object({ token: Type.String({ minLength: 1, maxLength: 100 }) });
  typed.get(
    '/public/upload.php',
    {
      schema: {
        tags: ['uploads'],
        summary: 'The upload page behind a QR link (HTML, no login)',
        description:
          'A page for a phone: camera button, several photos at once, progress, German text. 404 page for an unknown (or revoked) link, 410 page for an expired one or one whose maker may no longer write to the order.',
        querystring: TokenQuery,
        produces: ['text/html'],
      },
      config: { auth: 'public' },
    },
    async (request, reply) => {
      const nonce = randomBytes(16).toString('base64');
      reply.header('content-type', 'text/html; charset=utf-8');
      reply.header('content-security-policy', contentSecurityPolicy(nonce));
      reply.header('cache-control', 'no-store');
      try {
        const { order, expires } = await tokens.resolve(request.query.token);
        return reply.send(uploadPage(nonce, order.ref, expires, config.timeZone, order.type === 'fichinter'));
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        const title =
          error.code === 'UPLOAD_TOKEN_EXPIRED'
            ? 'Link abgelaufen'
            : error.code === 'UPLOAD_TOKEN_REVOKED'
              ? 'Link ungültig'
              : 'Link unbekannt';
        return reply.code(error.status).send(messagePage(nonce, title, `${error.message}. Bitte einen neuen QR-Code erzeugen lassen.`));
      }
    },
  );

  typed.post(
    '/public/upload.php',
    {
      schema: {
        tags: ['uploads'],
        summary: 'Upload a photo through a QR link (no login)',
        description: describe('photo', caps.photo).replace(
          'Needs the write right; an order the caller cannot see is 404 ORDER_NOT_FOUND.',
          "No login: the link's token (404 UPLOAD_TOKEN_NOT_FOUND, 410 UPLOAD_TOKEN_EXPIRED, 410 UPLOAD_TOKEN_REVOKED when its maker may no longer write to the order) names the order.",
        ),
        querystring: TokenQuery,
        consumes: ['multipart/form-data'],
        response: { 201: UploadResponse, ...ERRORS, 410: ErrorResponse },
      },
      config: { auth: 'public', multipartFile: { description: 'The photo: JPEG, PNG, WebP or HEIC/HEIF (decided from its bytes).' } },
    },
    async (request, reply) => {
      const { order, userId } = await tokens.resolve(request.query.token);
      const attached = await service.attach('photo', order, await filePart(request, 'photo'), userId);
      madeAhead(attached);
      return reply.code(201).send(attached.response);
    },
  );

  typed.post(
    '/api/voice.php',
    {
      schema: {
        tags: ['uploads'],
        summary: 'Upload a voice recording into the order folder',
        description: describe('audio', caps.audio),
        querystring: UploadVoiceQuery,
        headers: IdempotencyHeaders,
        consumes: ['multipart/form-data'],
        response: { 201: UploadResponse, ...ERRORS },
      },
      config: { right: 'write', multipartFile: { description: 'The recording: WebM, MP4/M4A, MP3 or Ogg (decided from its bytes).' } },
    },
    async (request, reply) => upload(request, reply, 'audio', 'voice', request.query.id, request.query.element_type),
  );
}
