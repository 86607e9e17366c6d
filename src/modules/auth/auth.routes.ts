/**
 * Endpoint 1: POST /api/auth.php. Any other method: 405 "POST erforderlich".
 */
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../errors.js';
import type { AuthService } from './auth.service.js';
import { ErrorResponse } from '../common/common.schemas.js';
import { LoginBody, LoginResponse } from './auth.schemas.js';

export async function authRoutes(app: FastifyInstance, options: { auth: AuthService }): Promise<void> {
  app.post<{ Body: LoginBody }>(
    '/api/auth.php',
    {
      schema: {
        tags: ['auth'],
        summary: 'Log in with login and password',
        description:
          'Checks the password as Dolibarr does (bcrypt, legacy md5 and sha1(md5) with MAIN_SECURITY_SALT, ' +
          'the legacy clear column), then status and validity dates, then the read right (direct or through a group). ' +
          'Errors: 400 "login + password erforderlich", 401 "Login fehlgeschlagen" (unknown login and wrong password alike), ' +
          '403 "User deaktiviert", 403 "Keine Bericht-Rechte", 429 after too many failures per login or per address ' +
          '(with Retry-After), 405 "POST erforderlich" for other methods.',
        security: [],
        body: LoginBody,
        response: { 200: LoginResponse, 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 429: ErrorResponse },
      },
      config: { auth: 'public', methodNotAllowed: 'AUTH_METHOD_NOT_ALLOWED' },
      // A missing or mistyped field is the spec's "login + password erforderlich", not a generic 400.
      attachValidation: true,
    },
    async (request) => {
      const login = typeof request.body?.login === 'string' ? request.body.login.trim() : '';
      const password = typeof request.body?.password === 'string' ? request.body.password : '';
      if (request.validationError || !login || !password) throw new AppError('AUTH_CREDENTIALS_MISSING');
      return options.auth.login(login, password, request.ip);
    },
  );
}
