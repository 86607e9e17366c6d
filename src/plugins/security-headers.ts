/**
 * Headers a browser needs to keep the service's answers safe, added in one place:
 * - every answer: `X-Content-Type-Options: nosniff`, so a file or JSON is never run as a script
 *   or page because its bytes look like one;
 * - every HTML answer (the public signature check, the QR upload page, the API docs, any HTML
 *   error page): `X-Frame-Options: DENY` and `frame-ancestors 'none'` in its Content-Security-Policy
 *   (kept and extended when the route set one, e.g. the upload page's nonces; any other
 *   frame-ancestors, such as the docs' 'self', gives way), so no site can frame a page and trick a
 *   click; `Referrer-Policy: no-referrer`, so a code or token in the address never leaves in a
 *   Referer header.
 * Not HTML, so untouched apart from nosniff: the PDF (`/api/pdf.php`), which a frame of the
 * client's origin may show (its own `frame-ancestors`), and the files of `/api/photo.php`.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/** `policy` with its frame-ancestors directive (if any) replaced by frame-ancestors 'none'. */
export function denyFraming(policy: string | undefined): string {
  const directives = (policy ?? '')
    .split(';')
    .map((d) => d.trim())
    .filter((d) => d && !/^frame-ancestors(\s|$)/i.test(d));
  return [...directives, "frame-ancestors 'none'"].join('; ');
}

export default fp(
  async function securityHeaders(app: FastifyInstance) {
    app.addHook('onSend', async (_request, reply) => {
      reply.header('x-content-type-options', 'nosniff');
      if (!/^\s*text\/html/i.test(String(reply.getHeader('content-type') ?? ''))) return;
      reply.header('x-frame-options', 'DENY');
      reply.header('content-security-policy', denyFraming(reply.getHeader('content-security-policy') as string | undefined));
      reply.header('referrer-policy', 'no-referrer');
    });
  },
  { name: 'security-headers' },
);
