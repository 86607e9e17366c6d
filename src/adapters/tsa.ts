/**
 * An RFC 3161 time-stamp client over HTTP (RFC 3161 3.4): a TimeStampReq for a SHA-256 imprint
 * with a nonce and certReq, POSTed as application/timestamp-query; the TimeStampResp's token is
 * answered only when it is granted and stamps exactly this imprint and nonce.
 */
import { randomBytes } from 'node:crypto';
import { OID, parseCms, parseTstInfo } from './cms.js';
import { boolean, children, contentOf, expectTag, integer, octetString, oid, rawOf, readNode, sequence, TAG } from './der.js';

export interface TsaSettings {
  url: string;
  username?: string;
  password?: string;
  timeoutMs: number;
}

export class TsaError extends Error {}

/** The largest answer read from an authority. */
const MAX_RESPONSE_BYTES = 256 * 1024;

/** The TimeStampReq for `imprint` (SHA-256) with `nonce`. */
export function timestampRequest(imprint: Buffer, nonce: Buffer): Buffer {
  return sequence(integer(1), sequence(sequence(oid(OID.sha256)), octetString(imprint)), integer(nonce), boolean(true));
}

/** The token of a TimeStampResp, checked against `imprint` and `nonce`; TsaError saying why not. */
export function tokenOfResponse(response: Buffer, imprint: Buffer, nonce: Buffer): Buffer {
  let token: Buffer | undefined;
  try {
    const [status, tokenNode] = children(expectTag(readNode(response), TAG.SEQUENCE, 'TimeStampResp'));
    const code = Number(`0x${contentOf(expectTag(children(status!)[0], TAG.INTEGER, 'status')).toString('hex') || '0'}`);
    // 0 granted, 1 granted with modifications; 2 rejection, 3 waiting, 4/5 revocation.
    if (code > 1) throw new TsaError(`the authority refused the request (PKIStatus ${code})`);
    if (!tokenNode) throw new TsaError('the authority answered without a token');
    token = rawOf(tokenNode);
    const parsed = parseCms(token);
    if (parsed.contentType !== OID.tstInfo || !parsed.content) throw new TsaError('the token holds no TSTInfo');
    const info = parseTstInfo(parsed.content);
    if (!info.imprint.equals(imprint) || info.imprintAlgorithm !== OID.sha256) throw new TsaError('the token stamps another hash');
    const sent = integer(nonce);
    if (!info.nonce || !contentOf(readNode(sent)).equals(info.nonce)) throw new TsaError('the token carries another nonce');
  } catch (error) {
    if (error instanceof TsaError) throw error;
    throw new TsaError(`the authority's answer is no time-stamp response: ${(error as Error).message}`);
  }
  return token;
}

/** A token over `imprint` from the authority; TsaError when it cannot be had (down, refused, slow, malformed). */
export async function requestTimestamp(tsa: TsaSettings, imprint: Buffer): Promise<Buffer> {
  const nonce = randomBytes(8);
  const headers: Record<string, string> = { 'content-type': 'application/timestamp-query', accept: 'application/timestamp-reply' };
  if (tsa.username !== undefined)
    headers.authorization = `Basic ${Buffer.from(`${tsa.username}:${tsa.password ?? ''}`).toString('base64')}`;
  let response: Response;
  try {
    response = await fetch(tsa.url, {
      method: 'POST',
      headers,
      body: timestampRequest(imprint, nonce),
      signal: AbortSignal.timeout(tsa.timeoutMs),
      redirect: 'error',
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    throw new TsaError(
      `the authority at ${tsa.url} is not reachable (${(error as Error).name === 'TimeoutError' ? `no answer within ${tsa.timeoutMs} ms` : (cause ?? (error as Error).message)})`,
    );
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new TsaError(
      `the authority answered HTTP ${response.status}${response.status === 401 ? ' (check TSA_USERNAME and TSA_PASSWORD)' : ''}`,
    );
  }
  const length = Number(response.headers.get('content-length') ?? 0);
  if (length > MAX_RESPONSE_BYTES) {
    await response.body?.cancel().catch(() => undefined);
    throw new TsaError(`the authority's answer is too large (${length} bytes)`);
  }
  // Read within the size limit and the time limit; a body cut off or stalled is the authority not answering.
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body ?? []) {
      size += chunk.length;
      if (size > MAX_RESPONSE_BYTES) {
        await response.body?.cancel().catch(() => undefined);
        throw new TsaError(`the authority's answer is too large (more than ${MAX_RESPONSE_BYTES} bytes)`);
      }
      chunks.push(Buffer.from(chunk));
    }
  } catch (error) {
    if (error instanceof TsaError) throw error;
    throw new TsaError(
      `the authority's answer broke off (${(error as Error).name === 'TimeoutError' ? `not complete within ${tsa.timeoutMs} ms` : (error as Error).message})`,
    );
  }
  const body = Buffer.concat(chunks);
  return tokenOfResponse(body, imprint, nonce);
}
