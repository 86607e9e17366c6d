/**
 * Parts out of the van when a report is finalized, on every database: each product line leaves the
 * van of the technician who entered it by a stock movement written as Dolibarr 22's own PHP writes
 * it (compared column by column with test/fixtures/dolibarr22/stock-movement.json), exactly once
 * (a second report, a retried finalize and two at once take nothing twice), refused only where
 * Dolibarr refuses stock below zero; free text, services, lines without a van and lines a Dolibarr
 * rule takes itself are settled without a movement and the agenda says why. A line out of the van
 * is not deleted.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { assertError } from '../helpers/assertions.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { type Caller, testClient } from '../helpers/client.js';
import { testDialects } from '../helpers/databases.js';
import { comparable } from '../helpers/dolibarr-rows.js';
import { createColumnFitter } from '../../src/dolibarr/charset.js';
import { createConstRepository } from '../../src/dolibarr/const.repository.js';
import { createVanStock } from '../../src/modules/stock/van-stock.js';
import { TEST_INSTANCE_ID } from '../helpers/build-app.js';

/** Dolibarr's ids and times, set or not. */
const STOCK_TIMES = ['rowid', 'tms', 'datem', 'datec'];

/** What Dolibarr 22.0.4's MouvementStock::livraison wrote (stock-movement.php). */
const DOLIBARR = JSON.parse(readFileSync(new URL('../fixtures/dolibarr22/stock-movement.json', import.meta.url), 'utf8')) as {
  ids: Record<string, string | number>;
  stock_mouvement: Array<Record<string, string | null>>;
  product_stock: Array<Record<string, string | null>>;
  product: Array<Record<string, string | null>>;
  product_lot: Array<Record<string, string | null>>;
  product_batch: Array<Record<string, string | null>>;
};

