/**
 * A customer's signature as the phone sends it, and the signing request, for tests that need a
 * signature page (`testClient().sign` in client.ts sends the same form for a caller).
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import sharp from 'sharp';
import { multipart, type Part } from './multipart.js';

/** A signature as a phone draws it: dark strokes on a transparent background. */
export async function signaturePng(width = 900, height = 300): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><path d="M20 ${height * 0.7} C ${width * 0.2} 10, ${width * 0.35} ${height}, ${width * 0.5} ${height * 0.4} S ${width * 0.8} 20, ${width - 20} ${height * 0.6}" stroke="#112" stroke-width="8" fill="none"/></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/** What the signature form holds, in this order: signer_name, the fields, the image. */
export interface SignOptions {
  /** The field signer_name; null sends none. @default 'Erika Müller' */
  signer?: string | null;
  /** Further fields by name: a text (sent as UTF-8 text), or a part as it is (a file, another type). */
  fields?: Record<string, string | Omit<Part, 'name'> | undefined>;
  /** The image: its bytes (default signaturePng()) and file name (default signature.png). */
  file?: { data?: Buffer; name?: string };
}

const textPart = (name: string, data: string): Part => ({ name, type: 'text/plain; charset=utf-8', data });

/** The multipart body of a signature. */
export async function signatureForm(options: SignOptions = {}): Promise<{ payload: Buffer; contentType: string }> {
  const signer = options.signer === undefined ? 'Erika Müller' : options.signer;
  return multipart([
    ...(signer === null ? [] : [textPart('signer_name', signer)]),
    ...Object.entries(options.fields ?? {}).flatMap(([name, value]): Part[] =>
      value === undefined ? [] : typeof value === 'string' ? [textPart(name, value)] : [{ ...value, name }],
    ),
    {
      name: 'file',
      filename: options.file?.name ?? 'signature.png',
      type: 'image/png',
      data: options.file?.data ?? (await signaturePng()),
    },
  ]);
}

/** POST /api/pages.php?action=signature for `reportId`, signed by `signerName`. */
export async function sign(
  app: FastifyInstance,
  headers: Record<string, string>,
  reportId: number,
  signerName: string,
  png?: Buffer,
): Promise<LightMyRequestResponse> {
  const form = await signatureForm({ signer: signerName, file: { data: png } });
  return app.inject({
    method: 'POST',
    url: `/api/pages.php?action=signature&bericht_id=${reportId}`,
    headers: { ...headers, 'content-type': form.contentType },
    payload: form.payload,
  });
}

/** The file beside a signature page's image: `.json` its sealed metadata, `.strokes.json` its stroke record. */
export const besideSignature = (dataRoot: string, page: { source_path: string }, suffix = '.json'): string =>
  path.join(dataRoot, page.source_path.replace(/\.png$/, suffix));

/** A signature page's sealed metadata as stored. */
// biome-ignore lint/suspicious/noExplicitAny: the metadata JSON, read field by field by each test.
export const signatureMetadata = async (dataRoot: string, page: { source_path: string }): Promise<any> =>
  JSON.parse(await readFile(besideSignature(dataRoot, page), 'utf8'));

/** The public check page behind a signature's QR code (its `verify_url`): 200 and its HTML. */
export async function publicSignatureCheck(app: FastifyInstance, page: { verify_url: string }): Promise<string> {
  const res = await app.inject({
    method: 'GET',
    url: `/public/verify_signature.php?code=${new URL(page.verify_url).searchParams.get('code')}`,
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.body;
}
