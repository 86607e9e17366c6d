/**
 * The one way to the service: openapi-fetch over the types generated from its OpenAPI document
 * (schema.d.ts, `npm run gen:api`). Every request carries the login's token in the Authorization
 * header (never in a URL); a 401 tells lib/app/auth that the password is needed again.
 * Uploads go through `withProgress`, an XMLHttpRequest in fetch's clothes, because fetch reports
 * no upload progress.
 */
import createClient from 'openapi-fetch';
import { earlyToken, noteChange, takeEarly } from './early';
import type { paths } from './schema';

export type { paths };

/** An answer of the service that is not 2xx, in its error shape `{ error, code }`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string | undefined,
    readonly retryAfter?: number,
    /** The service's `details` (what was wrong, or what is in the way). */
    readonly details?: unknown,
  ) {
    super(message ?? `HTTP ${status}`);
  }
}

/** The request never got an answer (offline, connection lost, server unreachable, stalled). */
export class NetworkError extends Error {}

/** The request could not even be made on the phone (a stored file that can no longer be read). */
export class LocalError extends Error {}

/** An upload that moves no byte for this long is given up (and retried): a dead connection in a cellar. */
export const STALL_MS = 60_000;

let tokenSource: () => string | undefined = () => undefined;
let unauthorized: (code: string | undefined) => void = () => {};

/** Wires the client to the login (lib/app/auth): where the token comes from, who hears of a 401. */
export function connectAuth(source: () => string | undefined, on401: (code: string | undefined) => void): void {
  tokenSource = source;
  unauthorized = on401;
}

export const api = createClient<paths>({ baseUrl: typeof location === 'undefined' ? '' : location.origin });

api.use({
  onRequest({ request }) {
    const token = tokenSource();
    if (token && !request.headers.has('authorization')) request.headers.set('Authorization', `Bearer ${token}`);
    if (request.method !== 'GET') noteChange(1);
    // A GET sent early (api/early.ts) answers this one.
    return takeEarly(request) ?? request;
  },
  onResponse({ request }) {
    if (request.method !== 'GET') noteChange(-1);
  },
  onError({ request }) {
    if (request.method !== 'GET') noteChange(-1);
  },
});
earlyToken(() => tokenSource());

/**
 * The data of an openapi-fetch result, or the error as an ApiError (a network failure as a
 * NetworkError). A 401 on a request that carried a token reports the login as withdrawn.
 */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await call;
  } catch (error) {
    if (error instanceof LocalError) throw error;
    throw new NetworkError(error instanceof Error ? error.message : String(error));
  }
  const { data, error, response } = result;
  if (response.ok) return data as T;
  const body = (error ?? {}) as { code?: string; error?: string; details?: unknown };
  if (response.status === 401 && response.url && !response.url.includes('/api/auth.php')) unauthorized(body.code);
  const retry = Number(response.headers.get('retry-after'));
  throw new ApiError(response.status, body.code, body.error, Number.isFinite(retry) && retry > 0 ? retry : undefined, body.details);
}

/**
 * A fetch for openapi-fetch's `fetch` option that reports the upload's progress (0 to 1) and gives
 * up when nothing moves for `stallMs` (no byte sent, no answer): a stalled connection must not hold
 * the outbox. `signal` aborts it from outside (the phone came back online: start afresh).
 */
export function withProgress(
  onProgress: (fraction: number) => void,
  signal?: AbortSignal,
  stallMs = STALL_MS,
): (request: Request) => Promise<Response> {
  return async (request) => {
    let body: Blob | null = null;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      try {
        body = await request.blob();
      } catch (error) {
        throw new LocalError(error instanceof Error ? error.message : String(error));
      }
    }
    return new Promise<Response>((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      let stall: ReturnType<typeof setTimeout> | undefined;
      const moved = () => {
        clearTimeout(stall);
        stall = setTimeout(() => xhr.abort(), stallMs);
      };
      xhr.open(request.method, request.url);
      request.headers.forEach((value, name) => {
        xhr.setRequestHeader(name, value);
      });
      xhr.responseType = 'blob';
      xhr.upload.onprogress = (event) => {
        moved();
        if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total);
      };
      xhr.onprogress = moved;
      xhr.onloadend = () => clearTimeout(stall);
      xhr.onload = () => {
        const headers = new Headers();
        for (const line of xhr
          .getAllResponseHeaders()
          .trim()
          .split(/[\r\n]+/)) {
          const colon = line.indexOf(':');
          if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
        }
        const response = new Response(xhr.status === 204 ? null : (xhr.response as Blob), {
          status: xhr.status,
          statusText: xhr.statusText,
          headers,
        });
        Object.defineProperty(response, 'url', { value: xhr.responseURL || request.url });
        resolve(response);
      };
      xhr.onerror = () => reject(new TypeError('network error'));
      xhr.ontimeout = () => reject(new TypeError('timeout'));
      xhr.onabort = () => reject(new TypeError('stalled or aborted'));
      if (signal?.aborted) return xhr.abort();
      signal?.addEventListener('abort', () => xhr.abort(), { once: true });
      moved();
      xhr.send(body);
    });
  };
}
