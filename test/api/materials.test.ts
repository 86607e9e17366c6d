/**
 * Endpoint 22, /api/materials.php, on every database: lines per object, who may read, add and
 * delete them, the validation of every field, and the Idempotency-Key of a line sent again.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { KyselyPlugin } from 'kysely';
import { RUN_ID } from '../../src/adapters/runs.js';
import { toDbDateTime } from '../../src/db/dialect.js';
import type { ElementAccess } from '../../src/modules/access/element-access.js';
import { createMaterialService } from '../../src/modules/materials/materials.service.js';
import { assertError } from '../helpers/assertions.js';
import { type Caller, testClient } from '../helpers/client.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';
import { multipart } from '../helpers/multipart.js';

/** Idempotency keys are kept as their SHA-256 (exact on every collation). */
const storedKey = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');
const newKey = (what: string) => `${what}-${randomBytes(6).toString('hex')}`;

for (const dialect of testDialects()) {
  describe(`materials [${dialect}]`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(async () => ctx?.close());

    const { caller, api } = testClient(() => ctx);

    const addWithKey = (who: Caller, key: string, body: Record<string, unknown>) => api('POST', '/api/materials.php', who, body, { key });
    const linesOf = async (who: Caller, type: string, id: number) =>
      (await api('GET', `/api/materials.php?element_type=${type}&fk_element=${id}`, who)).json();
    const keyRows = (key: string) =>
      ctx.handle.db.selectFrom('bericht_idempotency').selectAll().where('idem_key', '=', storedKey(key)).execute();
    const add = async (who: Caller, body: Record<string, unknown>) => {
      const res = await api('POST', '/api/materials.php', who, body);
      assert.equal(res.statusCode, 201, res.body);
      return res.json();
    };

    test('lines are added, listed per object in order, and keep their creator and date', async () => {
      const me = await caller();
      const order = await ctx.make.order({ author: me.id });
      const other = await ctx.make.order({ author: me.id });
      const before = Math.floor(Date.now() / 1000);
      const a = await add(me, {
        element_type: 'commande',
        fk_element: order.id,
        label: '  Kupferrohr 15 mm ',
        qty: 2.5,
        unit: 'm',
        note: 'Vorlauf',
      });
      const b = await add(me, { element_type: 'commande', fk_element: order.id, label: 'Dichtung', qty: 0 });
      await add(me, { element_type: 'commande', fk_element: other.id, label: 'Anderes', qty: 1 });
      assert.deepEqual(
        { ...a, id: 0, datec: 0 },
        {
          id: 0,
          element_type: 'commande',
          fk_element: order.id,
          label: 'Kupferrohr 15 mm',
          qty: 2.5,
          unit: 'm',
          note: 'Vorlauf',
          fk_user_creat: me.id,
          datec: 0,
          // Free text: no product of the catalogue, no unit of Dolibarr's, no lot.
          fk_product: null,
          fk_unit: null,
          batch: null,
          fk_stock_mouvement: null,
          fk_bericht: null,
        },
      );
      assert.ok(a.datec >= before - 1 && a.datec <= Math.floor(Date.now() / 1000) + 1);
      assert.equal(b.unit, null);
      assert.equal(b.note, null);
      const list = await api('GET', `/api/materials.php?element_type=commande&fk_element=${order.id}`, me);
      assert.equal(list.statusCode, 200, list.body);
      assert.deepEqual(
        list.json().items.map((m: { id: number }) => m.id),
        [a.id, b.id],
      );
      assert.equal(list.json().total, 2);
      const paged = (await api('GET', `/api/materials.php?element_type=commande&fk_element=${order.id}&limit=1&offset=1`, me)).json();
      assert.deepEqual(
        paged.items.map((m: { id: number }) => m.id),
        [b.id],
      );
      assert.equal(paged.total, 2);
      const invoice = await ctx.make.invoice({ author: me.id });
      const onInvoice = await add(me, { element_type: 'facture', fk_element: invoice.id, label: 'Arbeitszeit', qty: 1.25, unit: 'h' });
      assert.deepEqual(
        (await api('GET', `/api/materials.php?element_type=facture&fk_element=${invoice.id}`, me))
          .json()
          .items.map((m: { id: number }) => m.id),
        [onInvoice.id],
      );
    });

    test('quantities keep three decimal places; more, negative, too large or not a number is 400', async () => {
      const me = await caller();
      const order = await ctx.make.order({ author: me.id });
      const ok = await add(me, { element_type: 'commande', fk_element: order.id, label: 'Kabel', qty: 0.125 });
      assert.equal(ok.qty, 0.125);
      assert.equal((await add(me, { element_type: 'commande', fk_element: order.id, label: 'Kabel', qty: 0.1 + 0.2 })).qty, 0.3);
      for (const qty of [0.0001, -1, 1e10, '2', null, Number.NaN]) {
        assertError(
          await api('POST', '/api/materials.php', me, { element_type: 'commande', fk_element: order.id, label: 'x', qty }),
          400,
          'VALIDATION_FAILED',
        );
      }
    });

    test('invalid bodies are 400 and add nothing', async () => {
      const me = await caller();
      const order = await ctx.make.order({ author: me.id });
      const count = async () => (await api('GET', `/api/materials.php?element_type=commande&fk_element=${order.id}`, me)).json().total;
      const bad: unknown[] = [
        {},
        { element_type: 'commande', fk_element: order.id, qty: 1 },
        { element_type: 'commande', fk_element: order.id, label: '', qty: 1 },
        { element_type: 'commande', fk_element: order.id, label: '   ', qty: 1 },
        { element_type: 'commande', fk_element: order.id, label: 'x'.repeat(256), qty: 1 },
        { element_type: 'commande', fk_element: order.id, label: 'x', qty: 1, unit: 'u'.repeat(33) },
        { element_type: 'commande', fk_element: order.id, label: 'x', qty: 1, note: 'n'.repeat(2001) },
        { element_type: 'societe', fk_element: order.id, label: 'x', qty: 1 },
        { element_type: 'commande', fk_element: String(order.id), label: 'x', qty: 1 },
        { element_type: 'commande', fk_element: order.id, label: 5, qty: 1 },
        { element_type: 'commande', fk_element: order.id, label: 'x', qty: 1, extra: true },
        [],
      ];
      for (const body of bad) assertError(await api('POST', '/api/materials.php', me, body), 400, 'VALIDATION_FAILED');
      assertError(await api('GET', '/api/materials.php', me), 400, 'VALIDATION_FAILED');
      assertError(await api('GET', '/api/materials.php?element_type=commande', me), 400, 'VALIDATION_FAILED');
      assertError(await api('GET', `/api/materials.php?element_type=x&fk_element=${order.id}`, me), 400, 'VALIDATION_FAILED');
      assertError(await api('DELETE', '/api/materials.php', me), 400, 'VALIDATION_FAILED');
      assert.equal(await count(), 0);
    });

    test("rights and visibility: other users' objects are 404; reading needs read, adding write, deleting delete", async () => {
      const me = await caller();
      const order = await ctx.make.order({ author: me.id });
      const line = await add(me, { element_type: 'commande', fk_element: order.id, label: 'Ventil', qty: 1, unit: 'Stk' });
      const stranger = await caller();
      assertError(await api('GET', `/api/materials.php?element_type=commande&fk_element=${order.id}`, stranger), 404, 'ORDER_NOT_FOUND');
      assertError(
        await api('POST', '/api/materials.php', stranger, { element_type: 'commande', fk_element: order.id, label: 'x', qty: 1 }),
        404,
        'ORDER_NOT_FOUND',
      );
      assertError(await api('DELETE', `/api/materials.php?id=${line.id}`, stranger), 404, 'MATERIAL_NOT_FOUND');
      assertError(
        await api('POST', '/api/materials.php', me, { element_type: 'propal', fk_element: 2147483000, label: 'x', qty: 1 }),
        404,
        'OBJECT_NOT_FOUND',
      );
      const reader = await caller(['read'], true);
      assert.equal((await api('GET', `/api/materials.php?element_type=commande&fk_element=${order.id}`, reader)).statusCode, 200);
      assertError(
        await api('POST', '/api/materials.php', reader, { element_type: 'commande', fk_element: order.id, label: 'x', qty: 1 }),
        403,
        'AUTH_RIGHT_MISSING',
      );
      const writer = await caller(['read', 'write'], true);
      assertError(await api('DELETE', `/api/materials.php?id=${line.id}`, writer), 403, 'AUTH_RIGHT_MISSING');
      assertError(await api('GET', `/api/materials.php?element_type=commande&fk_element=${order.id}`, null), 401, 'AUTH_TOKEN_MISSING');
      const foreign = await ctx.make.order({ author: me.id, entity: 2 });
      assertError(await api('GET', `/api/materials.php?element_type=commande&fk_element=${foreign.id}`, me), 404, 'ORDER_NOT_FOUND');
      assert.equal((await api('GET', `/api/materials.php?element_type=commande&fk_element=${order.id}`, me)).json().total, 1);
      const gone = await api('DELETE', `/api/materials.php?id=${line.id}`, me);
      assert.equal(gone.statusCode, 200, gone.body);
      assert.deepEqual(gone.json(), { id: line.id, deleted: true });
      assertError(await api('DELETE', `/api/materials.php?id=${line.id}`, me), 404, 'MATERIAL_NOT_FOUND');
      assert.equal((await api('GET', `/api/materials.php?element_type=commande&fk_element=${order.id}`, me)).json().total, 0);
    });

    test('Idempotency-Key: a repeat gets the first 201 and its line again, and adds no second line', async () => {
      const me = await caller();
      const order = await ctx.make.order({ author: me.id });
      const key = newKey('material');
      const body = { element_type: 'commande', fk_element: order.id, label: 'Muffe 1/2"', qty: 4, unit: 'Stk' };
      const first = await addWithKey(me, key, body);
      assert.equal(first.statusCode, 201, first.body);
      for (const again of [body, { ...body, label: 'anders', qty: 9 }]) {
        const repeat = await addWithKey(me, key, again);
        assert.equal(repeat.statusCode, 201, repeat.body);
        assert.deepEqual(repeat.json(), first.json());
      }
      const lines = await linesOf(me, 'commande', order.id);
      assert.equal(lines.total, 1);
      assert.deepEqual(lines.items[0], first.json());
      const [row, ...more] = await keyRows(key);
      assert.equal(more.length, 0);
      assert.equal(Number(row!.status_code), 201);
      assert.equal(row!.scope, `material:commande:${order.id}`);
      assert.deepEqual(JSON.parse(row!.response!), first.json());
      // Without a key every request is a line of its own.
      await add(me, body);
      await add(me, body);
      assert.equal((await linesOf(me, 'commande', order.id)).total, 3);
    });

    test('Idempotency-Key: the key of another object, or of an upload, is 409 IDEMPOTENCY_KEY_REUSED; keys are per user', async () => {
      const me = await caller();
      const order = await ctx.make.order({ author: me.id });
      const other = await ctx.make.order({ author: me.id });
      const invoice = await ctx.make.invoice({ author: me.id });
      const key = newKey('reused');
      assert.equal((await addWithKey(me, key, { element_type: 'commande', fk_element: order.id, label: 'Rohr', qty: 1 })).statusCode, 201);
      assertError(
        await addWithKey(me, key, { element_type: 'commande', fk_element: other.id, label: 'Rohr', qty: 1 }),
        409,
        'IDEMPOTENCY_KEY_REUSED',
      );
      assertError(
        await addWithKey(me, key, { element_type: 'facture', fk_element: invoice.id, label: 'Rohr', qty: 1 }),
        409,
        'IDEMPOTENCY_KEY_REUSED',
      );
      const upload = (orderId: number, uploadKey: string) => {
        const form = multipart([{ filename: 'notiz.ogg', data: Buffer.from('OggS') }]);
        return ctx.app.inject({
          method: 'POST',
          url: `/api/voice.php?id=${orderId}`,
          payload: form.payload,
          headers: { authorization: `Bearer ${me.token}`, 'content-type': form.contentType, 'idempotency-key': uploadKey },
        });
      };
      assertError(await upload(order.id, key), 409, 'IDEMPOTENCY_KEY_REUSED');
      // A key an upload used first is taken for material lines too (the upload itself fails on its bytes and frees its key).
      const uploadKey = newKey('upload');
      await ctx.handle.db
        .insertInto('bericht_idempotency')
        .values({
          entity: 1,
          fk_user: me.id,
          idem_key: storedKey(uploadKey),
          scope: `voice:${order.id}`,
          status_code: 201,
          response: '{}',
          datec: toDbDateTime(),
        })
        .execute();
      assertError(
        await addWithKey(me, uploadKey, { element_type: 'commande', fk_element: order.id, label: 'Rohr', qty: 1 }),
        409,
        'IDEMPOTENCY_KEY_REUSED',
      );
      assert.equal((await linesOf(me, 'commande', order.id)).total, 1);
      assert.equal((await linesOf(me, 'commande', other.id)).total, 0);
      assert.equal((await linesOf(me, 'facture', invoice.id)).total, 0);

      const colleague = await caller();
      const theirs = await ctx.make.order({ author: colleague.id });
      assert.equal(
        (await addWithKey(colleague, key, { element_type: 'commande', fk_element: theirs.id, label: 'Rohr', qty: 1 })).statusCode,
        201,
      );
    });

    test('Idempotency-Key: a malformed key is 400, a refused line keeps no key, and a claim at work is 409 IDEMPOTENCY_IN_PROGRESS', async () => {
      const me = await caller();
      const order = await ctx.make.order({ author: me.id });
      const body = { element_type: 'commande', fk_element: order.id, label: 'Schelle', qty: 2 };
      for (const bad of ['with space', 'x'.repeat(129), 'umlaut-ä', '']) {
        assertError(await addWithKey(me, bad, body), 400, 'VALIDATION_FAILED');
      }
      const refused = newKey('refused');
      assertError(await addWithKey(me, refused, { ...body, qty: 0.0001 }), 400, 'VALIDATION_FAILED');
      const stranger = await caller();
      assertError(await addWithKey(stranger, refused, body), 404, 'ORDER_NOT_FOUND');
      assert.deepEqual(await keyRows(refused), []);
      assert.equal((await addWithKey(me, refused, body)).statusCode, 201);

      const busy = newKey('busy');
      await ctx.handle.db
        .insertInto('bericht_idempotency')
        .values({
          entity: 1,
          fk_user: me.id,
          idem_key: storedKey(busy),
          scope: `material:commande:${order.id}`,
          status_code: null,
          response: null,
          datec: toDbDateTime(),
          run_id: RUN_ID,
        })
        .execute();
      const res = await addWithKey(me, busy, body);
      assertError(res, 409, 'IDEMPOTENCY_IN_PROGRESS');
      assert.equal(res.headers['retry-after'], '5');
      assert.equal((await linesOf(me, 'commande', order.id)).total, 1);
    });

    test('Idempotency-Key: the claim of a process that died is released, and the line is added once', async () => {
      const me = await caller();
      const order = await ctx.make.order({ author: me.id });
      // A run of this host whose process is gone: its marker names a pid that has exited.
      const deadRun = randomBytes(6).toString('hex');
      const runs = path.join(ctx.config.dataRoot, 'bericht', 'temp', 'runs');
      mkdirSync(runs, { recursive: true });
      writeFileSync(
        path.join(runs, `${deadRun}.json`),
        JSON.stringify({ host: os.hostname(), pid: spawnSync(process.execPath, ['-e', '']).pid }),
      );
      const key = newKey('dead');
      await ctx.handle.db
        .insertInto('bericht_idempotency')
        .values({
          entity: 1,
          fk_user: me.id,
          idem_key: storedKey(key),
          scope: `material:commande:${order.id}`,
          status_code: null,
          response: null,
          datec: toDbDateTime(),
          run_id: deadRun,
        })
        .execute();
      const body = { element_type: 'commande', fk_element: order.id, label: 'Nippel', qty: 1 };
      const first = await addWithKey(me, key, body);
      assert.equal(first.statusCode, 201, first.body);
      assert.deepEqual((await addWithKey(me, key, body)).json(), first.json());
      assert.equal((await linesOf(me, 'commande', order.id)).total, 1);
    });

    test('Idempotency-Key: an attempt that fails after claiming its key adds no line and frees the key for the retry', async () => {
      const me = await caller();
      const order = await ctx.make.order({ author: me.id });
      const key = newKey('failed');
      const body = { element_type: 'commande' as const, fk_element: order.id, label: 'Ventil', qty: 1 };
      /** The service on a database that refuses one kind of statement on one table (after the key was claimed). */
      const failingOn = (kind: 'InsertQueryNode' | 'UpdateQueryNode', table: string) => {
        const refuse: KyselyPlugin = {
          transformQuery: ({ node }) => {
            if (node.kind === kind && JSON.stringify(node).includes(table)) throw new Error('Platte voll');
            return node;
          },
          transformResult: async ({ result }) => result,
        };
        return createMaterialService({
          db: ctx.handle.db.withPlugin(refuse),
          dialect: ctx.dialect,
          access: { getById: async () => ({ id: order.id, ref: order.ref }) } as unknown as ElementAccess,
          entity: 1,
          runs: { state: async () => 'alive' },
          products: { forLine: async () => assert.fail('a line of free text asks for no product') },
        });
      };
      const asMe = { id: me.id, admin: false, fkSoc: null };
      // The line is refused; then its answer cannot be stored, which takes the line back with it.
      await assert.rejects(failingOn('InsertQueryNode', 'bericht_material').create(asMe, body, key), /Platte voll/);
      await assert.rejects(failingOn('UpdateQueryNode', 'bericht_idempotency').create(asMe, body, key), /Platte voll/);
      assert.deepEqual(await keyRows(key), []);
      assert.equal((await linesOf(me, 'commande', order.id)).total, 0);
      const retry = await addWithKey(me, key, body);
      assert.equal(retry.statusCode, 201, retry.body);
      assert.equal((await linesOf(me, 'commande', order.id)).total, 1);
    });

    test('the OpenAPI document names the Idempotency-Key header of POST and its 409', async () => {
      const op = (await ctx.app.inject({ method: 'GET', url: '/api/openapi.json' })).json().paths['/api/materials.php'].post;
      assert.ok(op.parameters.some((p: { name: string; in: string }) => p.name === 'idempotency-key' && p.in === 'header'));
      assert.match(op.description, /Idempotency-Key/);
      assert.match(op.description, /IDEMPOTENCY_KEY_REUSED/);
      assert.ok(op.responses['409']);
    });
  });
}
