/**
 * Passwords as Dolibarr checks and writes them (security.lib.php, dol_hash / dol_verifyHash):
 * - `$…` hashes are PHP password_hash() bcrypt (`$2y$`); Node's bcrypt writes `$2b$`, the same
 *   algorithm, so we accept both and write `$2y$` for parity with PHP.
 * - 32 hex characters: md5(MAIN_SECURITY_SALT + password).
 * - 40 hex characters: sha1(md5(salt + password)), or sha1(salt + password) when
 *   MAIN_SECURITY_HASH_ALGO is 'sha1'.
 * - 64 hex characters with MAIN_SECURITY_HASH_ALGO 'sha256': sha256(salt + password).
 * - The legacy clear-text `pass` column is accepted when it is not empty.
 *
 * Every check costs one bcrypt comparison, also when the user is unknown or has a legacy hash, so
 * the answer time does not tell a wrong password from an unknown login. Its cost is the highest
 * the installation's users have (PHP 8.4 hashes with cost 12), found at start.
 */
import bcrypt from 'bcrypt';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** PHP password_hash(PASSWORD_DEFAULT) uses cost 10. */
export const BCRYPT_COST = 10;

/** Costs above this are not used for the dummy comparison (cost 14 is about a second). */
export const MAX_DUMMY_COST = 14;

// Real hashes of a random string nobody knows, compared against when there is nothing real to
// compare; one per cost, made on first use, so an unknown login costs what a known one does.
const dummyHashes = new Map<number, Promise<string>>();
function getDummyHash(cost: number): Promise<string> {
  const c = Math.min(Math.max(cost, 4), MAX_DUMMY_COST);
  let hash = dummyHashes.get(c);
  if (!hash) {
    hash = bcrypt.hash(randomBytes(24).toString('base64'), c);
    dummyHashes.set(c, hash);
  }
  return hash;
}

export interface StoredCredential {
  passCrypted: string | null;
  passClear: string | null;
}

export interface HashSettings {
  salt: string;
  algo: string;
}

function hex(algo: 'md5' | 'sha1' | 'sha256', input: string): string {
  return createHash(algo).update(input, 'utf8').digest('hex');
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

function legacyHashes(password: string, settings: HashSettings, length: number): string[] {
  const salted = settings.salt + password;
  switch (length) {
    case 32:
      return [hex('md5', salted)];
    case 40:
      return settings.algo === 'sha1' ? [hex('sha1', salted)] : [hex('sha1', hex('md5', salted))];
    case 64:
      return settings.algo === 'sha256' ? [hex('sha256', salted)] : [];
    default:
      return [];
  }
}

function toNodeBcrypt(hash: string): string {
  return hash.startsWith('$2y$') || hash.startsWith('$2x$') ? `$2b$${hash.slice(4)}` : hash;
}

/** True when `password` matches the stored credential. Always spends one bcrypt comparison. */
export async function verifyPassword(
  password: string,
  stored: StoredCredential | undefined,
  settings: HashSettings,
  /** Cost of the comparison spent when there is no bcrypt hash: the users' own cost. */
  dummyCost = BCRYPT_COST,
): Promise<boolean> {
  const crypted = stored?.passCrypted ?? '';
  let ok: boolean;
  if (crypted.startsWith('$2')) {
    // bcrypt only looks at the first 72 bytes; PHP does the same.
    ok = await bcrypt.compare(password, toNodeBcrypt(crypted)).catch(() => false);
  } else {
    await bcrypt.compare(password, await getDummyHash(dummyCost));
    ok = legacyHashes(password, settings, crypted.length).some((c) => sameText(c, crypted.toLowerCase()));
  }
  if (ok || !stored) return ok;
  // As Dolibarr: when the hash does not verify, the legacy clear-text column may.
  const clear = stored.passClear ?? '';
  return clear !== '' && sameText(clear, password);
}

/** A hash as PHP's password_hash() writes it: bcrypt, cost 10, `$2y$` prefix. */
export async function hashPassword(password: string): Promise<string> {
  const hash = await bcrypt.hash(password, BCRYPT_COST);
  return `$2y$${hash.slice(4)}`;
}
