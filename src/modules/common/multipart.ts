/**
 * How a multipart body that cannot be read is answered, the same on every route that takes one
 * (photo and voice uploads, the QR upload page, the signature form). @fastify/multipart's own
 * limit errors carry their 4xx status and pass on; anything else busboy throws (no boundary in the
 * Content-Type, a boundary that never occurs, a body cut off before its closing boundary) is the
 * client's fault, never a 500: 400 UPLOAD_MISSING, since no complete file arrived.
 */
import { AppError } from '../../errors.js';

export function multipartError(error: unknown): Error {
  if (error instanceof AppError) return error;
  const status = (error as { statusCode?: unknown } | undefined)?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) return error as Error;
  return new AppError('UPLOAD_MISSING', {
    message: 'Der multipart/form-data-Inhalt ist unvollständig oder fehlerhaft (Boundary fehlt, falsch oder Ende abgeschnitten)',
  });
}
