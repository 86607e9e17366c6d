/**
 * The OpenAPI 3.1 document, generated from the route schemas, at /api/openapi.json, and a
 * readable docs page at /api/docs. Decisions where the contract says "not shown" are written into
 * the route schemas' descriptions, so the document is the contract a client reads.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { errorCatalogue } from '../errors.js';
import { ErrorResponse } from '../modules/common/common.schemas.js';
import { SETTINGS } from '../settings.js';
import { denyFraming } from './security-headers.js';

export const API_DESCRIPTION = `
Field Report Service API: field-service reports on top of Dolibarr's orders, invoices and
proposals, for a mobile web client.

**Conventions.** Paths end in \`.php\`; the operation is chosen by the method and the query
parameters \`id\` and \`action\`. Success bodies are JSON objects; lists are
\`{ "items": [...], "total": N }\` with \`limit\` (default 50, at most 500) and \`offset\`.
Errors are \`{ "error": "<German message>", "code": "<CODE>", "details"?: ... }\`.
Times are Unix seconds; IDs are integers.

**Authentication.** \`POST /api/auth.php\` returns a JWT (HS256, issuer \`bericht-api\`, valid 7
days). Send it as \`Authorization: Bearer <token>\`; a bare token is accepted too, and so are the
headers \`X-Authorization\` and \`Redirect-Http-Authorization\` for web servers that drop
\`Authorization\`. The file and PDF endpoints also accept \`?jwt=\`. The signing secret is
\`HMAC-SHA256(key = instance unique id, message = "bericht-api")\`. The token's user, validity and
rights are read from the database, not from its claims; what one request read serves the next
requests with the same token for AUTH_CACHE_SECONDS (default ${SETTINGS.AUTH_CACHE_SECONDS.default}), so a deactivated user or a
withdrawn right takes effect within that time (at once for changes the service can see).

**Rights** (Dolibarr module \`bericht\`): \`read\` for every call, \`write\` to create or change,
\`delete\` to delete, \`admin\` for template management.

**Time limits.** Headers must arrive within HEADERS_TIMEOUT_SECONDS (default ${SETTINGS.HEADERS_TIMEOUT_SECONDS.default}), a JSON body within
BODY_TIMEOUT_SECONDS (default ${SETTINGS.BODY_TIMEOUT_SECONDS.default}) after them, and a whole request, uploads included, within
REQUEST_TIMEOUT_SECONDS (default ${SETTINGS.REQUEST_TIMEOUT_SECONDS.default}); an upload that sends nothing for UPLOAD_IDLE_SECONDS
(default ${SETTINGS.UPLOAD_IDLE_SECONDS.default}) is given up. Beyond
a limit the answer is 408 REQUEST_TIMEOUT where the connection still allows one, and the connection
is closed. Headers larger than Node's limit are 431 HEADERS_TOO_LARGE.
`.trim();

/** Every error code the API answers with, from the catalogue, so the document cannot miss one. */
export const ERROR_CODES_DESCRIPTION =
  '**Error codes** (`code` in the error body; status; German message):\n\n| code | status | message |\n|---|---|---|\n' +
  Object.entries(errorCatalogue)
    .map(([code, { status, message }]) => `| \`${code}\` | ${status} | ${message.replace(/\|/g, '\\|')} |`)
    .join('\n');

/**
 * The operationId of every operation, the names a generated client calls (`${method} ${path}`).
 * A route missing here gets a name made from its method and path (a test keeps this table whole).
 */
export const OPERATION_IDS: Readonly<Record<string, string>> = {
  'POST /api/auth.php': 'login',
  'POST /api/logout.php': 'logoutEverywhere',
  'GET /api/health': 'getHealth',
  'GET /api/orders.php': 'getOrders',
  'POST /api/orders.php': 'uploadOrderPhoto',
  'POST /api/interventions.php': 'uploadInterventionPhoto',
  'POST /api/upload_token.php': 'createUploadToken',
  'GET /api/upload_token.php': 'getUploadTokens',
  'DELETE /api/upload_token.php': 'revokeUploadToken',
  'GET /public/upload.php': 'getUploadPage',
  'POST /public/upload.php': 'uploadPhotoWithToken',
  'POST /api/voice.php': 'uploadVoiceNote',
  'GET /api/photo.php': 'getFile',
  'POST /api/delete_photo.php': 'deleteOrderFile',
  'GET /api/customers.php': 'getCustomers',
  'GET /api/agenda.php': 'getAgenda',
  'GET /api/interventions.php': 'getInterventions',
  'GET /api/reports.php': 'getReports',
  'POST /api/reports.php': 'changeReport',
  'DELETE /api/reports.php': 'deleteReport',
  'GET /ajax/verify_signature.php': 'verifySignature',
  'POST /ajax/verify_signature.php': 'verifySignaturePost',
  'GET /api/signing_key.php': 'getSigningKey',
  'GET /public/verify_signature.php': 'getPublicSignatureCheck',
  'POST /public/verify_signature.php': 'checkReportPdf',
  'GET /api/seal_certificate.php': 'getSealCertificate',
  'POST /api/pages.php': 'changePages',
  'DELETE /api/pages.php': 'deletePage',
  'GET /api/templates.php': 'getTemplates',
  'POST /api/templates.php': 'changeTemplates',
  'GET /api/odt_templates.php': 'getOdtTemplates',
  'GET /api/pdf.php': 'getReportPdf',
  'POST /api/transcribe.php': 'transcribeVoiceNote',
  'GET /api/capabilities.php': 'getCapabilities',
  'GET /api/materials.php': 'getMaterials',
  'POST /api/materials.php': 'addMaterial',
  'DELETE /api/materials.php': 'deleteMaterial',
  'GET /api/products.php': 'getProducts',
  'GET /api/times.php': 'getTimesOnSite',
  'POST /api/times.php': 'recordTimeOnSite',
  'GET /api/mails.php': 'getReportMails',
  'POST /api/mails.php': 'sendReportMail',
};

