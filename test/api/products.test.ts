/**
 * The catalogue (GET /api/products.php) and material lines taken from it, on every database: only
 * what is on sale, searched by ref, label or barcode, found by a scanned barcode, with its unit,
 * price, VAT and the stock of the caller's van; a copy on the phone follows changes since a mark
 * (what went off sale among them) and drops what is gone by `action=ids`. A line of a product
 * keeps its product, unit and lot or serial number; a product not on sale, of another entity or
 * missing is 404 PRODUCT_NOT_FOUND. External users have no catalogue; wrong input is 400.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { sql } from 'kysely';
import { GZIP_FROM_BYTES } from '../../src/modules/common/gzip-large.js';
import { markMinus } from '../../src/modules/products/products.service.js';
import { assertError } from '../helpers/assertions.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { type Caller, testClient } from '../helpers/client.js';
import { testDialects } from '../helpers/databases.js';

interface Listed {
  items: Array<{
    id: number;
    ref: string;
    label: string;
    type: string;
    barcode: string | null;
    fk_unit: number | null;
    unit: string | null;
    price: number;
    vat_rate: number | null;
    needs_batch: boolean;
    on_sale: boolean;
    van_stock: number | null;
  }>;
  total: number;
  sync_mark: string;
}

for (const dialect of testDialects()) {
  describe(`the catalogue [${dialect}]`, () => {
    let ctx: TestContext;
    let tech: Caller;
    let office: Caller;
    /** This run's products start with this, so that the other tests' products do not count. */
    const tag = `K${Date.now().toString(36)}`;
    const made = {} as Record<'seal' | 'pipe' | 'pump' | 'hour' | 'old' | 'foreign', { id: number; ref: string }>;
    let vanId: number;
    before(async () => {
      ctx = await createTestContext(dialect);
      tech = await caller();
      office = await caller();
      const p = ctx.make.product;
      made.seal = await p({ ref: `${tag}-DICHT`, label: 'Dichtungssatz Brenner', price: 12.5, unit: 'SET', barcode: '4006381333931' });
      made.pipe = await p({ ref: `${tag}-CU15`, label: 'Kupferrohr 15 mm', price: 8.4, unit: 'M', barcode: `${tag}-CODE128-CU15` });
      made.pump = await p({ ref: `${tag}-PUMPE`, label: 'Umwälzpumpe', price: 189, unit: 'P', batch: 2 });
      made.hour = await p({ ref: `${tag}-STD`, label: 'Arbeitsstunde Techniker', price: 65, unit: 'H', service: true });
      made.old = await p({ ref: `${tag}-ALT`, label: 'Dichtung alt', price: 3, tosell: false });
      made.foreign = await p({ ref: `${tag}-FREMD`, label: 'Dichtung Mandant 2', price: 3, entity: 2 });
      vanId = await ctx.make.van({
        user: tech.id,
        stock: [
          [made.seal.id, 6],
          [made.pipe.id, 12.5],
        ],
      });
      // Stock elsewhere is not the van's.
      await ctx.make.van({ user: office.id, stock: [[made.pump.id, 3]] });
    });
    after(async () => ctx?.close());

    const { caller, api, json } = testClient(() => ctx);
    const list = (who: Caller, query: string) => json<Listed>('GET', `/api/products.php?${query}`, who);

    test('on sale only, by ref, with unit, price, VAT, batch and the stock of the van', async () => {
      const res = await list(tech, `q=${tag}`);
      assert.deepEqual(
        res.items.map((i) => i.ref),
        [`${tag}-CU15`, `${tag}-DICHT`, `${tag}-PUMPE`, `${tag}-STD`],
      );
      assert.equal(res.total, 4);
      assert.match(res.sync_mark, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      const byRef = new Map(res.items.map((i) => [i.ref, i]));
      const seal = byRef.get(`${tag}-DICHT`)!;
      assert.deepEqual(
        { ...seal, fk_unit: typeof seal.fk_unit },
        {
          id: made.seal.id,
          ref: `${tag}-DICHT`,
          label: 'Dichtungssatz Brenner',
          type: 'product',
          barcode: '4006381333931',
          fk_unit: 'number',
          unit: 'set',
          price: 12.5,
          vat_rate: 19,
          needs_batch: false,
          on_sale: true,
          van_stock: 6,
        },
      );
      assert.equal(byRef.get(`${tag}-CU15`)!.van_stock, 12.5);
      assert.equal(byRef.get(`${tag}-CU15`)!.unit, 'm');
      assert.equal(byRef.get(`${tag}-PUMPE`)!.van_stock, 0, 'in another van only: none in his');
      assert.equal(byRef.get(`${tag}-PUMPE`)!.needs_batch, true);
      const hour = byRef.get(`${tag}-STD`)!;
      assert.deepEqual([hour.type, hour.unit, hour.van_stock, hour.needs_batch], ['service', 'h', null, false]);
      // Without a van: the stock is unknown, not 0.
      const vanless = await caller();
      assert.ok((await list(vanless, `q=${tag}`)).items.every((i) => i.van_stock === null));
    });

    test('searched by label and barcode, found by a scanned barcode or id', async () => {
      assert.deepEqual(
        (await list(tech, `q=${encodeURIComponent(`${tag}`)}&limit=2&offset=1`)).items.map((i) => i.ref),
        [`${tag}-DICHT`, `${tag}-PUMPE`],
      );
      const pumpe = await list(tech, `q=${encodeURIComponent('umwälzpumpe')}`);
      assert.ok(pumpe.items.some((i) => i.id === made.pump.id));
      assert.deepEqual(
        (await list(tech, 'barcode=4006381333931')).items.map((i) => i.id),
        [made.seal.id],
      );
      assert.deepEqual(
        (await list(tech, `barcode=${encodeURIComponent(`${tag}-CODE128-CU15`)}`)).items.map((i) => i.id),
        [made.pipe.id],
      );
      assert.deepEqual(
        (await list(tech, `q=${tag}-CODE128`)).items.map((i) => i.id),
        [made.pipe.id],
      );
      assert.equal((await list(tech, 'barcode=0000000000000')).total, 0);
      assert.deepEqual(
        (await list(tech, `id=${made.hour.id}`)).items.map((i) => i.ref),
        [`${tag}-STD`],
      );
      // Not on sale, another entity: not there.
      assert.equal((await list(tech, `id=${made.old.id}`)).total, 0);
      assert.equal((await list(tech, `id=${made.foreign.id}`)).total, 0);
      assert.equal((await list(tech, `q=${tag}-FREMD`)).total, 0);
      // % and _ are literal.
      assert.equal((await list(tech, `q=${encodeURIComponent(`${tag}%`)}`)).total, 0);
    });

    test('a copy follows changes since its mark, what went off sale among them, and drops what is gone', async () => {
      const first = await list(tech, `q=${tag}`);
      // Everything of this run older than the overlap before the mark…
      const longAgo = markMinus(first.sync_mark, 7200);
      await ctx.handle.db.updateTable('product').set({ tms: longAgo }).where('ref', 'like', `${tag}%`).execute();
      await ctx.handle.db.updateTable('product_stock').set({ tms: longAgo }).execute();
      const quiet = await list(tech, `changed_since=${encodeURIComponent(first.sync_mark)}&q=${tag}`);
      assert.equal(quiet.total, 0, 'nothing changed since');
      // …then one goes off sale and one is added (the database's clock, as Dolibarr's tms).
      await ctx.handle.db
        .updateTable('product')
        .set({ tosell: 0, tms: sql<string>`current_timestamp` })
        .where('rowid', '=', made.pipe.id)
        .execute();
      const added = await ctx.make.product({ ref: `${tag}-NEU`, label: 'Entlüftungsventil', price: 4.2, unit: 'P' });
      const changed = await list(tech, `changed_since=${encodeURIComponent(first.sync_mark)}&q=${tag}`);
      assert.deepEqual(changed.items.map((i) => [i.ref, i.on_sale]).sort(), [
        [`${tag}-CU15`, false],
        [`${tag}-NEU`, true],
      ]);
      assert.ok(changed.sync_mark >= first.sync_mark);
      const ids = await json<{ ids: number[]; sync_mark: string }>('GET', '/api/products.php?action=ids', tech);
      assert.ok(ids.ids.includes(added.id) && ids.ids.includes(made.seal.id));
      assert.ok(!ids.ids.includes(made.pipe.id) && !ids.ids.includes(made.old.id) && !ids.ids.includes(made.foreign.id));
      assert.deepEqual(
        ids.ids,
        [...ids.ids].sort((a, b) => a - b),
      );
      // A stock movement in the van (the product's row untouched) reaches the copy too.
      const second = await list(tech, `q=${tag}`);
      await ctx.handle.db
        .updateTable('product')
        .set({ tms: markMinus(second.sync_mark, 7200) })
        .where('ref', 'like', `${tag}%`)
        .execute();
      await ctx.handle.db
        .updateTable('product_stock')
        .set({ tms: markMinus(second.sync_mark, 7200) })
        .execute();
      await ctx.handle.db
        .updateTable('product_stock')
        .set({ reel: 5, tms: sql<string>`current_timestamp` })
        .where('fk_product', '=', made.seal.id)
        .where('fk_entrepot', '=', vanId)
        .execute();
      const moved = await list(tech, `changed_since=${encodeURIComponent(second.sync_mark)}&q=${tag}`);
      assert.deepEqual(
        moved.items.map((i) => [i.ref, i.van_stock]),
        [[`${tag}-DICHT`, 5]],
      );
      await ctx.handle.db.updateTable('product').set({ tosell: 1 }).where('rowid', '=', made.pipe.id).execute();
    });

    test('a large answer is sent gzip-compressed to a client that accepts it, and plain to one that does not', async () => {
      // Refs of their own: the other tests count what `q=${tag}` finds.
      const more = `G${Date.now().toString(36)}`;
      for (let i = 0; i < 60; i++)
        await ctx.make.product({
          ref: `${more}-${String(i).padStart(3, '0')}`,
          label: `Pressfitting Winkel ${i} mm`,
          price: 3.2,
          unit: 'P',
        });
      const { token } = tech;
      const ask = (encoding?: string) =>
        ctx.app.inject({
          url: `/api/products.php?q=${more}&limit=100`,
          headers: { authorization: `Bearer ${token}`, ...(encoding === undefined ? {} : { 'accept-encoding': encoding }) },
        });
      const plain = await ask();
      assert.equal(plain.statusCode, 200, plain.body);
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.match(String(plain.headers.vary), /Accept-Encoding/);
      const answer = plain.json() as Listed;
      assert.equal(answer.items.length, 60);
      assert.ok(plain.rawPayload.length >= GZIP_FROM_BYTES, `${plain.rawPayload.length} bytes: large enough to be compressed`);
      for (const encoding of ['gzip', 'br, gzip;q=0.8', 'deflate, *']) {
        const packed = await ask(encoding);
        assert.equal(packed.statusCode, 200);
        assert.equal(packed.headers['content-encoding'], 'gzip', encoding);
        assert.equal(Number(packed.headers['content-length']), packed.rawPayload.length);
        assert.ok(
          packed.rawPayload.length < plain.rawPayload.length / 4,
          `${packed.rawPayload.length} of ${plain.rawPayload.length} bytes`,
        );
        const unpacked = JSON.parse(gunzipSync(packed.rawPayload).toString('utf8')) as Listed;
        assert.deepEqual({ ...unpacked, sync_mark: '' }, { ...answer, sync_mark: '' });
      }
      for (const encoding of ['br', 'gzip;q=0', 'identity', '*;q=0'])
        assert.equal((await ask(encoding)).headers['content-encoding'], undefined, encoding);
      // A small answer is not worth it.
      const one = await ctx.app.inject({
        url: `/api/products.php?id=${made.seal.id}`,
        headers: { authorization: `Bearer ${token}`, 'accept-encoding': 'gzip' },
      });
      assert.equal(one.statusCode, 200);
      assert.equal(one.headers['content-encoding'], undefined);
    });

    test('a closed van is none; a product whose stock is not kept has none in the van', async () => {
      const driver = await caller();
      const closed = await ctx.make.van({ user: driver.id, stock: [[made.seal.id, 2]] });
      assert.equal((await list(driver, `id=${made.seal.id}`)).items[0]!.van_stock, 2);
      await ctx.handle.db.updateTable('entrepot').set({ statut: 0 }).where('rowid', '=', closed).execute();
      assert.equal((await list(driver, `id=${made.seal.id}`)).items[0]!.van_stock, null);
      const kit = await ctx.make.product({ ref: `${tag}-KIT`, label: 'Montagesatz (ohne Lager)', price: 20 });
      await ctx.handle.db.updateTable('product').set({ stockable_product: 0 }).where('rowid', '=', kit.id).execute();
      assert.equal((await list(tech, `id=${kit.id}`)).items[0]!.van_stock, null);
      await ctx.handle.db.updateTable('product').set({ tosell: 0 }).where('rowid', '=', kit.id).execute();
    });

    test('external users have no catalogue; no login is 401; wrong input is 400 with the field named', async () => {
      const customer = await ctx.make.thirdParty();
      const external = await caller();
      await ctx.handle.db.updateTable('user').set({ fk_soc: customer.id }).where('rowid', '=', external.id).execute();
      assertError(await api('GET', '/api/products.php', external), 403, 'AUTH_RIGHT_MISSING');
      assertError(await api('GET', '/api/products.php?action=ids', external), 403, 'AUTH_RIGHT_MISSING');
      assertError(await api('GET', '/api/products.php', null), 401, 'AUTH_TOKEN_MISSING');
      for (const [query, field] of [
        ['limit=abc', 'limit'],
        ['limit=501', 'limit'],
        ['offset=-1', 'offset'],
        ['id=0', 'id'],
        ['id=x', 'id'],
        ['changed_since=2026-11-29', 'changed_since'],
        ['changed_since=yesterday', 'changed_since'],
        [`changed_since=${encodeURIComponent('2026-13-01 00:00:00')}`, 'changed_since'],
        [`changed_since=${encodeURIComponent('2026-11-29 23:60:00')}`, 'changed_since'],
        [`changed_since=${encodeURIComponent('2026-02-30 10:00:00')}`, 'changed_since'],
        [`changed_since=${encodeURIComponent('0000-01-01 00:00:30')}`, 'changed_since'],
        ['barcode=%20%20', 'barcode'],
        [`q=${'x'.repeat(101)}`, 'q'],
        [`barcode=${'7'.repeat(181)}`, 'barcode'],
        ['barcode=', 'barcode'],
      ] as const) {
        const res = await api('GET', `/api/products.php?${query}`, tech);
        assertError(res, 400, 'VALIDATION_FAILED');
        assert.match(res.body, new RegExp(field), query);
      }
      assertError(await api('GET', '/api/products.php?action=delete', tech), 400, 'ACTION_UNKNOWN');
    });

    test('a material line of a product keeps its product, unit and lot or serial number', async () => {
      const order = await ctx.make.order({ author: tech.id });
      const add = (body: Record<string, unknown>) =>
        api('POST', '/api/materials.php', tech, { element_type: 'commande', fk_element: order.id, qty: 2, ...body });
      const seal = await add({ fk_product: made.seal.id, label: 'Dichtungssatz Brenner' });
      assert.equal(seal.statusCode, 201, seal.body);
      const line = seal.json();
      assert.equal(line.fk_product, made.seal.id);
      assert.equal(typeof line.fk_unit, 'number');
      assert.equal(line.unit, 'set', "the product's unit when none is given");
      assert.equal(line.batch, null);
      const row = await ctx.handle.db.selectFrom('bericht_material').selectAll().where('rowid', '=', line.id).executeTakeFirstOrThrow();
      assert.deepEqual(
        [Number(row.fk_product), row.fk_unit === null ? null : Number(row.fk_unit), row.batch],
        [made.seal.id, line.fk_unit, null],
      );
      // A serial-numbered product needs its number; nothing else takes one.
      assertError(await add({ fk_product: made.pump.id, label: 'Umwälzpumpe', qty: 1 }), 400, 'BATCH_REQUIRED');
      const pump = await add({ fk_product: made.pump.id, label: 'Umwälzpumpe', qty: 1, batch: ' SN-2026-0042 ' });
      assert.equal(pump.statusCode, 201, pump.body);
      assert.equal(pump.json().batch, 'SN-2026-0042');
      const two = await add({ fk_product: made.pump.id, label: 'Umwälzpumpe', qty: 2, batch: 'SN-1' });
      assertError(two, 400, 'VALIDATION_FAILED');
      assert.match(two.body, /body\.qty/, 'a serial number is one piece');
      const lot = await ctx.make.product({ ref: `${tag}-FROST`, label: 'Frostschutz', price: 4, unit: 'L', batch: 1 });
      const frost = await add({ fk_product: lot.id, label: 'Frostschutz', qty: 2.5, batch: 'L-2026-11' });
      assert.equal(frost.statusCode, 201, frost.body);
      assert.deepEqual([frost.json().batch, frost.json().unit], ['L-2026-11', 'L']);
      const wrongUnit = await add({ fk_product: made.pipe.id, label: 'Kupferrohr', unit: 'kg' });
      assertError(wrongUnit, 400, 'VALIDATION_FAILED');
      assert.match(wrongUnit.body, /body\.unit/);
      assert.equal((await add({ fk_product: made.pipe.id, label: 'Kupferrohr', unit: 'm', qty: 2.5 })).statusCode, 201);
      // A repeat whose first answer was lost gets it again, though the product went off sale meanwhile.
      const keyed = () =>
        api(
          'POST',
          '/api/materials.php',
          tech,
          { element_type: 'commande', fk_element: order.id, qty: 1, fk_product: lot.id, label: 'Frostschutz', batch: 'L-2' },
          { key: `${tag}-frost` },
        );
      const firstAnswer = await keyed();
      assert.equal(firstAnswer.statusCode, 201, firstAnswer.body);
      await ctx.handle.db.updateTable('product').set({ tosell: 0 }).where('rowid', '=', lot.id).execute();
      const again = await keyed();
      assert.equal(again.statusCode, 201, again.body);
      assert.equal(again.json().id, firstAnswer.json().id);
      const refused = await add({ fk_product: made.seal.id, label: 'Dichtungssatz', batch: 'L1' });
      assertError(refused, 400, 'VALIDATION_FAILED');
      assert.match(refused.body, /body\.batch/);
      assertError(await add({ label: 'Schrauben', batch: 'L1' }), 400, 'VALIDATION_FAILED');
      // Free text stays possible, and is marked by having no product.
      const free = await add({ label: 'Kleinmaterial', unit: 'Pauschale' });
      assert.equal(free.statusCode, 201, free.body);
      assert.deepEqual([free.json().fk_product, free.json().fk_unit, free.json().unit], [null, null, 'Pauschale']);
      // Not on sale, another entity's, missing: 404, and no line.
      const before = (await json('GET', `/api/materials.php?element_type=commande&fk_element=${order.id}`, tech)).total;
      for (const id of [made.old.id, made.foreign.id, 2_000_000_000])
        assertError(await add({ fk_product: id, label: 'x' }), 404, 'PRODUCT_NOT_FOUND');
      for (const wrong of ['1', 1.5, -1, 0, true]) assertError(await add({ fk_product: wrong, label: 'x' }), 400, 'VALIDATION_FAILED');
      assertError(await add({ fk_product: made.pump.id, label: 'x', batch: 'x'.repeat(129) }), 400, 'VALIDATION_FAILED');
      assert.equal((await json('GET', `/api/materials.php?element_type=commande&fk_element=${order.id}`, tech)).total, before);
      // An object of someone else's stays 404 before the product is even looked at.
      const foreignOrder = await ctx.make.order({ author: office.id });
      assertError(
        await api('POST', '/api/materials.php', tech, {
          element_type: 'commande',
          fk_element: foreignOrder.id,
          qty: 1,
          fk_product: made.seal.id,
          label: 'x',
        }),
        404,
        'ORDER_NOT_FOUND',
      );
      void vanId;
    });
  });
}
