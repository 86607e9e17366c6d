/**
 * Why an address is not the plain one a report's mail takes (ADDRESS_PATTERN of mail.schemas.ts),
 * in words, so a refused send names the field, the address and what is wrong with it rather than
 * a pattern. The schema decides; this only explains.
 */
import { AppError } from '../../errors.js';
import { parseBody } from '../common/body.js';
import { MAX_ADDRESS_LENGTH, MAX_LOCAL_PART_LENGTH, SendMailBody } from './mail.schemas.js';

export interface AddressIssue {
  /** For people (German, as every message). */
  de: string;
  /** For programs and logs. */
  en: string;
}

export function addressIssue(address: string): AddressIssue {
  if (address.length > MAX_ADDRESS_LENGTH)
    return { de: `länger als ${MAX_ADDRESS_LENGTH} Zeichen`, en: `longer than ${MAX_ADDRESS_LENGTH} characters` };
  if (/[\s<>]/.test(address))
    return {
      de: 'nur die Adresse, ohne Namen, spitze Klammern, Leerzeichen oder Zeilenumbrüche',
      en: 'only the address: no name, angle brackets, spaces or line breaks',
    };
  if (/^@|^[^@]*:/.test(address))
    return { de: 'eine Quell-Route (@host:) ist keine einfache Adresse', en: 'a source route (@host:) is not a plain address' };
  if (/["()\\]/.test(address))
    return { de: 'Anführungszeichen und Kommentare sind nicht erlaubt', en: 'quoted local parts and comments are not allowed' };
  const at = address.lastIndexOf('@');
  if (at < 0) return { de: 'kein @', en: 'no @' };
  const local = address.slice(0, at);
  if (/[%!]/.test(local))
    return { de: '% und ! vor dem @ (Quell-Routen) sind nicht erlaubt', en: '% and ! before the @ (source routes) are not allowed' };
  if (local.length > MAX_LOCAL_PART_LENGTH)
    return { de: `mehr als ${MAX_LOCAL_PART_LENGTH} Zeichen vor dem @`, en: `more than ${MAX_LOCAL_PART_LENGTH} characters before the @` };
  if (address.indexOf('@') !== at) return { de: 'mehr als ein @', en: 'more than one @' };
  if (/^\.|\.$|\.\./.test(local))
    return {
      de: 'ein Punkt am Anfang oder Ende vor dem @ oder zwei Punkte nacheinander',
      en: 'a dot at the start or end of the local part, or two dots in a row',
    };
  return { de: 'keine E-Mail-Adresse der Form name@firma.de', en: 'not an address as name@domain.tld' };
}

/**
 * The body of a send, checked by its schema; an address the schema refuses is named with what is
 * wrong with it (400 VALIDATION_FAILED, details `{ field, message, address }`).
 */
export function parseSendBody(body: unknown): SendMailBody {
  try {
    return parseBody(SendMailBody, body);
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'VALIDATION_FAILED' || !Array.isArray(error.details)) throw error;
    const input = body as { to?: unknown; cc?: unknown };
    const details = (error.details as Array<{ field: string; message: string }>).map((d) => {
      const match = /^body\.(to|cc)\.(\d+)$/.exec(d.field);
      const list = match ? input[match[1] as 'to' | 'cc'] : undefined;
      const address = Array.isArray(list) ? list[Number(match![2])] : undefined;
      if (typeof address !== 'string') return { ...d };
      return {
        field: d.field,
        message: `${JSON.stringify(address.slice(0, 300))}: ${addressIssue(address).en}`,
        address: address.slice(0, 300),
      };
    });
    const first = details.find((d): d is { field: string; message: string; address: string } => 'address' in d);
    if (!first) throw error;
    throw new AppError('VALIDATION_FAILED', {
      message: `Keine gültige E-Mail-Adresse in ${first.field}: „${first.address.slice(0, 100)}“ (${addressIssue(first.address).de})`,
      details,
    });
  }
}
