/**
 * Authentication for every route unless it declares `config: { auth: 'public' }`.
 *
 * The token is read from the `Authorization` header, with or without the `Bearer` prefix, or from
 * the header variants that survive web servers which drop `Authorization`:
 * `X-Authorization` and `Redirect-Http-Authorization`, in that order; an empty value or another
 * scheme (`Basic …`) in one header passes on to the next. Routes with `auth: 'token-or-query'` (file
 * and PDF endpoints, for `<img src>`) also accept `?jwt=`. The user is read from the database
 * (auth.service.ts: kept per token for AUTH_CACHE_SECONDS at most) and must hold the read right; a
 * route may require one more right with `config: { right }`.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Right } from '../dolibarr/rights.js';
import { AppError } from '../errors.js';
import { isPreflight } from './error-handler.js';
import type { AuthService, AuthUser } from '../modules/auth/auth.service.js';

export type AuthMode = 'public' | 'token' | 'token-or-query';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** @default 'token' */
    auth?: AuthMode;
    /** A right needed beyond `read`. */
    right?: Right;
  }
  interface FastifyRequest {
    /** The caller; set on every route that is not public. */
    user: AuthUser | null;
    /**
     * On SQLite, the database's version (DbHandle.dataVersion) read once for this request before
     * any of its queries, on every route that is not public: what checked the caller's token may
     * also serve a list's kept total (list-total.ts). Undefined elsewhere.
     */
    dataVersion: string | undefined;
  }
}

export const TOKEN_HEADERS = ['authorization', 'x-authorization', 'redirect-http-authorization'] as const;

export function readToken(request: FastifyRequest, allowQuery: boolean): string | undefined {
  for (const name of TOKEN_HEADERS) {
    const raw = request.headers[name];
    const value = (Array.isArray(raw) ? raw[0] : raw)?.trim() ?? '';
    // Another scheme (a proxy's Basic credentials) is not our token: look at the next header.
    if (/^Basic(\s|$)/i.test(value)) continue;
    const token = value.replace(/^Bearer(?:\s+|$)/i, '').trim();
    if (token) return token;
  }
  if (allowQuery) {
    const jwt = (request.query as Record<string, unknown> | undefined)?.jwt;
    if (typeof jwt === 'string' && jwt.trim()) return jwt.trim();
  }
  return undefined;
}

/** The request's caller, for handlers of authenticated routes. */
export function callerOf(request: FastifyRequest): AuthUser {
  if (!request.user) throw new AppError('AUTH_TOKEN_MISSING');
  return request.user;
}

export default fp(
  async function authenticate(app: FastifyInstance, options: { auth: AuthService; dataVersion?: () => string }) {
    app.decorateRequest('user', null);
    app.decorateRequest('dataVersion', undefined);
    app.addHook('onRequest', async (request) => {
      // Unmatched requests go to the 404/405 handler, which needs no caller.
      // CORS preflights carry no credentials by design and reveal nothing; other OPTIONS requests
      // were answered 405 before this hook.
      if (!request.routeOptions.url || isPreflight(request)) return;
      const mode = request.routeOptions.config.auth ?? 'token';
      if (mode === 'public') return;
      const token = readToken(request, mode === 'token-or-query');
      if (!token) throw new AppError('AUTH_TOKEN_MISSING');
      // One read of SQLite's data version (a read transaction of its own, some microseconds) serves
      // the token's check and the request's queries alike.
      const version = options.dataVersion?.();
      const user = await options.auth.authenticate(token, version);
      request.dataVersion = version;
      const needed = request.routeOptions.config.right;
      if (needed && !user.perms[needed]) throw new AppError('AUTH_RIGHT_MISSING', { details: { right: needed } });
      request.user = user;
    });
  },
  { name: 'authenticate' },
);
