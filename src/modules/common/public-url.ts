/**
 * The service's address as people reach it, for links that leave the API (QR codes of signatures
 * and upload links): PUBLIC_URL when set. Without it, the address the request came in on; a Host
 * header that is no plain host name (or address) and port is refused rather than burned into a link.
 */
import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { AppError } from '../../errors.js';

export function publicBaseUrl(config: Pick<Config, 'publicUrl'>, request: FastifyRequest): string {
  if (config.publicUrl) return config.publicUrl;
  const host = request.host;
  if (host.length > 255 || !/^([A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(:\d{1,5})?$/.test(host)) {
    throw new AppError('REQUEST_INVALID', { message: 'Ungültiger Host; PUBLIC_URL setzen' });
  }
  return `${request.protocol}://${host}`;
}
