/**
 * The login token: a JWT signed with HS256 (docs/api-contract.md, Authentication).
 *
 * Secret derivation (documented in docs/operating.md, Passwords and tokens, and in OpenAPI):
 *   secret = HMAC-SHA256(key = UTF-8 bytes of the instance unique id, message = "bericht-api")
 * The unique id is Dolibarr's `$dolibarr_main_instance_unique_id`. Deriving rather than using it
 * directly keeps the id itself (also Dolibarr's dolcrypt key) out of any token verification code
 * and gives this use its own key.
 *
 * Claims: sub (integer user id), login, name, iat, exp = iat + 7 days, iss = "bericht-api", perms.
 * Verification accepts HS256 only (never `none`), checks the signature, exp and iss.
 */
import { createHmac } from 'node:crypto';
import { SignJWT, errors, jwtVerify } from 'jose';
import { AppError } from '../../errors.js';
import type { Perms } from '../../dolibarr/rights.js';

export const TOKEN_ISSUER = 'bericht-api';
export const TOKEN_LIFETIME_SECONDS = 7 * 24 * 3600;

export interface TokenClaims {
  sub: number;
  login: string;
  name: string;
  iat: number;
  exp: number;
  iss: string;
  perms: Perms;
}

export function deriveTokenSecret(instanceUniqueId: string): Uint8Array {
  return new Uint8Array(createHmac('sha256', Buffer.from(instanceUniqueId, 'utf8')).update('bericht-api').digest());
}

export interface TokenService {
  sign(subject: { id: number; login: string; name: string; perms: Perms }, now?: number): Promise<{ token: string; claims: TokenClaims }>;
  /** Verifies a token; throws AppError AUTH_TOKEN_INVALID or AUTH_TOKEN_EXPIRED. */
  verify(token: string): Promise<TokenClaims>;
}

export function createTokenService(instanceUniqueId: string): TokenService {
  const secret = deriveTokenSecret(instanceUniqueId);

  return {
    async sign(subject, now = Math.floor(Date.now() / 1000)) {
      const claims: TokenClaims = {
        sub: subject.id,
        login: subject.login,
        name: subject.name,
        iat: now,
        exp: now + TOKEN_LIFETIME_SECONDS,
        iss: TOKEN_ISSUER,
        perms: subject.perms,
      };
      // jose types `sub` as a string (RFC 7519); the contract's type is an integer.
      const token = await new SignJWT({ ...claims } as unknown as Record<string, unknown>)
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .sign(secret);
      return { token, claims };
    },

    async verify(token) {
      let payload: Record<string, unknown>;
      try {
        ({ payload } = await jwtVerify(token, secret, {
          algorithms: ['HS256'],
          issuer: TOKEN_ISSUER,
          requiredClaims: ['exp', 'iat', 'sub'],
        }));
      } catch (error) {
        if (error instanceof errors.JWTExpired) throw new AppError('AUTH_TOKEN_EXPIRED');
        throw new AppError('AUTH_TOKEN_INVALID');
      }
      const { sub, iat, exp } = payload;
      if (!Number.isSafeInteger(sub) || (sub as number) <= 0 || !Number.isInteger(iat) || !Number.isInteger(exp)) {
        throw new AppError('AUTH_TOKEN_INVALID');
      }
      return payload as unknown as TokenClaims;
    },
  };
}