/** A name from method and path for a route the table lacks: `postApiExamplePhp`. */
function derivedOperationId(method: string, url: string): string {
  const words = url.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return method.toLowerCase() + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

/** Answers every operation can give, whatever its own: a request too slow, or headers too large. */
const EVERY_OPERATION = {
  408: { ...ErrorResponse, description: 'REQUEST_TIMEOUT: the request did not arrive in time (see Time limits).' },
  431: { ...ErrorResponse, description: 'HEADERS_TOO_LARGE: the request headers are larger than the server takes.' },
};

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route takes a multipart/form-data body with the file in field `file` (parsed by
     * @fastify/multipart, so not validated as a JSON body): documented as such in OpenAPI.
     */
    multipartFile?: { description: string };
  }
}

export default fp(
  async function openapi(app: FastifyInstance, options: { version: string }) {
    await app.register(swagger, {
      // Multipart upload routes get their body documented (the schema is for the document only).
      transform: ({ schema, url, route }) => {
        if (!schema || schema.hide) return { schema, url };
        const method = [route.method].flat()[0]!.toUpperCase();
        const documented = {
          ...schema,
          operationId: OPERATION_IDS[`${method} ${url}`] ?? derivedOperationId(method, url),
          // A route without response schemas (an HTML page, the public key) keeps the document's default 200.
          response: { ...EVERY_OPERATION, ...((schema.response as object | undefined) ?? { 200: { description: 'Default Response' } }) },
        };
        const file = route.config?.multipartFile;
        if (!file) return { schema: documented, url };
        const body = {
          type: 'object',
          required: ['file'],
          properties: { file: { type: 'string', format: 'binary', description: file.description } },
        };
        return { schema: { ...documented, consumes: ['multipart/form-data'], body }, url };
      },
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Field Report Service API',
          version: options.version,
          description: `${API_DESCRIPTION}\n\n${ERROR_CODES_DESCRIPTION}`,
          license: { name: 'GPL-3.0-or-later', identifier: 'GPL-3.0-or-later' },
        },
        // The service that serves this document (relative to where it is read).
        servers: [{ url: '/', description: 'This fieldreport service' }],
        components: {
          securitySchemes: {
            bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          },
        },
        security: [{ bearerAuth: [] }],
        tags: [
          { name: 'auth', description: 'Login and tokens' },
          { name: 'system', description: 'Health, documentation and what the service offers' },
          { name: 'orders', description: 'Orders and their attachments' },
          { name: 'uploads', description: 'Photo and voice uploads into an order’s folder' },
          { name: 'files', description: 'Files of orders, invoices, proposals and reports' },
          { name: 'customers', description: 'Customers (third parties with client 1, 2 or 3)' },
          { name: 'agenda', description: "The caller's appointments from Dolibarr's agenda" },
          { name: 'interventions', description: "Interventions (Dolibarr's llx_fichinter): the service visits the office plans" },
          { name: 'reports', description: 'Reports, their versions and their PDF' },
          { name: 'pages', description: 'Pages of a report, and signature pages' },
          { name: 'signatures', description: 'Verifying signatures, the service’s public key, the public check' },
          { name: 'templates', description: 'Report templates and cover-sheet (ODT) templates' },
          { name: 'materials', description: 'Material lines of orders, invoices, proposals and interventions' },
          { name: 'products', description: "The catalogue (Dolibarr's products and services on sale) with the stock of the caller's van" },
          { name: 'times', description: 'Time on site: arrival and departure at orders, invoices and proposals' },
          { name: 'mails', description: "A final report sent to the customer by e-mail: a durable job, recorded in Dolibarr's agenda" },
          { name: 'transcription', description: 'Voice notes to text' },
        ],
      },
    });
    // The docs page and its assets are public: registered in a child context that marks its routes.
    await app.register(async (docs) => {
      docs.addHook('onRoute', (route) => {
        route.config = { ...route.config, auth: 'public' };
      });
      await docs.register(swaggerUi, {
        routePrefix: '/api/docs',
        uiConfig: { docExpansion: 'list', deepLinking: true },
        staticCSP: true,
        // swagger-ui sets its policy in its own onSend hook, after security-headers.ts: no framing here either.
        transformStaticCSP: denyFraming,
      });
    });
    app.get('/api/openapi.json', { schema: { hide: true }, config: { auth: 'public' } }, async () => app.swagger());
  },
  { name: 'openapi' },
);
