/**
 * Login (endpoint 1) and the per-request authentication of every other endpoint.
 *
 * Login follows Dolibarr's own check (functions_dolibarr.php): the user of the entity (or a
 * superadmin of entity 0), its password verified as Dolibarr does, then status and validity dates,
 * then the module's read right, given directly or through a group. An unknown login and a wrong
 * password get the same answer in about the same time (one bcrypt comparison either way).
 *
 * Every other request checks the token's user against the database, whatever the token says: a
 * deactivated user, a withdrawn right or invalidated sessions take effect within
 * AUTH_CACHE_SECONDS. What one request read is kept for the next requests with the same token for
 * that long, unless the database changed meanwhile as far as this process can tell (any change on
 * SQLite, this process's own writes elsewhere): reading a user and its rights is most of what a
 * short request costs.
 */
import { createHash } from 'node:crypto';
import { BoundedMap } from '../../bounded-map.js';
import type { LoginThrottleConfig } from '../../config.js';
import type { ConstRepository } from '../../dolibarr/const.repository.js';
import { verifyPassword } from '../../dolibarr/password.js';
import { permsFrom, type Perms } from '../../dolibarr/rights.js';
import { fromDolibarrDateTime, toDolibarrDateTime } from '../../dolibarr/time.js';
import { AppError } from '../../errors.js';
import type { LoginThrottleRepository } from './login-throttle.repository.js';
import type { TokenService } from './token.js';
import type { TokenVoidRepository } from './token-void.repository.js';
import { addressKey } from '../common/client-address.js';
import type { UserRecord, UserRepository } from './user.repository.js';

export interface AuthUser {
  id: number;
  login: string;
  name: string;
  /** Dolibarr's administrator flag: sees every order. */
  admin: boolean;
  /** Set for an external user bound to a third party. */
  fkSoc: number | null;
  perms: Perms;
}

export interface CurrentUser extends AuthUser {
  /**
   * The clock's Unix second of the last end of what the user did before (a logout everywhere,
   * password change, deactivation; Dolibarr's cut-off less one second); null: never. What was
   * made up to and including this second counts as ended.
   */
  voidedAt: number | null;
}

export interface LoginResult {
  token: string;
  expires: number;
  user: { id: number; login: string; name: string; admin: boolean };
  perms: Perms;
}

export interface AuthService {
  login(login: string, password: string, address: string): Promise<LoginResult>;
  /**
   * @param version the database's version (AuthCacheOptions.version) as the caller read it for
   * this request, before any of its queries; read here when not given.
   */
  authenticate(token: string, version?: string | number): Promise<AuthUser>;
  /** Ends every token of the user issued so far ("log out everywhere"); a login afterwards works. */
  logout(userId: number, iat?: number): Promise<void>;
  /** The iat of a token already authenticated (its claims read, not checked again); undefined when unreadable. */
  issuedAt(token: string): number | undefined;
  /** Ends this one token (a logout on one device); the person's other logins go on. */
  logoutToken(token: string): Promise<void>;
  /**
   * The user as the database says now, with its rights and the second through which its tokens are
   * void; undefined when gone or not usable (deactivated, outside its dates).
   */
  currentUser(id: number): Promise<CurrentUser | undefined>;
}

export interface AuthServiceDeps {
  users: UserRepository;
  throttle: LoginThrottleRepository;
  consts: ConstRepository;
  tokens: TokenService;
  voids: TokenVoidRepository;
  limits: LoginThrottleConfig;
  /** bcrypt cost of the comparison spent when there is no bcrypt hash to compare (see password.ts). */
  dummyCost?: number;
  now?: () => number;
  /** Dolibarr's time zone (TIME_ZONE): its validity dates and session cut-off are wall times there. @default UTC */
  timeZone?: string;
  /** What authenticate() keeps between requests. @default nothing */
  cache?: AuthCacheOptions;
}

export interface AuthCacheOptions {
  /** How long a token's user, as read, serves later requests (AUTH_CACHE_SECONDS); 0 keeps nothing. */
  seconds: number;
  /**
   * A value that changes whenever the database may have changed (DbHandle.dataVersion, else
   * DbHandle.writes): a user read under another value is read again.
   */
  version: () => string | number;
  /** Tokens kept at the most; the oldest goes first. @default 10000 */
  size?: number;
}

interface KeptUser {
  user: AuthUser;
  version: string | number;
  /** performance.now() until which it serves. */
  until: number;
  /** The token's exp: an expired token is never served from here. */
  exp: number;
}

export function fullName(user: Pick<UserRecord, 'firstname' | 'lastname' | 'login'>): string {
  const name = [user.firstname, user.lastname]
    .map((s) => (s ?? '').trim())
    .filter(Boolean)
    .join(' ');
  return name || user.login;
}

const DAY = 86_400;

/**
 * Dolibarr refuses a login outside the validity dates by whole days (User::isNotIntoValidityDateRange):
 * the user card stores the chosen day at 00:00, and that day is still valid to its end.
 */
