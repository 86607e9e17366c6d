/**
 * Dolibarr's encodings, password checks, rights names and the date-time/constraint quirks of the
 * three databases, checked against values made by PHP itself (test/fixtures/php-made.json).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fromDbDateTime, isUniqueViolation, toDbDateTime } from '../../src/db/dialect.js';
import { dolDecode, dolDecrypt, dolEncode, dolEncrypt } from '../../src/dolibarr/crypto.js';
import { hashPassword, verifyPassword } from '../../src/dolibarr/password.js';
import { RIGHTS, RIGHT_DEFINITIONS, RIGHTS_MODULE, permsFrom, rightFromPerms } from '../../src/dolibarr/rights.js';

interface PhpFixtures {
  php_version: string;
  password: string;
  password_hash: string;
  salt: string;
  md5_salted: string;
  sha1md5_salted: string;
  dolcrypt_plain: string;
  dolcrypt: string;
  dolcrypt_key: string;
  dol_encode_plain: string;
  dol_encode: string;
}

const php: PhpFixtures = JSON.parse(readFileSync(new URL('../fixtures/php-made.json', import.meta.url), 'utf8'));

const hex = (algo: string, s: string) => createHash(algo).update(s, 'utf8').digest('hex');
const PH = { salt: php.salt, algo: 'password_hash' };

describe('dol_encode / dol_decode (conf.php passwords)', () => {
  test('dolDecode of the PHP-made value is its plaintext (with non-ASCII characters)', () => {
    assert.equal(dolDecode(php.dol_encode), php.dol_encode_plain);
  });

  test("dolEncode writes exactly PHP's output", () => {
    assert.equal(dolEncode(php.dol_encode_plain), php.dol_encode);
  });

  test('dolEncode and dolDecode round-trip, also bytes that wrap past 255', () => {
    for (const plain of ['', 'a', 'S3cret', 'ÿþ€ – Grüße', '😀 \ufffd', 'pa$$:word/with?odd#chars']) {
      assert.equal(dolDecode(dolEncode(plain)), plain);
    }
  });
});

describe('dolEncrypt / dolDecrypt (dolcrypt:AES-256-CTR)', () => {
  test('decrypts the PHP-made value with its key', () => {
    assert.equal(dolDecrypt(php.dolcrypt, php.dolcrypt_key), php.dolcrypt_plain);
  });

  test('a wrong key does not give the plaintext', () => {
    assert.notEqual(dolDecrypt(php.dolcrypt, 'fedcba9876543210fedcba9876543210'), php.dolcrypt_plain);
    assert.notEqual(dolDecrypt(php.dolcrypt, php.dolcrypt_key.slice(0, 31) + 'X'), php.dolcrypt_plain);
  });

  test("dolEncrypt with PHP's IV gives PHP's value, and round-trips with a random IV", () => {
    const iv = php.dolcrypt.split(':')[2]!;
    assert.equal(dolEncrypt(php.dolcrypt_plain, php.dolcrypt_key, iv), php.dolcrypt);
    const made = dolEncrypt('Grüße, 123', php.dolcrypt_key);
    assert.match(made, /^dolcrypt:AES-256-CTR:[0-9a-f]{16}:[A-Za-z0-9+/=]+$/);
    assert.equal(dolDecrypt(made, php.dolcrypt_key), 'Grüße, 123');
  });

  test('values that are not dolcrypt pass through unchanged', () => {
    for (const value of ['', 'plain value', '20240101120000', 'dolcrypt', 'dolcryptX:abc', 'crypted', 'xcrypted:abc']) {
      assert.equal(dolDecrypt(value, php.dolcrypt_key), value);
    }
  });

  test('an unknown cipher or an empty key leaves the value as it is', () => {
    assert.equal(dolDecrypt('dolcrypt:ROT13:abcdefabcdefabcd:xyz', php.dolcrypt_key), 'dolcrypt:ROT13:abcdefabcdefabcd:xyz');
    assert.equal(dolDecrypt(php.dolcrypt, ''), php.dolcrypt);
  });

  test('crypted: values are dol_decoded', () => {
    assert.equal(dolDecrypt(`crypted:${php.dol_encode}`, php.dolcrypt_key), php.dol_encode_plain);
    assert.equal(dolDecrypt(`crypted:${php.dol_encode}`, ''), php.dol_encode_plain);
  });
});

describe('verifyPassword', () => {
  test("PHP's password_hash ($2y$) verifies", async () => {
    assert.ok(php.password_hash.startsWith('$2y$10$'));
    assert.equal(await verifyPassword(php.password, { passCrypted: php.password_hash, passClear: null }, PH), true);
  });

  test('the same hash written with $2b$ (Node bcrypt) verifies too', async () => {
    const b = `$2b$${php.password_hash.slice(4)}`;
    assert.equal(await verifyPassword(php.password, { passCrypted: b, passClear: null }, PH), true);
    assert.equal(await verifyPassword('wrong', { passCrypted: b, passClear: null }, PH), false);
  });

  test('md5(salt + password) made by PHP verifies with the salt', async () => {
    assert.equal(await verifyPassword(php.password, { passCrypted: php.md5_salted, passClear: null }, PH), true);
    assert.equal(await verifyPassword(php.password, { passCrypted: php.md5_salted.toUpperCase(), passClear: null }, PH), true);
  });

  test('sha1(md5(salt + password)) made by PHP verifies with the salt', async () => {
    assert.equal(await verifyPassword(php.password, { passCrypted: php.sha1md5_salted, passClear: null }, PH), true);
  });

  test('the legacy hashes need the right salt', async () => {
    const noSalt = { salt: '', algo: 'password_hash' };
    assert.equal(await verifyPassword(php.password, { passCrypted: php.md5_salted, passClear: null }, noSalt), false);
    assert.equal(await verifyPassword(php.password, { passCrypted: php.sha1md5_salted, passClear: null }, noSalt), false);
  });

  test("sha1(salt + password) verifies when MAIN_SECURITY_HASH_ALGO is 'sha1'", async () => {
    const sha1 = hex('sha1', php.salt + php.password);
    assert.equal(await verifyPassword(php.password, { passCrypted: sha1, passClear: null }, { salt: php.salt, algo: 'sha1' }), true);
    assert.equal(await verifyPassword('wrong', { passCrypted: sha1, passClear: null }, { salt: php.salt, algo: 'sha1' }), false);
    // Under password_hash a 40-character hash is read as sha1(md5(...)), so plain sha1 does not match.
    assert.equal(await verifyPassword(php.password, { passCrypted: sha1, passClear: null }, PH), false);
  });

  test("sha256(salt + password) verifies when MAIN_SECURITY_HASH_ALGO is 'sha256'", async () => {
    const sha256 = hex('sha256', php.salt + php.password);
    assert.equal(await verifyPassword(php.password, { passCrypted: sha256, passClear: null }, { salt: php.salt, algo: 'sha256' }), true);
    assert.equal(await verifyPassword(php.password, { passCrypted: sha256, passClear: null }, PH), false);
  });

  test('the legacy clear-text pass column verifies when pass_crypted is empty', async () => {
    assert.equal(await verifyPassword('klartext', { passCrypted: null, passClear: 'klartext' }, PH), true);
    assert.equal(await verifyPassword('Klartext', { passCrypted: null, passClear: 'klartext' }, PH), false);
  });

  test('wrong passwords are refused for every kind of stored hash', async () => {
    for (const passCrypted of [php.password_hash, php.md5_salted, php.sha1md5_salted]) {
      assert.equal(await verifyPassword(`${php.password}x`, { passCrypted, passClear: null }, PH), false, passCrypted);
      assert.equal(await verifyPassword('', { passCrypted, passClear: null }, PH), false, passCrypted);
    }
  });

  test('an unknown user (undefined credential) is refused', async () => {
    assert.equal(await verifyPassword(php.password, undefined, PH), false);
    assert.equal(await verifyPassword('', undefined, PH), false);
  });

  test('an empty clear pass never matches, not even an empty password', async () => {
    assert.equal(await verifyPassword('', { passCrypted: null, passClear: '' }, PH), false);
    assert.equal(await verifyPassword('', { passCrypted: null, passClear: null }, PH), false);
    assert.equal(await verifyPassword('', { passCrypted: '', passClear: '' }, PH), false);
  });

  test('a broken bcrypt value is refused, not thrown', async () => {
    assert.equal(await verifyPassword(php.password, { passCrypted: '$2y$10$tooshort', passClear: null }, PH), false);
  });

  test('hashPassword writes $2y$10$ as PHP does, and it verifies', async () => {
    const hash = await hashPassword(php.password);
    assert.match(hash, /^\$2y\$10\$[./A-Za-z0-9]{53}$/);
    assert.equal(await verifyPassword(php.password, { passCrypted: hash, passClear: null }, PH), true);
    assert.equal(await verifyPassword('other', { passCrypted: hash, passClear: null }, PH), false);
    assert.notEqual(await hashPassword(php.password), hash, 'a new salt every time');
  });
});

describe('rights', () => {
  test("Dolibarr's perms names map to ours (lire, creer, supprimer)", () => {
    assert.equal(rightFromPerms('lire'), 'read');
    assert.equal(rightFromPerms('read'), 'read');
    assert.equal(rightFromPerms('creer'), 'write');
    assert.equal(rightFromPerms('create'), 'write');
    assert.equal(rightFromPerms('write'), 'write');
    assert.equal(rightFromPerms('supprimer'), 'delete');
    assert.equal(rightFromPerms('delete'), 'delete');
    assert.equal(rightFromPerms('admin'), 'admin');
    assert.equal(rightFromPerms('LIRE'), 'read');
  });

  test('unknown or empty perms map to nothing', () => {
    assert.equal(rightFromPerms('export'), undefined);
    assert.equal(rightFromPerms(''), undefined);
    assert.equal(rightFromPerms(null), undefined);
    assert.equal(rightFromPerms('toString'), undefined);
  });

  test('the four definitions: module bericht, ids 436100nn, one per right', () => {
    assert.equal(RIGHTS_MODULE, 'bericht');
    assert.deepEqual(
      RIGHT_DEFINITIONS.map((d) => d.right),
      [...RIGHTS],
    );
    assert.deepEqual(
      RIGHT_DEFINITIONS.map((d) => d.id),
      [43610001, 43610002, 43610003, 43610004],
    );
  });

  test('permsFrom', () => {
    assert.deepEqual(permsFrom(['read', 'delete', 'read']), { read: true, write: false, delete: true, admin: false });
    assert.deepEqual(permsFrom([]), { read: false, write: false, delete: false, admin: false });
  });
});

describe('dialect: date-times', () => {
  test('toDbDateTime writes UTC text, from a Date or Unix seconds', () => {
    assert.equal(toDbDateTime(new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 678))), '2024-01-02 03:04:05');
    assert.equal(toDbDateTime(0), '1970-01-01 00:00:00');
    assert.equal(toDbDateTime(1_718_000_000), '2024-06-10 06:13:20');
    assert.match(toDbDateTime(), /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  test('round trip: fromDbDateTime(toDbDateTime(t)) === t', () => {
    for (const t of [0, 1, 946_684_799, 1_700_000_000, 1_718_000_000, 2_000_000_000, 4_102_444_800]) {
      assert.equal(fromDbDateTime(toDbDateTime(t)), t);
    }
    const now = Math.floor(Date.now() / 1000);
    assert.equal(fromDbDateTime(toDbDateTime(new Date(now * 1000))), now);
  });

  test("MySQL's zero date, NULL, undefined and '' are null", () => {
    assert.equal(fromDbDateTime('0000-00-00 00:00:00'), null);
    assert.equal(fromDbDateTime('0000-00-00'), null);
    assert.equal(fromDbDateTime(null), null);
    assert.equal(fromDbDateTime(undefined), null);
    assert.equal(fromDbDateTime(''), null);
    assert.equal(fromDbDateTime('not a date'), null);
  });

  test('fractional seconds, a T separator, a date alone and a Date object are accepted', () => {
    assert.equal(fromDbDateTime('2024-01-02 03:04:05.123456'), Date.UTC(2024, 0, 2, 3, 4, 5) / 1000);
    assert.equal(fromDbDateTime('2024-01-02 03:04:05.9'), Date.UTC(2024, 0, 2, 3, 4, 5) / 1000);
    assert.equal(fromDbDateTime('2024-01-02T03:04:05'), Date.UTC(2024, 0, 2, 3, 4, 5) / 1000);
    assert.equal(fromDbDateTime('2024-01-02 03:04'), Date.UTC(2024, 0, 2, 3, 4, 0) / 1000);
    assert.equal(fromDbDateTime('2024-01-02'), Date.UTC(2024, 0, 2) / 1000);
    assert.equal(fromDbDateTime(new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 999))), Date.UTC(2024, 0, 2, 3, 4, 5) / 1000);
  });
});

describe('dialect: isUniqueViolation', () => {
  test('unique and primary-key violations of every driver', () => {
    // better-sqlite3
    assert.equal(
      isUniqueViolation(Object.assign(new Error('UNIQUE constraint failed: llx_user.login'), { code: 'SQLITE_CONSTRAINT_UNIQUE' })),
      true,
    );
    assert.equal(
      isUniqueViolation(Object.assign(new Error('UNIQUE constraint failed: llx_rights_def.id'), { code: 'SQLITE_CONSTRAINT_PRIMARYKEY' })),
      true,
    );
    // mysql2 (MariaDB/MySQL)
    assert.equal(
      isUniqueViolation(Object.assign(new Error("Duplicate entry 'bob-1'"), { code: 'ER_DUP_ENTRY', errno: 1062, sqlState: '23000' })),
      true,
    );
    assert.equal(isUniqueViolation({ errno: 1062 }), true);
    // pg
    assert.equal(
      isUniqueViolation(Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505', severity: 'ERROR' })),
      true,
    );
  });

  test('other errors are not unique violations', () => {
    assert.equal(isUniqueViolation(Object.assign(new Error('NOT NULL constraint failed'), { code: 'SQLITE_CONSTRAINT_NOTNULL' })), false);
    assert.equal(
      isUniqueViolation(Object.assign(new Error('FOREIGN KEY constraint failed'), { code: 'SQLITE_CONSTRAINT_FOREIGNKEY' })),
      false,
    );
    assert.equal(isUniqueViolation(Object.assign(new Error('no such table'), { code: 'SQLITE_ERROR' })), false);
    assert.equal(
      isUniqueViolation(Object.assign(new Error("Column 'login' cannot be null"), { code: 'ER_BAD_NULL_ERROR', errno: 1048 })),
      false,
    );
    assert.equal(isUniqueViolation(Object.assign(new Error('foreign key violation'), { code: '23503' })), false);
    assert.equal(isUniqueViolation(Object.assign(new Error('not null violation'), { code: '23502' })), false);
    assert.equal(isUniqueViolation(new Error('plain')), false);
    assert.equal(isUniqueViolation(null), false);
    assert.equal(isUniqueViolation(undefined), false);
    assert.equal(isUniqueViolation('23505'), false);
    assert.equal(isUniqueViolation(23505), false);
  });
});