for (const dialect of testDialects()) {
  describe(`parts out of the van at finalize [${dialect}]`, () => {
    let ctx: TestContext;
    let tech: Caller;
    let office: Caller;
    const made = {} as Record<'seal' | 'pipe' | 'pump' | 'hour', { id: number; ref: string }>;
    let van: number;
    before(async () => {
      ctx = await createTestContext(dialect);
      tech = await caller();
      office = await caller();
      const p = ctx.make.product;
      made.seal = await p({ ref: 'DICHT', label: 'Dichtungssatz Brenner', price: 12.5, unit: 'SET' });
      made.pipe = await p({ ref: 'CU15', label: 'Kupferrohr 15 mm', price: 8.4, unit: 'M' });
      made.pump = await p({ ref: 'PUMPE', label: 'Umwälzpumpe', price: 189, unit: 'P', batch: 2 });
      made.hour = await p({ ref: 'STD', label: 'Arbeitsstunde', price: 65, unit: 'H', service: true });
      van = await ctx.make.van({
        user: tech.id,
        stock: [
          [made.seal.id, 6],
          [made.pipe.id, 12.5],
          [
            made.pump.id,
            2,
            [
              ['SN-1', 1],
              ['SN-2', 1],
            ],
          ],
        ],
      });
    });
    after(async () => ctx?.close());

    const { caller, api, json, newReport, addPage } = testClient(() => ctx);
    const db = () => ctx.handle.db;

    async function line(who: Caller, order: number, body: Record<string, unknown>) {
      return json<{ id: number; fk_stock_mouvement: number | null }>(
        'POST',
        '/api/materials.php',
        who,
        { element_type: 'commande', fk_element: order, ...body },
        { status: 201 },
      );
    }
    async function reportOn(order: number, who: Caller = tech) {
      const report = await newReport<{ id: number; ref: string }>(who, order);
      await addPage(who, report.id, { title: 'Wartung', note: 'Brenner gereinigt' });
      return report;
    }
    const finalize = (id: number, who: Caller = tech) => api('POST', `/api/reports.php?action=finalize&id=${id}`, who);
    const stockOf = async (product: number) =>
      (
        await db()
          .selectFrom('product_stock')
          .select('reel')
          .where('fk_product', '=', product)
          .where('fk_entrepot', '=', van)
          .executeTakeFirst()
      )?.reel ?? null;
    const movementsOf = (order: number) =>
      db()
        .selectFrom('stock_mouvement')
        .selectAll()
        .where('fk_origin', '=', order)
        .where('origintype', '=', 'commande')
        .orderBy('rowid')
        .execute();
    const settled = async (order: number) =>
      (
        await db()
          .selectFrom('bericht_material')
          .select(['label', 'fk_stock_mouvement'])
          .where('element_type', '=', 'commande')
          .where('fk_element', '=', order)
          .orderBy('rowid')
          .execute()
      ).map((r) => [r.label, r.fk_stock_mouvement === null ? null : Number(r.fk_stock_mouvement) > 0 ? 'moved' : 0]);
    const agendaNote = async (order: number) =>
      (
        await db()
          .selectFrom('actioncomm')
          .select('note')
          .where('fk_element', '=', order)
          .where('code', '=', 'AC_BERICHT_VALIDATE')
          .orderBy('id', 'desc')
          .executeTakeFirstOrThrow()
      ).note ?? '';

    test("the van's parts leave it once, as Dolibarr's rows; the rest is settled and named", async () => {
      const order = await ctx.make.order({ author: office.id, valid: tech.id });
      await line(tech, order.id, { label: 'Dichtungssatz Brenner', qty: 2, fk_product: made.seal.id });
      await line(tech, order.id, { label: 'Kupferrohr 15 mm', qty: 2.5, fk_product: made.pipe.id });
      await line(tech, order.id, { label: 'Umwälzpumpe', qty: 1, fk_product: made.pump.id, batch: 'SN-1' });
      await line(tech, order.id, { label: 'Arbeitsstunde', qty: 2.25, fk_product: made.hour.id });
      const free = await line(tech, order.id, { label: 'Kleinteile', qty: 1, unit: 'Stk' });
      const report = await reportOn(order.id);
      // Finalized by the office: the parts leave the van of the technician who entered them.
      const res = await finalize(report.id, office);
      assert.equal(res.statusCode, 200, res.body);

      assert.deepEqual(await settled(order.id), [
        ['Dichtungssatz Brenner', 'moved'],
        ['Kupferrohr 15 mm', 'moved'],
        ['Umwälzpumpe', 'moved'],
        ['Arbeitsstunde', 0],
        ['Kleinteile', 0],
      ]);
      const moves = await movementsOf(order.id);
      assert.equal(moves.length, 3);
      // Column by column against what Dolibarr's livraison wrote for order 42 (its rows 3 and 6: a product, a serial number).
      const names = {
        fk_product: { [made.seal.id]: 'seal', [made.pump.id]: 'serial', [DOLIBARR.ids.seal!]: 'seal', [DOLIBARR.ids.serial!]: 'serial' },
        fk_entrepot: { [van]: 'van', [DOLIBARR.ids.warehouse!]: 'van' },
        fk_user_author: { [office.id]: 'user', [DOLIBARR.ids.user!]: 'user' },
        fk_origin: { [order.id]: 'order', 42: 'order' },
        label: {
          [`Bericht ${report.ref}: Dichtungssatz Brenner`]: 'label',
          [`Bericht ${report.ref}: Umwälzpumpe`]: 'label',
          'Bericht BR-FX: Material': 'label',
        },
      };
      const theirs = DOLIBARR.stock_mouvement.filter((m) => m.type_mouvement === '2');
      assert.deepEqual(
        comparable(moves[0]!, names, STOCK_TIMES),
        comparable(theirs.find((m) => m.fk_product === String(DOLIBARR.ids.seal))!, names, STOCK_TIMES),
      );
      const serialTheirs = { ...theirs.find((m) => m.fk_product === String(DOLIBARR.ids.serial))!, batch: 'SN-1' };
      assert.deepEqual(comparable(moves[2]!, names, STOCK_TIMES), comparable(serialTheirs, names, STOCK_TIMES));
      assert.equal(Number(moves[1]!.value), -2.5);

      // The van's stock, the lot's row, the product's total; the average price as it was.
      assert.equal(Number(await stockOf(made.seal.id)), 4);
      assert.equal(Number(await stockOf(made.pipe.id)), 10);
      assert.equal(Number(await stockOf(made.pump.id)), 1);
      const lots = await db()
        .selectFrom('product_batch as b')
        .innerJoin('product_stock as s', 's.rowid', 'b.fk_product_stock')
        .select(['b.batch', 'b.qty'])
        .where('s.fk_product', '=', made.pump.id)
        .execute();
      // SN-1's row went at 0, as Dolibarr deletes it.
      assert.deepEqual(
        lots.map((l) => [l.batch, Number(l.qty)]),
        [['SN-2', 1]],
      );
      const seal = await db().selectFrom('product').select(['stock', 'pmp']).where('rowid', '=', made.seal.id).executeTakeFirstOrThrow();
      assert.equal(Number(seal.stock), 4);
      assert.equal(Number(seal.pmp), 0);

      // The material list says which lines are out of the van; the agenda says what and why not.
      const listed = await json<{ items: Array<{ id: number; label: string; fk_stock_mouvement: number | null }> }>(
        'GET',
        `/api/materials.php?element_type=commande&fk_element=${order.id}`,
        tech,
      );
      assert.equal(listed.items[0]!.fk_stock_mouvement, Number(moves[0]!.rowid));
      assert.equal(listed.items[4]!.fk_stock_mouvement, 0);
      const note = await agendaNote(order.id);
      assert.match(note, /Aus Fahrzeug \d+ gebucht: 2 set DICHT Dichtungssatz Brenner/);
      assert.match(note, /Aus Fahrzeug \d+ gebucht: 2,5 m CU15 Kupferrohr 15 mm/);
      assert.match(note, /gebucht: 1 p PUMPE Umwälzpumpe \(Charge\/Serie SN-1\)/);
      assert.match(note, /Nicht aus dem Fahrzeug gebucht: Arbeitsstunde \(Dienstleistung\)/);
      assert.match(note, /Nicht aus dem Fahrzeug gebucht: Kleinteile \(Freitext\)/);

      // A line out of the van stays; so does a settled line without a movement: the signed report shows
      // it, and a draft invoice made later from the report bills it. A line no report took yet may go.
      assertError(await api('DELETE', `/api/materials.php?id=${listed.items[0]!.id}`, tech), 409, 'MATERIAL_TAKEN');
      assertError(await api('DELETE', `/api/materials.php?id=${free.id}`, tech), 409, 'MATERIAL_REPORTED');
      const later = await line(tech, order.id, { label: 'Schrauben', qty: 4 });
      assert.equal((await api('DELETE', `/api/materials.php?id=${later.id}`, tech)).statusCode, 200);

      // Never twice: a new version finalized, and a second report on the order, take only what is new.
      const again = await json<{ id: number }>('POST', `/api/reports.php?action=new_version&id=${report.id}`, tech, undefined, {
        status: 201,
      });
      assert.equal((await finalize(again.id)).statusCode, 200);
      assert.equal((await movementsOf(order.id)).length, 3);
      await line(tech, order.id, { label: 'Dichtungssatz Brenner', qty: 1, fk_product: made.seal.id });
      const second = await reportOn(order.id);
      assert.equal((await finalize(second.id)).statusCode, 200);
      assert.equal((await movementsOf(order.id)).length, 4);
      assert.equal(Number(await stockOf(made.seal.id)), 3);
    });

    test('two reports of one order finalized at once take each line once', async () => {
      const order = await ctx.make.order({ author: office.id, valid: tech.id });
      await line(tech, order.id, { label: 'Kupferrohr', qty: 1, fk_product: made.pipe.id });
      await line(tech, order.id, { label: 'Dichtungssatz', qty: 1, fk_product: made.seal.id });
      const before = [Number(await stockOf(made.pipe.id)), Number(await stockOf(made.seal.id))];
      const [a, b] = [await reportOn(order.id), await reportOn(order.id)];
      const results = await Promise.all([finalize(a.id), finalize(b.id)]);
      for (const r of results) assert.ok([200, 409, 503].includes(r.statusCode), r.body);
      assert.ok(results.some((r) => r.statusCode === 200));
      assert.equal((await movementsOf(order.id)).length, 2);
      assert.deepEqual([Number(await stockOf(made.pipe.id)), Number(await stockOf(made.seal.id))], [before[0]! - 1, before[1]! - 1]);
    });

    test('a printed line another report settled, or deleted, after the PDF was made refuses the settling (render again): nothing is written', async () => {
      const order = await ctx.make.order({ author: office.id, valid: tech.id });
      const seal = await line(tech, order.id, { label: 'Dichtungssatz', qty: 1, fk_product: made.seal.id });
      const free = await line(tech, order.id, { label: 'Kleinteile', qty: 1 });
      const first = await reportOn(order.id);
      const second = await reportOn(order.id);
      // The first report printed both lines; the second was finalized meanwhile and settled them.
      assert.equal((await finalize(second.id)).statusCode, 200);
      const stock = createVanStock({
        dialect: ctx.handle.dialect,
        entity: ctx.config.entity,
        timeZone: ctx.config.timeZone,
        consts: createConstRepository(db(), { entity: ctx.config.entity, instanceUniqueId: TEST_INSTANCE_ID }),
        fitter: createColumnFitter(db(), ctx.handle.dialect, ctx.handle.prefix),
        userHasWarehouse: true,
        productHasStockable: false,
      });
      const settings = await stock.settings();
      const moves = (await movementsOf(order.id)).length;
      const settle = (printed: number[]) =>
        db()
          .transaction()
          .execute((trx) =>
            stock.settle(trx, settings, { id: first.id, ref: first.ref, element_type: 'commande', fk_element: order.id }, tech.id, printed),
          );
      await assert.rejects(settle([seal.id, free.id]), (e: { code?: string }) => e.code === 'CONFLICT');
      await assert.rejects(settle([seal.id + 100_000]), (e: { code?: string }) => e.code === 'CONFLICT');
      assert.equal((await movementsOf(order.id)).length, moves);
      const by = await db().selectFrom('bericht_material').select('fk_bericht').where('rowid', 'in', [seal.id, free.id]).execute();
      assert.deepEqual(
        by.map((r) => Number(r.fk_bericht)),
        [second.id, second.id],
      );
    });

    test('refused only where Dolibarr refuses stock below zero: nothing is written, and the report stays a draft', async () => {
      const order = await ctx.make.order({ author: office.id, valid: tech.id });
      await line(tech, order.id, { label: 'Kupferrohr', qty: 1, fk_product: made.pipe.id });
      await line(tech, order.id, { label: 'Dichtungssatz', qty: 50, fk_product: made.seal.id });
      await line(tech, order.id, { label: 'Umwälzpumpe', qty: 1, fk_product: made.pump.id, batch: 'SN-9' });
      const report = await reportOn(order.id);
      const pipeBefore = Number(await stockOf(made.pipe.id));
      await ctx.make.setConst('STOCK_DISALLOW_NEGATIVE_TRANSFER', '1');
      try {
        const body = assertError(await finalize(report.id), 409, 'STOCK_INSUFFICIENT');
        const short = (body.details as { short: Array<Record<string, unknown>> }).short;
        assert.deepEqual(
          short.map((s) => [s.ref, s.batch, s.wanted, s.held]),
          [
            ['DICHT', null, 50, Number(await stockOf(made.seal.id))],
            ['PUMPE', 'SN-9', 1, 0],
          ],
        );
        assert.deepEqual(await settled(order.id), [
          ['Kupferrohr', null],
          ['Dichtungssatz', null],
          ['Umwälzpumpe', null],
        ]);
        assert.equal((await movementsOf(order.id)).length, 0);
        assert.equal(Number(await stockOf(made.pipe.id)), pipeBefore);
        const lot = await db().selectFrom('product_lot').select('rowid').where('batch', '=', 'SN-9').executeTakeFirst();
        assert.equal(lot, undefined);
        const draft = await json<{ status: string }>('GET', `/api/reports.php?id=${report.id}`, tech);
        assert.equal(draft.status, 'draft');
      } finally {
        await ctx.make.setConst('STOCK_DISALLOW_NEGATIVE_TRANSFER', '0');
      }
      // Without the rule the van goes below zero, as in Dolibarr, and an unknown serial number gets its lot.
      assert.equal((await finalize(report.id)).statusCode, 200);
      assert.equal((await movementsOf(order.id)).length, 3);
      assert.ok(Number(await stockOf(made.seal.id)) < 0);
      const lot = await db().selectFrom('product_lot').selectAll().where('batch', '=', 'SN-9').executeTakeFirstOrThrow();
      const theirs = DOLIBARR.product_lot.find((l) => l.batch === 'L-NEU')!;
      const names = { fk_product: { [made.pump.id]: 'pump', [DOLIBARR.ids.pump!]: 'pump' }, batch: { 'SN-9': 'lot', 'L-NEU': 'lot' } };
      const ours = comparable(lot, names, STOCK_TIMES);
      assert.deepEqual(Object.fromEntries(Object.entries(comparable(theirs, names, STOCK_TIMES)).filter(([k]) => k in ours)), ours);
      const batchRow = await db().selectFrom('product_batch').select('qty').where('batch', '=', 'SN-9').executeTakeFirstOrThrow();
      assert.equal(Number(batchRow.qty), -1);
    });

    test("left to Dolibarr's rule, to the setting, and without a van: settled without a movement, and said", async () => {
      const noVan = await caller();
      for (const [name, reason] of [
        ['STOCK_CALCULATE_ON_BILL', /bucht Dolibarr bei der Freigabe der Rechnung/],
        ['STOCK_CALCULATE_ON_VALIDATE_ORDER', /bucht Dolibarr mit dem Auftrag/],
        ['BERICHT_STOCK_FROM_VAN', /abgeschaltet/],
      ] as const) {
        const order = await ctx.make.order({ author: office.id, valid: tech.id });
        // On the order: what the order's own rule takes.
        await db()
          .insertInto('commandedet')
          .values({
            fk_commande: order.id,
            fk_product: made.seal.id,
            description: '',
            tva_tx: 19,
            qty: 1,
            subprice: 12.5,
            total_ht: 12.5,
            total_tva: 2.38,
            total_ttc: 14.88,
            fk_unit: null,
          })
          .execute();
        await line(tech, order.id, { label: 'Dichtungssatz', qty: 1, fk_product: made.seal.id });
        const report = await reportOn(order.id);
        await ctx.make.setConst(name, name === 'BERICHT_STOCK_FROM_VAN' ? '0' : '1');
        try {
          assert.equal((await finalize(report.id)).statusCode, 200);
        } finally {
          await ctx.make.setConst(name, name === 'BERICHT_STOCK_FROM_VAN' ? '1' : '0');
        }
        assert.deepEqual(await settled(order.id), [['Dichtungssatz', 0]], name);
        assert.equal((await movementsOf(order.id)).length, 0);
        assert.match(await agendaNote(order.id), reason);
      }
      // An order's rule takes what is on the order; a part that is not leaves the van now.
      {
        const order = await ctx.make.order({ author: office.id, valid: tech.id });
        await db()
          .insertInto('commandedet')
          .values({
            fk_commande: order.id,
            fk_product: made.seal.id,
            description: '',
            tva_tx: 19,
            qty: 1,
            subprice: 12.5,
            total_ht: 12.5,
            total_tva: 2.38,
            total_ttc: 14.88,
            fk_unit: null,
          })
          .execute();
        await line(tech, order.id, { label: 'Dichtungssatz', qty: 1, fk_product: made.seal.id });
        await line(tech, order.id, { label: 'Kupferrohr', qty: 1, fk_product: made.pipe.id });
        const report = await reportOn(order.id);
        await ctx.make.setConst('STOCK_CALCULATE_ON_SHIPMENT', '1');
        try {
          assert.equal((await finalize(report.id)).statusCode, 200);
        } finally {
          await ctx.make.setConst('STOCK_CALCULATE_ON_SHIPMENT', '0');
        }
        assert.deepEqual(await settled(order.id), [
          ['Dichtungssatz', 0],
          ['Kupferrohr', 'moved'],
        ]);
        assert.match(await agendaNote(order.id), /Dichtungssatz \(bucht Dolibarr mit der Lieferung/);
      }
      const order = await ctx.make.order({ author: noVan.id });
      await line(noVan, order.id, { label: 'Dichtungssatz', qty: 1, fk_product: made.seal.id });
      assert.equal((await finalize((await reportOn(order.id, noVan)).id, noVan)).statusCode, 200);
      assert.deepEqual(await settled(order.id), [['Dichtungssatz', 0]]);
      assert.match(await agendaNote(order.id), /kein Fahrzeuglager beim Techniker/);
    });
  });
}
