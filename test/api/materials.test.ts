/**
 * Endpoint 22, /api/materials.php, on every database: lines per object, who may read, add and
 * delete them, and the validation of every field.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { assertError } from '../helpers/assertions.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';

for (const dialect of testDialects()) {
  describe(`materials [${dialect}]`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(async () => ctx?.close());

    async function caller(rights: Array<'read' | 'write' | 'delete'> = ['read', 'write', 'delete'], admin = false) {
      const user = await ctx.make.user({ rights, admin });
      return { id: user.id, token: await ctx.make.token(user) };
    }
    type Caller = Awaited<ReturnType<typeof caller>>;
    const req = (who: Caller | null, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown): Promise<LightMyRequestResponse> =>
      ctx.app.inject({ method, url, headers: who ? { authorization: `Bearer ${who.token}` } : {}, ...(payload === undefined ? {} : { payload: payload as object }) });
    const add = async (who: Caller, body: Record<string, unknown>) => {
      const res = await req(who, 'POST', '/api/materials.php', body);
      assert.equal(res.statusCode, 201, res.body);
      return res.json();
    };

    test('lines are added, listed per object in order, and keep their creator and date', async () => {
      const me = await caller();
      const order = await ctx.make.order({ author: me.id });
      const other = await ctx.make.order({ author: me.id });
      const before = Math.floor(Date.now() / 1000);
      const a = await add(me, { element_type: 'commande', fk_element: order.id, label: '  Kupferrohr 15 mm ', qty: 2.5, unit: 'm', note: 'Vorlauf' });
      const b = await add(me, { element_type: 'commande', fk_element: order.id, label: 'Dichtung', qty: 0 });
      await add(me, { element_type: 'commande', fk_element: other.id, label: 'Anderes', qty: 1 });
      assert.deepEqual({ ...a, id: 0, datec: 0 }, { id: 0, element_type: 'commande', fk_element: order.id, label: 'Kupferrohr 15 mm', qty: 2.5, unit: 'm', note: 'Vorlauf', fk_user_creat: me.id, datec: 0 });
      assert.ok(a.datec >= before - 1 && a.datec <= Math.floor(Date.now() / 1000) + 1);
      assert.equal(b.unit, null);
      assert.equal(b.note, null);
      const list = await req(me, 'GET', `/api/materials.php?element_type=commande&fk_element=${order.id}`);
      assert.equal(list.statusCode, 200, list.body);
      assert.deepEqual(list.json().items.map((m: { id: number }) => m.id), [a.id, b.id]);
      assert.equal(list.json().total, 2);
      const paged = (await req(me, 'GET', `/api/materials.php?element_type=commande&fk_element=${order.id}&limit=1&offset=1`)).json();
      assert.deepEqual(paged.items.map((m: { id: number }) => m.id), [b.id]);
      assert.equal(paged.total, 2);
      const invoice = await ctx.make.invoice({ author: me.id });
      const onInvoice = await add(me, { element_type: 'facture', fk_element: invoice.id, label: 'Arbeitszeit', qty: 1.25, unit: 'h' });
      assert.deepEqual((await req(me, 'GET', `/api/materials.php?element_type=facture&fk_element=${invoice.id}`)).json().items.map((m: { id: number }) => m.id), [onInvoice.id]);
    });

    test('quantities keep three decimal places; more, negative, too large or not a number is 400', async () => {
      const me = await caller();
      const order = await ctx.make.order({ author: me.id });
      const ok = await add(me, { element_type: 'commande', fk_element: order.id, label: 'Kabel', qty: 0.125 });
      assert.equal(ok.qty, 0.125);
      assert.equal((await add(me, { element_type: 'commande', fk_element: order.id, label: 'Kabel', qty: 0.1 + 0.2 })).qty, 0.3);
      for (const qty of [0.0001, -1, 1e10, '2', null, Number.NaN]) {
        assertError(await req(me, 'POST', '/api/materials.php', { element_type: 'commande', fk_element: order.id, label: 'x', qty }), 400, 'VALIDATION_FAILED');
      }
    });

    test('invalid bodies are 400 and add nothing', async () => {
      const me = await caller();
      const order = await ctx.make.order({ author: me.id });
      const count = async () => (await req(me, 'GET', `/api/materials.php?element_type=commande&fk_element=${order.id}`)).json().total;
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
      for (const body of bad) assertError(await req(me, 'POST', '/api/materials.php', body), 400, 'VALIDATION_FAILED');
      assertError(await req(me, 'GET', '/api/materials.php'), 400, 'VALIDATION_FAILED');
      assertError(await req(me, 'GET', '/api/materials.php?element_type=commande'), 400, 'VALIDATION_FAILED');
      assertError(await req(me, 'GET', `/api/materials.php?element_type=x&fk_element=${order.id}`), 400, 'VALIDATION_FAILED');
      assertError(await req(me, 'DELETE', '/api/materials.php'), 400, 'VALIDATION_FAILED');
      assert.equal(await count(), 0);
    });

    test("rights and visibility: other users' objects are 404; reading needs read, adding write, deleting delete", async () => {
      const me = await caller();
      const order = await ctx.make.order({ author: me.id });
      const line = await add(me, { element_type: 'commande', fk_element: order.id, label: 'Ventil', qty: 1, unit: 'Stk' });
      const stranger = await caller();
      assertError(await req(stranger, 'GET', `/api/materials.php?element_type=commande&fk_element=${order.id}`), 404, 'ORDER_NOT_FOUND');
      assertError(await req(stranger, 'POST', '/api/materials.php', { element_type: 'commande', fk_element: order.id, label: 'x', qty: 1 }), 404, 'ORDER_NOT_FOUND');
      assertError(await req(stranger, 'DELETE', `/api/materials.php?id=${line.id}`), 404, 'MATERIAL_NOT_FOUND');
      assertError(await req(me, 'POST', '/api/materials.php', { element_type: 'propal', fk_element: 2147483000, label: 'x', qty: 1 }), 404, 'OBJECT_NOT_FOUND');
      const reader = await caller(['read'], true);
      assert.equal((await req(reader, 'GET', `/api/materials.php?element_type=commande&fk_element=${order.id}`)).statusCode, 200);
      assertError(await req(reader, 'POST', '/api/materials.php', { element_type: 'commande', fk_element: order.id, label: 'x', qty: 1 }), 403, 'AUTH_RIGHT_MISSING');
      const writer = await caller(['read', 'write'], true);
      assertError(await req(writer, 'DELETE', `/api/materials.php?id=${line.id}`), 403, 'AUTH_RIGHT_MISSING');
      assertError(await req(null, 'GET', `/api/materials.php?element_type=commande&fk_element=${order.id}`), 401, 'AUTH_TOKEN_MISSING');
      const foreign = await ctx.make.order({ author: me.id, entity: 2 });
      assertError(await req(me, 'GET', `/api/materials.php?element_type=commande&fk_element=${foreign.id}`), 404, 'ORDER_NOT_FOUND');
      assert.equal((await req(me, 'GET', `/api/materials.php?element_type=commande&fk_element=${order.id}`)).json().total, 1);
      const gone = await req(me, 'DELETE', `/api/materials.php?id=${line.id}`);
      assert.equal(gone.statusCode, 200, gone.body);
      assert.deepEqual(gone.json(), { id: line.id, deleted: true });
      assertError(await req(me, 'DELETE', `/api/materials.php?id=${line.id}`), 404, 'MATERIAL_NOT_FOUND');
      assert.equal((await req(me, 'GET', `/api/materials.php?element_type=commande&fk_element=${order.id}`)).json().total, 0);
    });
  });
}
