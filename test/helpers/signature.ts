/**
 * A customer's signature as the phone sends it, and the signing request, for tests that need a
 * signature page.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import sharp from 'sharp';
import { multipart } from './multipart.js';

/** A signature as a phone draws it: dark strokes on a transparent background. */
export async function signaturePng(width = 900, height = 300): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><path d="M20 ${height * 0.7} C ${width * 0.2} 10, ${width * 0.35} ${height}, ${width * 0.5} ${height * 0.4} S ${width * 0.8} 20, ${width - 20} ${height * 0.6}" stroke="#112" stroke-width="8" fill="none"/></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/** POST /api/pages.php?action=signature for `reportId`, signed by `signerName`. */
export async function sign(
  app: FastifyInstance,
  headers: Record<string, string>,
  reportId: number,
  signerName: string,
  png?: Buffer,
): Promise<LightMyRequestResponse> {
  const form = multipart([
    { name: 'signer_name', type: 'text/plain; charset=utf-8', data: signerName },
    { name: 'file', filename: 'signature.png', type: 'image/png', data: png ?? (await signaturePng()) },
  ]);
  return app.inject({
    method: 'POST',
    url: `/api/pages.php?action=signature&bericht_id=${reportId}`,
    headers: { ...headers, 'content-type': form.contentType },
    payload: form.payload,
  });
}
