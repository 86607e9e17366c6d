/**
 * The service's own seal over signature metadata: anyone who can write the database and the files
 * could recompute a bare SHA-256, but not this Ed25519 signature without the service's private
 * key. The key is made once and kept outside the database (SIGNING_KEY_FILE, mode 0600); its
 * public half is served at /api/signing_key.php so anyone can check a seal.
 *
 * What is sealed is the canonical JSON of the metadata without its `seal` field: object keys sorted
 * by code point at every level, no whitespace, UTF-8 (so re-indenting the file changes nothing,
 * while any changed value breaks the seal).
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createFileOnceSync } from '../../adapters/file-store.js';

export const SEAL_ALGORITHM = 'Ed25519';

export interface Seal {
  algorithm: typeof SEAL_ALGORITHM;
  /** First 16 hex characters of the SHA-256 of the raw public key. */
  key_id: string;
  /** The signature, base64. */
  value: string;
}

export interface SigningKey {
  keyId: string;
  /** True when this call made the key (a new installation, or a lost key file). */
  created: boolean;
  publicKeyPem: string;
  /** The 32 bytes of the public key, base64. */
  publicKeyRaw: string;
  seal(payload: unknown): Seal;
  /** True when `seal` is this key's valid signature over `payload`. */
  check(payload: unknown, seal: unknown): boolean;
}

/** JSON with object keys sorted at every level: one byte form for one value. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

function readKey(file: string): KeyObject | undefined {
  try {
    return createPrivateKey(readFileSync(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`SIGNING_KEY_FILE ${file} holds no usable Ed25519 private key (PKCS#8 PEM): ${(error as Error).message}`);
  }
}

/**
 * The key in `file`, made when the file does not exist (unless `create` is false); of two
 * processes starting at once one makes it and both use it (createFileOnceSync).
 */
export function loadSigningKey(file: string, options: { create?: boolean } = {}): SigningKey {
  let privateKey = readKey(file);
  const created = !privateKey;
  if (!privateKey && options.create === false)
    throw new Error(`SIGNING_KEY_FILE ${file} does not exist: there is no key to check seals with`);
  if (!privateKey) {
    const { privateKey: made } = generateKeyPairSync('ed25519');
    createFileOnceSync(file, made.export({ type: 'pkcs8', format: 'pem' }).toString());
    privateKey = readKey(file)!;
  }
  if (privateKey.asymmetricKeyType !== 'ed25519')
    throw new Error(`SIGNING_KEY_FILE ${file} is a ${privateKey.asymmetricKeyType} key, not Ed25519`);
  const publicKey = createPublicKey(privateKey);
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  const keyId = createHash('sha256').update(raw).digest('hex').slice(0, 16);
  return {
    keyId,
    created,
    publicKeyPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    publicKeyRaw: raw.toString('base64'),
    seal(payload) {
      return {
        algorithm: SEAL_ALGORITHM,
        key_id: keyId,
        value: sign(null, Buffer.from(canonicalJson(payload), 'utf8'), privateKey).toString('base64'),
      };
    },
    check(payload, seal) {
      const s = seal as Partial<Seal> | null;
      if (!s || s.algorithm !== SEAL_ALGORITHM || s.key_id !== keyId || typeof s.value !== 'string') return false;
      try {
        return verify(null, Buffer.from(canonicalJson(payload), 'utf8'), publicKey, Buffer.from(s.value, 'base64'));
      } catch {
        return false;
      }
    },
  };
}
