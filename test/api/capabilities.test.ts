/**
 * GET /api/capabilities.php on every database: what the service offers the app, read per request
 * from the same settings the transcription endpoint reads (llx_const, the environment winning).
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { assertError } from '../helpers/assertions.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';

const SETTINGS = [
  'BERICHT_TRANSCRIBE_URL',
  'BERICHT_TRANSCRIBE_MODE',
  'BERICHT_TRANSCRIBE_API_KEY',
  'BERICHT_TRANSCRIBE_LANG',
  'BERICHT_TRANSCRIBE_MODEL',
];
const NONE = { url: undefined, mode: undefined, apiKey: undefined, lang: undefined, timeoutSeconds: 5 };

for (const dialect of testDialects()) {
  describe(`capabilities [${dialect}]`, () => {
    let ctx: TestContext;
    let token: string;
    before(async () => {
      ctx = await createTestContext(dialect, { transcribe: NONE });
      token = await ctx.make.token(await ctx.make.user({ rights: ['read'] }));
    });
    after(async () => ctx?.close());
    beforeEach(async () => {
      for (const name of SETTINGS) await ctx.handle.db.deleteFrom('const').where('name', '=', name).execute();
    });

    const capabilities = async (app = ctx.app, bearer: string | null = token) => {
      const res = await app.inject({
        method: 'GET',
        url: '/api/capabilities.php',
        headers: bearer ? { authorization: `Bearer ${bearer}` } : {},
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as { transcription: boolean };
    };

    test('speech-to-text not set up: transcription false', async () => {
      assert.deepEqual(await capabilities(), { transcription: false });
      await ctx.make.setConst('BERICHT_TRANSCRIBE_URL', '   ');
      assert.deepEqual(await capabilities(), { transcription: false }, 'an empty value is no value');
    });

    test('the constants set in Dolibarr: true at once, per request; false again when they go', async () => {
      await ctx.make.setConst('BERICHT_TRANSCRIBE_URL', 'http://whisper:9000');
      assert.deepEqual(await capabilities(), { transcription: true }, 'the URL alone: whisper-asr by default');
      await ctx.make.setConst('BERICHT_TRANSCRIBE_MODE', 'openai');
      // The entity's own row, as an admin sets it in the entity's setup.
      await ctx.make.setConst('BERICHT_TRANSCRIBE_LANG', 'auto', ctx.config.entity);
      assert.deepEqual(await capabilities(), { transcription: true });
      await ctx.handle.db.deleteFrom('const').where('name', '=', 'BERICHT_TRANSCRIBE_URL').execute();
      assert.deepEqual(await capabilities(), { transcription: false });
    });

    test('an invalid mode, language or address: false (the transcription endpoint would answer 503)', async () => {
      await ctx.make.setConst('BERICHT_TRANSCRIBE_URL', 'http://whisper:9000');
      await ctx.make.setConst('BERICHT_TRANSCRIBE_MODE', 'azure');
      assert.deepEqual(await capabilities(), { transcription: false });
      await ctx.make.setConst('BERICHT_TRANSCRIBE_MODE', 'WHISPER-ASR');
      assert.deepEqual(await capabilities(), { transcription: true }, 'the mode is read case-insensitively, as for transcribing');
      await ctx.make.setConst('BERICHT_TRANSCRIBE_LANG', 'deutsch');
      assert.deepEqual(await capabilities(), { transcription: false });
      await ctx.make.setConst('BERICHT_TRANSCRIBE_LANG', 'de');
      await ctx.make.setConst('BERICHT_TRANSCRIBE_URL', 'http://user:secret@whisper:9000');
      assert.deepEqual(await capabilities(), { transcription: false });
    });

    test('the environment wins over the constants, as for transcribing', async () => {
      const fromEnv = await createTestContext(dialect, { transcribe: { ...NONE, url: 'https://api.openai.com/v1', mode: 'openai' } });
      try {
        const own = await fromEnv.make.token(await fromEnv.make.user({ rights: ['read'] }));
        assert.deepEqual(await capabilities(fromEnv.app, own), { transcription: true });
        await fromEnv.make.setConst('BERICHT_TRANSCRIBE_MODE', 'azure');
        assert.deepEqual(await capabilities(fromEnv.app, own), { transcription: true }, "the environment's mode, not the constant's");
      } finally {
        await fromEnv.close();
      }
    });

    test('no token is 401, a bad token 401, a user without the read right 403', async () => {
      assertError(await ctx.app.inject({ method: 'GET', url: '/api/capabilities.php' }), 401, 'AUTH_TOKEN_MISSING');
      assertError(
        await ctx.app.inject({ method: 'GET', url: '/api/capabilities.php', headers: { authorization: 'Bearer x.y.z' } }),
        401,
        'AUTH_TOKEN_INVALID',
      );
      // A read right withdrawn after login counts at once.
      const user = await ctx.make.user({ rights: ['read'] });
      const own = await ctx.make.token(user);
      await ctx.handle.db.deleteFrom('user_rights').where('fk_user', '=', user.id).execute();
      assertError(
        await ctx.app.inject({ method: 'GET', url: '/api/capabilities.php', headers: { authorization: `Bearer ${own}` } }),
        403,
        'AUTH_NO_RIGHTS',
      );
    });

    test('the OpenAPI document names the operation and its answer', async () => {
      const doc = (await ctx.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
      const op = doc.paths['/api/capabilities.php'].get;
      assert.equal(op.operationId, 'getCapabilities');
      assert.deepEqual(op.responses['200'].content['application/json'].schema.required, ['transcription']);
    });
  });
}