function isUsable(user: UserRecord, now: number, timeZone: string): boolean {
  if (!user.active) return false;
  const from = fromDolibarrDateTime(user.validFrom, timeZone);
  const until = fromDolibarrDateTime(user.validUntil, timeZone);
  // Today's and tomorrow's midnight where Dolibarr is (a day has 23 or 25 hours when clocks change).
  const today = toDolibarrDateTime(now, timeZone).slice(0, 10);
  const startOfToday = fromDolibarrDateTime(today, timeZone)!;
  const startOfTomorrow = fromDolibarrDateTime(toDolibarrDateTime(startOfToday + DAY + 3 * 3600, timeZone).slice(0, 10), timeZone)!;
  return (from === null || from < startOfTomorrow) && (until === null || until >= startOfToday);
}

/** A token's name where one token is ended: its SHA-256 (the token itself is not kept). */
function tokenHashOf(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Dolibarr's session cut-off (flagdelsessionsbefore) as Unix seconds: Dolibarr writes it in UTC. */
function sessionCutOff(user: UserRecord): number | null {
  return fromDolibarrDateTime(user.sessionsValidAfter, 'UTC');
}

/** The failed-login counter's key: the account's login, lower-cased; long input is hashed to fit. */
function throttleKey(login: string): string {
  const key = login.toLowerCase();
  return key.length <= 100 ? key : `sha256:${createHash('sha256').update(key).digest('hex')}`;
}

export function createAuthService(deps: AuthServiceDeps): AuthService {
  const { users, throttle, consts, tokens, voids, limits } = deps;
  const now = deps.now ?? (() => Math.floor(Date.now() / 1000));
  const timeZone = deps.timeZone ?? 'UTC';
  const cache = deps.cache && deps.cache.seconds > 0 ? deps.cache : undefined;
  const cacheSize = cache?.size ?? 10_000;
  /** By token. */
  const keptUsers = new BoundedMap<string, KeptUser>(cacheSize);

  const knownSeconds = (limits.knownAddressDays ?? 30) * DAY;
  const maxDelay = limits.maxDelaySeconds ?? 60;

  /**
   * Counts include the caller's own claimed attempt and those before it.
   * - One login from one address: more failures than the limit are refused for the window
   *   (429 with Retry-After): the guesser is stopped, nobody else.
   * - One address, whatever the login: more than its limit are refused the same way.
   * - One login from everywhere: once it has as many failures as the limit, an address it has not
   *   succeeded from within LOGIN_KNOWN_ADDRESS_DAYS is slowed down, not refused: one attempt per
   *   delay for the whole account, the delay doubling with each further failure up to
   *   LOGIN_MAX_DELAY_SECONDS. An address the login succeeded from is not slowed at all.
   */
  async function checkThrottle(key: string, address: string, at: number, attempt: number): Promise<void> {
    const counts = await throttle.count(key, address, at - limits.windowSeconds, attempt);
    const blockedUntil: number[] = [];
    if (counts.byPair > limits.maxFailuresPerLogin && counts.oldestByPair !== null) {
      blockedUntil.push(counts.oldestByPair + limits.windowSeconds);
    }
    if (counts.byAddress > limits.maxFailuresPerAddress && counts.oldestByAddress !== null) {
      blockedUntil.push(counts.oldestByAddress + limits.windowSeconds);
    }
    if (blockedUntil.length > 0) {
      const retryAfter = Math.max(1, Math.max(...blockedUntil) - at);
      throw new AppError('AUTH_TOO_MANY_ATTEMPTS', { headers: { 'retry-after': String(retryAfter) } });
    }
    const others = counts.byLogin - 1;
    if (others < limits.maxFailuresPerLogin || counts.newestOtherByLogin === null) return;
    const delay = Math.min(maxDelay, 2 ** Math.min(30, others - limits.maxFailuresPerLogin + 1));
    if (counts.newestOtherByLogin + delay <= at) return;
    if (await throttle.isKnown(key, address, at - knownSeconds)) return;
    throw new AppError('AUTH_TOO_MANY_ATTEMPTS', {
      headers: { 'retry-after': String(Math.max(1, counts.newestOtherByLogin + delay - at)) },
    });
  }

  async function rightsOf(user: UserRecord): Promise<Perms> {
    const perms = permsFrom(await users.listRights(user.id));
    if (!perms.read) throw new AppError('AUTH_NO_RIGHTS');
    return perms;
  }

  return {
    async login(login, password, ip) {
      const at = now();
      // IPv6 by its /64: one connection usually holds a whole /64.
      const address = addressKey(ip);
      const user = await users.findForLogin(login);
      // Every spelling that reaches one account ('Admin', 'admin', its e-mail address) shares one budget.
      const key = throttleKey(user?.login ?? login);
      // Claimed before the check, so that attempts sent at once count each other.
      const attempt = await throttle.claim(key, address, at);
      try {
        await checkThrottle(key, address, at, attempt);
      } catch (error) {
        // Refused: it still counts for the address (one that goes on sending stays blocked).
        if (error instanceof AppError && error.code === 'AUTH_TOO_MANY_ATTEMPTS') await throttle.markRefused(attempt);
        else await throttle.release(attempt);
        throw error;
      }

      const settings = await consts.getMany(['MAIN_SECURITY_SALT', 'MAIN_SECURITY_HASH_ALGO']);
      const ok = await verifyPassword(
        password,
        user && { passCrypted: user.passCrypted, passClear: user.passClear },
        { salt: settings.get('MAIN_SECURITY_SALT') ?? '', algo: settings.get('MAIN_SECURITY_HASH_ALGO') ?? '' },
        deps.dummyCost,
      );
      if (!ok || !user) {
        // The claimed attempt stays as the failure; attempts past the window go.
        await throttle.purge(at - limits.windowSeconds);
        throw new AppError('AUTH_LOGIN_FAILED');
      }
      // The password was right: not a guess to count, whatever follows.
      await throttle.release(attempt);
      if (!isUsable(user, at, timeZone)) throw new AppError('AUTH_USER_DISABLED');
      const perms = await rightsOf(user);
      // The failures of others elsewhere still count for the account; this address is known now.
      await throttle.clearPair(key, address);
      await throttle.remember(key, address, at, at - knownSeconds);

      const name = fullName(user);
      // Never an iat that a void already covers: a logout in this second ends the tokens before
      // it, not this one (token-void.repository.ts). Dolibarr's cut-off voids what is before it.
      // Recorded as issued, later than the iat issued before: two logins in one second get
      // different tokens, so that a logout on one device never ends the other's.
      const iat = await voids.issue(user.id, Math.max(at, (user.tokensVoidThrough ?? 0) + 1, sessionCutOff(user) ?? 0), at);
      // More logins of one person within a few seconds than seconds to give them.
      if (iat === undefined) throw new AppError('SERVICE_UNAVAILABLE', { headers: { 'retry-after': '1' } });
      const { token, claims } = await tokens.sign({ id: user.id, login: user.login, name, perms }, iat);
      return {
        token,
        expires: claims.exp,
        user: { id: user.id, login: user.login, name, admin: user.admin },
        perms,
      };
    },

    async authenticate(token, given) {
      // Both before anything is read: what is kept is never older than its window.
      const version = cache ? (given ?? cache.version()) : undefined;
      const readAt = performance.now();
      const kept = cache && keptUsers.get(token);
      // As jose's check: a token is expired from its exp second on.
      if (kept) {
        if (kept.version === version && readAt < kept.until && Math.floor(Date.now() / 1000) < kept.exp) return kept.user;
        keptUsers.delete(token);
      }

      const claims = await tokens.verify(token);
      const user = await users.getById(claims.sub, tokenHashOf(token));
      if (!user || user.login !== claims.login) throw new AppError('AUTH_TOKEN_INVALID');
      const at = now();
      const voided = user.tokensVoidThrough !== null && claims.iat <= user.tokensVoidThrough;
      if (!isUsable(user, at, timeZone)) {
        // Seen deactivated: the tokens issued so far stay void when the user is activated again.
        // Should this write fail (a read-only database), the sweep writes it (app.ts).
        if (!user.active && !voided) await voids.voidThrough(user.id, at, true).catch(() => undefined);
        throw new AppError('AUTH_USER_DISABLED');
      }
      const cutOff = sessionCutOff(user);
      if (voided || user.tokenRevoked || (cutOff !== null && claims.iat < cutOff)) throw new AppError('AUTH_TOKEN_INVALID');
      const perms = await rightsOf(user);
      const caller: AuthUser = Object.freeze({
        id: user.id,
        login: user.login,
        name: fullName(user),
        admin: user.admin,
        fkSoc: user.fkSoc,
        perms: Object.freeze(perms),
      });
      if (cache && version !== undefined) {
        keptUsers.set(token, { user: caller, version, until: readAt + cache.seconds * 1000, exp: claims.exp });
      }
      return caller;
    },

    async currentUser(id) {
      const user = await users.getById(id);
      if (!user || !isUsable(user, now(), timeZone)) return undefined;
      const perms = permsFrom(await users.listRights(user.id));
      const cutOff = sessionCutOff(user);
      const voidedAt = Math.max(user.tokensVoidedAt ?? -1, cutOff === null ? -1 : cutOff - 1);
      return {
        id: user.id,
        login: user.login,
        name: fullName(user),
        admin: user.admin,
        fkSoc: user.fkSoc,
        perms,
        voidedAt: voidedAt <= 0 ? null : voidedAt,
      };
    },

    async logoutToken(token) {
      const claims = await tokens.verify(token);
      await voids.revokeToken(tokenHashOf(token), claims.sub, claims.exp, now());
      keptUsers.delete(token);
    },

    issuedAt(token) {
      try {
        const iat = (JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { iat?: unknown }).iat;
        return typeof iat === 'number' && Number.isSafeInteger(iat) ? iat : undefined;
      } catch {
        return undefined;
      }
    },

    async logout(userId, iat) {
      const at = now();
      await voids.voidThrough(userId, at, undefined, Math.max(at, iat ?? at));
      keptUsers.clear();
    },
  };
}
