/**
 * One multipart POST to a speech-to-text server, as both protocol clients need it:
 * - the audio is streamed from disk (a Blob from fs.openAsBlob, read as the request goes out), so a
 *   200 MB recording is never held in memory;
 * - every attempt has its own time limit (AbortSignal) → 504 TRANSCRIBE_TIMEOUT;
 * - a connection that is refused or dropped (ECONNREFUSED, ECONNRESET, "socket hang up", "other
 *   side closed") is tried again, a bounded number of times with a short pause; an HTTP error
 *   answer never is (the server did answer: asking again would only cost again);
 * - the answer is read up to a cap; an HTTP error becomes 502 TRANSCRIBE_FAILED with the status and
 *   a short excerpt of the answer from which the API key and key-like strings are removed.
 * The API key travels only in the Authorization header and never into an error or a log line.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '../../errors.js';

/** Pauses before the retries after a dropped connection: two retries, three attempts at most. */
export const RETRY_DELAYS_MS: readonly number[] = [250, 750];
/** Largest answer read (whisper-asr's JSON carries segments and tokens: long, but not this long). */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
/** Characters of an error answer passed on in `details.excerpt`. */
const EXCERPT_LENGTH = 200;

/** Socket-level failures worth one more try: the server was not reached, or let the connection go. */
const DROPPED_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'UND_ERR_SOCKET']);

export interface SttPost {
  url: string;
  /** A fresh form per attempt (a stream cannot be sent twice). */
  form: () => Promise<FormData>;
  apiKey: string | undefined;
  timeoutMs: number;
  /** @default RETRY_DELAYS_MS */
  retryDelaysMs?: readonly number[];
}

export interface SttAnswer {
  status: number;
  text: string;
  attempts: number;
}

/** Whether `error` (fetch's TypeError, its cause, or an AggregateError of them) is a dropped or refused connection. */
export function isDroppedConnection(error: unknown): boolean {
  const seen = new Set<unknown>();
  const walk = (e: unknown): boolean => {
    if (!e || typeof e !== 'object' || seen.has(e)) return false;
    seen.add(e);
    const { code, message, cause, errors } = e as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
    if (typeof code === 'string' && DROPPED_CODES.has(code)) return true;
    if (typeof message === 'string' && /socket hang up|other side closed/i.test(message)) return true;
    return walk(cause) || (Array.isArray(errors) && errors.some(walk));
  };
  return walk(error);
}

/** A short, single-line excerpt of an error answer without the key or anything that looks like one. */
export function safeExcerpt(body: string, apiKey: string | undefined): string {
  let text = body;
  if (apiKey) text = text.split(apiKey).join('[redacted]');
  text = text
    .replace(/\b(sk|pk|rk|gsk|key|token)[-_][A-Za-z0-9*._-]{6,}/gi, '[redacted]')
    .replace(/\bBearer\s+\S+/gi, 'Bearer [redacted]')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > EXCERPT_LENGTH ? `${text.slice(0, EXCERPT_LENGTH)}…` : text;
}

async function readCapped(response: Response): Promise<string> {
  if (!response.body) return '';
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of response.body) {
    total += chunk.byteLength;
    if (total > MAX_ANSWER_BYTES) {
      await response.body.cancel().catch(() => undefined);
      throw new AppError('TRANSCRIBE_FAILED', { details: { status: response.status, reason: 'answer_too_large' } });
    }
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** POSTs the form; answers a 2xx status with the body text, throws AppError for everything else. */
export async function postForm(request: SttPost): Promise<SttAnswer> {
  const delays = request.retryDelaysMs ?? RETRY_DELAYS_MS;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (request.apiKey) headers.authorization = `Bearer ${request.apiKey}`;
  for (let attempt = 1; ; attempt++) {
    const signal = AbortSignal.timeout(request.timeoutMs);
    try {
      const response = await fetch(request.url, { method: 'POST', headers, body: await request.form(), signal, redirect: 'error' });
      const text = await readCapped(response);
      if (response.status < 200 || response.status > 299) {
        throw new AppError('TRANSCRIBE_FAILED', {
          details: { status: response.status, reason: 'http_error', excerpt: safeExcerpt(text, request.apiKey) },
        });
      }
      return { status: response.status, text, attempts: attempt };
    } catch (error) {
      if (error instanceof AppError) throw error;
      // Our limit ran out, whether while sending, waiting or reading the answer.
      if (signal.aborted)
        throw new AppError('TRANSCRIBE_TIMEOUT', { details: { timeout_seconds: request.timeoutMs / 1000, attempts: attempt } });
      const dropped = isDroppedConnection(error);
      if (dropped && attempt <= delays.length) {
        await sleep(delays[attempt - 1]);
        continue;
      }
      throw new AppError('TRANSCRIBE_FAILED', {
        details: { status: null, reason: dropped ? 'connection_lost' : 'unreachable', attempts: attempt },
      });
    }
  }
}
