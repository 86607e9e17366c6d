/**
 * Dolibarr's two reversible encodings, as its security.lib.php defines them:
 * - `dol_decode`: base64, then every byte minus 17. An obfuscation, not encryption (conf.php passwords,
 *   legacy `crypted:` constants).
 * - `dolDecrypt`: `dolcrypt:AES-256-CTR:<iv>:<base64>` with the instance unique id as key, as
 *   PHP's openssl_decrypt uses it (NUL-padded or cut to 32 bytes; the IV is 16 ASCII characters).
 */
import { createDecipheriv, createCipheriv, randomBytes } from 'node:crypto';

export function dolDecode(encoded: string): string {
  const bytes = Buffer.from(encoded, 'base64');
  for (let i = 0; i < bytes.length; i++) bytes[i] = (bytes[i]! + 256 - 17) % 256;
  return bytes.toString('utf8');
}

export function dolEncode(plain: string): string {
  const bytes = Buffer.from(plain, 'utf8');
  for (let i = 0; i < bytes.length; i++) bytes[i] = (bytes[i]! + 17) % 256;
  return bytes.toString('base64');
}

function opensslKey(key: string, length: number): Buffer {
  const out = Buffer.alloc(length);
  Buffer.from(key, 'utf8').copy(out, 0, 0, length);
  return out;
}

const CIPHERS: Record<string, { name: string; keyLength: number }> = {
  'AES-256-CTR': { name: 'aes-256-ctr', keyLength: 32 },
};

/** Decrypts a `dolcrypt:` value; any other value is returned as it is, like Dolibarr does. */
export function dolDecrypt(value: string, key: string): string {
  const match = /^dolcrypt:([^:]+):(.+)$/.exec(value);
  if (!match) return value.startsWith('crypted:') ? dolDecode(value.slice('crypted:'.length)) : value;
  const cipher = CIPHERS[match[1]!.toUpperCase()];
  if (!cipher || !key) return value;
  const parts = match[2]!.split(':');
  const [iv, data] = parts.length > 1 && parts[1] ? [parts[0]!, parts[1]] : ['', parts[0]!];
  const ivBytes = opensslKey(iv, 16);
  const decipher = createDecipheriv(cipher.name, opensslKey(key, cipher.keyLength), ivBytes);
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
}

/** The inverse of dolDecrypt, for tests and demo data. */
export function dolEncrypt(plain: string, key: string, iv = randomBytes(8).toString('hex')): string {
  const cipher = createCipheriv('aes-256-ctr', opensslKey(key, 32), opensslKey(iv, 16));
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]).toString('base64');
  return `dolcrypt:AES-256-CTR:${iv}:${data}`;
}
