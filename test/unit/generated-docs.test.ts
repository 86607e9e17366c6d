/**
 * The settings table (docs/operating.md) and the error codes (docs/api-contract.md) are the code's,
 * not copies that drift: each committed document must be exactly what `npm run gen:docs` makes from
 * src/settings.ts and src/errors.ts now.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { errorsTable, expectedDocs, replaceBetweenMarkers, settingsTable } from '../../scripts/gen-docs.js';
import { loadConfig } from '../../src/config.js';
import { MAIL_LIMIT_SETTINGS, SETTINGS } from '../../src/settings.js';
import { errorCatalogue } from '../../src/errors.js';

describe('generated documents', () => {
  for (const { file, current, expected } of expectedDocs()) {
    test(`${file} holds the tables the code makes`, () => {
      if (current === expected) return;
      const a = current.split('\n');
      const b = expected.split('\n');
      const line = a.findIndex((text, i) => text !== b[i]);
      assert.fail(
        `${file} differs from the code (first difference at line ${line + 1}: ${JSON.stringify(a[line])} should be ${JSON.stringify(b[line])}); run npm run gen:docs`,
      );
    });
  }

  test('the settings table names every setting with its default, and every mail limit', () => {
    const table = settingsTable();
    for (const [name, setting] of Object.entries(SETTINGS)) {
      const row = table.split('\n').find((line) => line.startsWith(`| \`${name}\` |`));
      assert.ok(row, name);
      if ('default' in setting) assert.ok(row.includes(`| \`${String(setting.default)}\``), `${name}: ${row}`);
    }
    for (const [name, limit] of Object.entries(MAIL_LIMIT_SETTINGS))
      assert.ok(table.includes(`| \`${name}\` | \`${limit.fallback}\` |`), name);
  });

  test('the defaults in SETTINGS are the ones loadConfig uses', () => {
    const config = loadConfig({});
    assert.equal(config.port, SETTINGS.PORT.default);
    assert.equal(config.host, SETTINGS.HOST.default);
    assert.equal(config.dbPrefix, SETTINGS.DB_PREFIX.default);
    assert.equal(config.logLevel, SETTINGS.LOG_LEVEL.default);
    assert.equal(config.cleanupAt, SETTINGS.CLEANUP_AT.default);
    assert.equal(config.login.windowSeconds, SETTINGS.LOGIN_WINDOW_SECONDS.default);
    assert.equal(config.uploads.maxAudioBytes, SETTINGS.UPLOAD_MAX_AUDIO_BYTES.default);
    assert.equal(config.seal.checkBudgetMs, SETTINGS.PDF_CHECK_BUDGET_MS.default);
    assert.equal(`sqlite:${config.database.dialect === 'sqlite' ? config.database.file : ''}`, SETTINGS.DATABASE_URL.default);
  });

  test('the error table has every code once, with its status and message', () => {
    const table = errorsTable();
    for (const [code, { status, message }] of Object.entries(errorCatalogue)) {
      const rows = table.split('\n').filter((line) => line.startsWith(`| \`${code}\` |`));
      assert.deepEqual(rows, [`| \`${code}\` | ${status} | ${message.replace(/\|/g, '\\|')} |`]);
    }
  });

  test('only the part between the markers is rewritten', () => {
    const text = 'before\n<!-- generated:x -->\nold\n<!-- /generated:x -->\nafter\n';
    assert.equal(replaceBetweenMarkers(text, 'x', 'new'), 'before\n<!-- generated:x -->\n\nnew\n\n<!-- /generated:x -->\nafter\n');
    assert.throws(() => replaceBetweenMarkers('no markers', 'x', 'new', 'doc.md'), /doc\.md has no <!-- generated:x -->/);
  });
});
