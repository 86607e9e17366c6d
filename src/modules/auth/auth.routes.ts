/**
 * Endpoint 1: POST /api/auth.php. Any other method: 405 "POST erforderlich".
 * POST /api/logout.php: ends the caller's token; with action=everywhere every token of the caller.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../errors.js';
import { callerOf, readToken } from '../../plugins/authenticate.js';
import { sendError, toAppError } from '../../plugins/error-handler.js';
import { Type } from 'typebox';
import { ErrorResponse } from '../common/common.schemas.js';
import type { AuthService } from './auth.service.js';
import { LoginBody, LoginResponse } from './auth.schemas.js';

// The original endpoint decoded whatever body came; one it could not read had no login and no
// password. So an unreadable body here (not JSON, malformed, empty) is the contract's 400 as well.
const UNREADABLE_BODY = new Set(['BODY_INVALID_JSON', 'MEDIA_TYPE_UNSUPPORTED', 'VALIDATION_FAILED']);

export async function authRoutes(app: FastifyInstance, options: { auth: AuthService }): Promise<void> {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/api/auth.php',
    {
      schema: {
        tags: ['auth'],
        summary: 'Log in with login and password',
        description:
          'Checks the password as Dolibarr does (bcrypt, legacy md5 and sha1(md5) with MAIN_SECURITY_SALT, ' +
          'the legacy clear column), then status and validity dates, then the read right (direct or through a group). ' +
          'Errors: 400 "login + password erforderlich" (also for a body that is not readable JSON), ' +
          '401 "Login fehlgeschlagen" (unknown login and wrong password alike), ' +
          '403 "User deaktiviert", 403 "Keine Bericht-Rechte", 413 for a body over the limit, 405 "POST erforderlich" for other methods. ' +
          '429 AUTH_TOO_MANY_ATTEMPTS with Retry-After, the password unchecked: after more than LOGIN_MAX_FAILURES (10) failures of one login from one address ' +
          'within LOGIN_WINDOW_SECONDS (900), for that login from that address only; after more than LOGIN_MAX_FAILURES_PER_ADDRESS (30) failures from one address, for every login from it. ' +
          'Once a login has LOGIN_MAX_FAILURES failures from anywhere, addresses it has not succeeded from within LOGIN_KNOWN_ADDRESS_DAYS (30) are slowed down, never locked out: ' +
          'one attempt per delay for the account, 2 s doubling with each further failure up to LOGIN_MAX_DELAY_SECONDS (60); Retry-After says how long. ' +
          'An address the login succeeded from is not slowed down.',
        security: [],
        body: LoginBody,
        response: {
          200: LoginResponse,
          400: ErrorResponse,
          401: ErrorResponse,
          403: ErrorResponse,
          413: ErrorResponse,
          429: ErrorResponse,
          503: ErrorResponse,
        },
      },
      config: { auth: 'public', methodNotAllowed: 'AUTH_METHOD_NOT_ALLOWED' },
      // A missing or mistyped field is the contract's "login + password erforderlich", not a generic 400.
      attachValidation: true,
      errorHandler: (error, _request, reply) => {
        const appError = toAppError(error);
        if (appError && UNREADABLE_BODY.has(appError.code)) return sendError(reply, new AppError('AUTH_CREDENTIALS_MISSING'));
        throw error; // to the app's error handler
      },
    },
    async (request) => {
      const login = typeof request.body?.login === 'string' ? request.body.login.trim() : '';
      const password = typeof request.body?.password === 'string' ? request.body.password : '';
      if (request.validationError || !login || !password) throw new AppError('AUTH_CREDENTIALS_MISSING');
      return options.auth.login(login, password, request.ip);
    },
  );

  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/api/logout.php',
    {
      schema: {
        tags: ['auth'],
        summary: 'Log out: end this token, or with action=everywhere every token of the caller',
        description:
          "Without `action`: ends the token sent (a logout on one device); the person's other logins go on. " +
          "The service keeps the token's SHA-256 until the token's own expiry, never the token. " +
          '`?action=everywhere` ("log out everywhere"): ends every token of the calling user issued so far, this one included, on every phone and browser, a lost one\'s too. ' +
          'It also ends the QR upload links the caller made up to then (a link made afterwards lives). ' +
          "A login afterwards works (its token is issued with a later `iat`); the token's claims stay as they are: the service keeps, per user, the second through which tokens are void and the last `iat` issued. " +
          'Each login issues an `iat` later than the one before, so two logins of one person in one second get different tokens; a login that would need an `iat` more than an hour ahead of the clock (a sustained burst of logins of one person) is answered 503 SERVICE_UNAVAILABLE with Retry-After: 1. ' +
          'Both take effect at once in the process that answers and within AUTH_CACHE_SECONDS in the others. ' +
          'A password change (`fieldreport user passwd`) and a deactivation (`fieldreport user disable`, or one made in Dolibarr: refused at the next request, and noted for good by a sweep every 30 s) end every token as well; ' +
          'a user activated again does not get its old tokens back. ' +
          'Answers `{ logged_out: true, everywhere }`. With a token that is already void: 401 AUTH_TOKEN_INVALID (nothing left to end). An unknown action: 400 ACTION_UNKNOWN. ' +
          'Any other method: 405.',
        querystring: Type.Object({ action: Type.Optional(Type.String({ description: '`everywhere`: every token of the caller.' })) }),
        response: {
          200: Type.Object({
            logged_out: Type.Literal(true),
            everywhere: Type.Boolean({ description: 'true: every token of the caller ended; false: only the one sent.' }),
          }),
          400: ErrorResponse,
          401: ErrorResponse,
          403: ErrorResponse,
        },
      },
    },
    async (request) => {
      const action = request.query.action;
      if (action !== undefined && action !== 'everywhere') throw new AppError('ACTION_UNKNOWN', { details: { known: ['everywhere'] } });
      if (action === 'everywhere') await options.auth.logout(callerOf(request).id, options.auth.issuedAt(readToken(request, false)!));
      else await options.auth.logoutToken(readToken(request, false)!);
      return { logged_out: true as const, everywhere: action === 'everywhere' };
    },
  );
}
