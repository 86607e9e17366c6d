/**
 * The login: endpoint 1's token kept on the phone (IndexedDB) until it expires or the person logs
 * out. An expired or withdrawn token (a 401 anywhere) sets `needsLogin`: the login screen asks for
 * the password again while everything captured stays in the outbox and is sent afterwards.
 * Logging in as someone else clears the last user's cached reads; the outbox keeps each record's
 * owner and sends only the logged-in user's.
 */
import { api, connectAuth, unwrap } from '../../api/client';
import { forgetCapabilities, loadCapabilities } from './capabilities.svelte';
import { clearUserData, db, type Session } from '../store/db';
import { forgetCatalogue } from '../store/catalogue.svelte';
import { forgetKept } from '../store/offline-orders.svelte';
import { network } from './network.svelte';
import { prefetchOrders } from '../store/reads';

export const auth = $state({
  session: null as Session | null,
  /** The token is expired or was refused: ask for the password (the session's login is kept). */
  needsLogin: false,
  /** Why: 'expired' (the token's time ran out or the service said so) or 'withdrawn'. */
  reason: '' as '' | 'expired' | 'withdrawn',
  loaded: false,
});

/** Seconds left before the token expires (negative: expired). */
export function secondsLeft(session: Session | null = auth.session, now = Date.now()): number {
  return session ? session.expires - Math.floor(now / 1000) : -1;
}

/** A token that can be sent now. */
export function currentToken(): string | undefined {
  if (!auth.session || auth.needsLogin) return undefined;
  if (secondsLeft() <= 0) {
    auth.needsLogin = true;
    auth.reason = 'expired';
    return undefined;
  }
  return auth.session.token;
}

// Requests carry the token while it holds; one that ran out on the phone's clock asks for the password.
connectAuth(currentToken, (code) => {
  // Already asking (a request sent without a token meanwhile): keep the first reason.
  if (!auth.session || auth.needsLogin) return;
  auth.needsLogin = true;
  auth.reason = code === 'AUTH_TOKEN_EXPIRED' ? 'expired' : 'withdrawn';
});

export async function loadSession(): Promise<void> {
  const stored = await (await db()).get('session', 'current');
  auth.session = stored ?? null;
  if (stored && secondsLeft(stored) <= 0) {
    auth.needsLogin = true;
    auth.reason = 'expired';
  }
  auth.loaded = true;
}

/** Logs in (throws ApiError with the service's code and message when refused). */
export async function login(name: string, password: string): Promise<Session> {
  const answer = await unwrap(api.POST('/api/auth.php', { body: { login: name, password } }));
  const session: Session = { token: answer.token, expires: answer.expires, user: answer.user, perms: answer.perms };
  const previous = auth.session;
  if (previous && previous.user.id !== session.user.id) {
    forgetCatalogue();
    await clearUserData();
  }
  const stored = (await db()).put('session', session, 'current');
  auth.session = session;
  // The list the person sees next is asked for while the screen changes.
  // (Not after an expired login: the person goes back to the screen they were on.)
  if (!previous || previous.user.id !== session.user.id) prefetchOrders();
  await stored;
  auth.needsLogin = false;
  auth.reason = '';
  // What the service offers (speech-to-text), once per login.
  void loadCapabilities({ fresh: true });
  return session;
}

/**
 * Ends the login on the service (POST /api/logout.php): this phone's token, or with `everywhere`
 * every token of the person on every device. Throws when the service cannot be reached or refuses.
 */
async function endOnService(everywhere: boolean): Promise<void> {
  // A service that does not answer within LOGOUT_TIMEOUT_MS counts as unreachable: a logout never hangs.
  await unwrap(
    api.POST('/api/logout.php', {
      params: { query: everywhere ? { action: 'everywhere' } : {} },
      signal: AbortSignal.timeout(LOGOUT_TIMEOUT_MS),
    }),
  );
}

const LOGOUT_TIMEOUT_MS = 5_000;

/** "Log out everywhere" without a login that still holds (expired, or ended): nothing was ended on the service. */
export class NoValidLogin extends Error {
  constructor() {
    super('no valid login to end the others with');
  }
}

/**
 * Logs out: when online, this phone's token is ended on the service too (a copy of it is worthless
 * from then on); offline, or if the service cannot be reached, only this phone forgets it. Then the
 * login and every cached read on this phone are forgotten; what waits in the outbox stays.
 */
export async function logout(): Promise<void> {
  if (network.online && currentToken()) await endOnService(false).catch(() => undefined);
  await forgetLogin();
}

/**
 * "Log out everywhere": every login of the person ends on the service, then on this phone. Throws
 * (and keeps the login) when the service cannot be reached or refuses, and NoValidLogin when this
 * phone's login no longer holds: the person logs in again first, nothing is forgotten silently.
 */
export async function logoutEverywhere(): Promise<void> {
  if (!currentToken()) throw new NoValidLogin();
  await endOnService(true);
  await forgetLogin();
}

async function forgetLogin(): Promise<void> {
  forgetCapabilities();
  forgetKept();
  forgetCatalogue();
  await clearUserData();
  auth.session = null;
  auth.needsLogin = false;
  auth.reason = '';
}
