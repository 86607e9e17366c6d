/**
 * The visit's draft invoice when its report is finalized, on every database: for a report on an
 * order, a draft customer invoice linked to the order and the intervention, compared column by
 * column with what Dolibarr 22's own PHP wrote for the same lines (test/fixtures/dolibarr22/
 * invoice.json): the labour as Dolibarr's time billing rounds it, a part on the order at the
 * order line's price and discount, a part at the customer's price level, a part without a price of
 * that level, free text at 0; Dolibarr's totals. A second report completes the draft; once the
 * clerk validated it the next visit makes a new one; BERICHT_INVOICE_FROM_REPORT 0 makes none.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { toDolibarrDateTime } from '../../src/dolibarr/time.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { type Caller, testClient } from '../helpers/client.js';
import { testDialects } from '../helpers/databases.js';
import { asTheirs, comparable } from '../helpers/dolibarr-rows.js';

const DOLIBARR = JSON.parse(readFileSync(new URL('../fixtures/dolibarr22/invoice.json', import.meta.url), 'utf8')) as {
  ids: Record<string, string | number>;
  facture: Array<Record<string, string | null>>;
  facturedet: Array<Record<string, string | null>>;
  element_element: Array<Record<string, string | null>>;
};

for (const dialect of testDialects()) {
  describe(`the visit's draft invoice [${dialect}]`, () => {
    let ctx: TestContext;
    let tech: Caller;
    let office: Caller;
    const made = {} as Record<'labour' | 'seal' | 'pipe' | 'nozzle', { id: number; ref: string }>;
    let customer: number;
    before(async () => {
      ctx = await createTestContext(dialect);
      tech = await caller();
      office = await caller();
      const p = ctx.make.product;
      made.labour = await p({ ref: 'STD', label: 'Arbeitsstunde Techniker', price: 65, service: true });
      made.seal = await p({ ref: 'DICHT', label: 'Dichtungssatz Brenner', price: 12.5 });
      made.pipe = await p({ ref: 'CU15', label: 'Kupferrohr 15 mm', price: 8.4 });
      made.nozzle = await p({ ref: 'DUESE', label: 'Brennerdüse', price: 9.8 });
      const db = ctx.handle.db;
      await db.updateTable('product').set({ duration: '1h' }).where('rowid', '=', made.labour.id).execute();
      // Prices per customer level (PRODUIT_MULTIPRICES): the pipe's and the labour's level 2; the nozzle has level 1 only.
      const level = (product: number, price_level: number, price: number) =>
        db
          .insertInto('product_price')
          .values({
            entity: 1,
            fk_product: product,
            date_price: toDolibarrDateTime(new Date(), ctx.config.timeZone),
            price_level,
            price,
            price_ttc: price * 1.19,
            tva_tx: 19,
          })
          .execute();
      await level(made.pipe.id, 1, 8.4);
      await level(made.pipe.id, 2, 7.5);
      await level(made.labour.id, 1, 65);
      await level(made.labour.id, 2, 65);
      await level(made.nozzle.id, 1, 9.8);
      await ctx.make.setConst('PRODUIT_MULTIPRICES', '1');
      await ctx.make.setConst('BERICHT_LABOUR_SERVICE', 'STD');
      customer = (await ctx.make.thirdParty()).id;
      await db.updateTable('societe').set({ price_level: 2, cond_reglement: 2, mode_reglement: 2 }).where('rowid', '=', customer).execute();
      await ctx.make.van({
        user: tech.id,
        stock: [
          [made.seal.id, 10],
          [made.pipe.id, 10],
          [made.nozzle.id, 10],
        ],
      });
    });
    after(async () => ctx?.close());

    const { caller, api, json, newReport, addPage, sign } = testClient(() => ctx);
    const db = () => ctx.handle.db;

    /** An order of the customer with the seal kit on it at 11.90 less 10 %. */
    async function order() {
      const o = await ctx.make.order({ author: office.id, valid: tech.id, customer, refClient: 'Auftrag 4711' });
      await db()
        .insertInto('commandedet')
        .values({
          fk_commande: o.id,
          fk_product: made.seal.id,
          description: 'Dichtungssatz Brenner',
          tva_tx: 19,
          qty: 1,
          remise_percent: 10,
          subprice: 11.9,
          total_ht: 10.71,
          total_tva: 2.03,
          total_ttc: 12.74,
          product_type: 0,
          rang: 1,
          fk_unit: null,
        })
        .execute();
      return o;
    }
    async function visit(orderId: number, options: { minutes: number; endedAgo: number; parts?: boolean }) {
      const element = { element_type: 'commande', fk_element: orderId };
      const arrival = Math.floor(Date.now() / 1000) - (options.minutes + options.endedAgo) * 60;
      await json('POST', '/api/times.php?action=arrive', tech, { ...element, at: arrival });
      await json('POST', '/api/times.php?action=leave', tech, { ...element, at: arrival + options.minutes * 60 });
      if (options.parts !== false) {
        for (const [product, qty] of [
          [made.seal, 2],
          [made.pipe, 2.5],
          [made.nozzle, 1],
        ] as const)
          await json(
            'POST',
            '/api/materials.php',
            tech,
            {
              ...element,
              label: product.ref === 'DICHT' ? 'Dichtungssatz Brenner' : product.ref === 'CU15' ? 'Kupferrohr 15 mm' : 'Brennerdüse',
              qty,
              fk_product: product.id,
            },
            { status: 201 },
          );
        // The technician's text with markup: escaped, since Dolibarr prints a text that looks like HTML as HTML.
        await json(
          'POST',
          '/api/materials.php',
          tech,
          { ...element, label: 'Kleinteile <img src=x onerror=alert(1)> & Dübel', qty: 1 },
          { status: 201 },
        );
      }
      const report = await newReport<{ id: number; ref: string }>(tech, orderId);
      await addPage(tech, report.id, { title: 'Wartung', note: 'Brenner gereinigt' });
      assert.equal((await sign(tech, report.id)).statusCode, 201);
      return report;
    }
    const finalize = (id: number) => api('POST', `/api/reports.php?action=finalize&id=${id}`, tech);
    const invoicesOf = (orderId: number) =>
      db()
        .selectFrom('facture as f')
        .innerJoin('element_element as ee', 'ee.fk_target', 'f.rowid')
        .selectAll('f')
        .where('ee.targettype', '=', 'facture')
        .where('ee.sourcetype', '=', 'commande')
        .where('ee.fk_source', '=', orderId)
        .orderBy('f.rowid')
        .execute();
    const linesOf = (invoice: number) =>
      db().selectFrom('facturedet').selectAll().where('fk_facture', '=', invoice).orderBy('rang').execute();

    test("a draft invoice with Dolibarr's prices, rounding and totals, linked to the order and the intervention", async () => {
      const o = await order();
      const report = await visit(o.id, { minutes: 135, endedAgo: 300 });
      const res = await finalize(report.id);
      assert.equal(res.statusCode, 200, res.body);
      const [inv, ...more] = await invoicesOf(o.id);
      assert.ok(inv);
      assert.equal(more.length, 0);

      const theirs = DOLIBARR.facture[0]!;
      const names = {
        fk_soc: { [customer]: 'customer', [DOLIBARR.ids.customer!]: 'customer' },
        fk_user_author: { [tech.id]: 'user', [DOLIBARR.ids.user!]: 'user' },
        ref: { [`(PROV${inv.rowid})`]: '(PROV<id>)', [`(PROV${DOLIBARR.ids.facture})`]: '(PROV<id>)' },
        ref_ext: { [`fieldreport:${report.ref}`]: 'ref_ext', [theirs.ref_ext!]: 'ref_ext' },
        ref_client: { 'Auftrag 4711': 'ref_client', [theirs.ref_client!]: 'ref_client' },
      };
      const times = ['rowid', 'tms', 'datec', 'datef', 'date_lim_reglement'];
      assert.deepEqual(comparable(asTheirs(inv, theirs), names, times), comparable(theirs, names, times));
      const today = toDolibarrDateTime(new Date(), ctx.config.timeZone).slice(0, 10);
      assert.equal(String(inv.datef).slice(0, 10), today);
      const due = new Date(`${today}T00:00:00Z`);
      due.setUTCDate(due.getUTCDate() + 30);
      assert.equal(String(inv.date_lim_reglement).slice(0, 10), due.toISOString().slice(0, 10));

      // The lines, as Dolibarr's addline wrote them for the same prices (its descriptions are its own).
      const lines = await linesOf(inv.rowid);
      assert.equal(lines.length, 5);
      const techName = (
        await json<{ items: Array<{ user_name: string }> }>('GET', `/api/times.php?element_type=commande&fk_element=${o.id}`, tech)
      ).items[0]!.user_name;
      assert.deepEqual(
        lines.map((l) => l.description),
        [
          `Zeitaufwand ${techName} : 02:15`,
          '',
          '',
          '',
          'Kleinteile &lt;img src=x onerror=alert(1)&gt; &amp; Dübel<br>\n(Freitext: Preis und USt. prüfen)',
        ],
      );
      const lineNames = {
        fk_facture: { [inv.rowid]: 'invoice', [DOLIBARR.ids.facture!]: 'invoice' },
        fk_product: Object.fromEntries(
          (['labour', 'seal', 'pipe', 'nozzle'] as const).flatMap((k) => [
            [made[k].id, k],
            [DOLIBARR.ids[k]!, k],
          ]),
        ),
        fk_user_author: { [tech.id]: 'user', [DOLIBARR.ids.user!]: 'user' },
        fk_user_modif: { [tech.id]: 'user', [DOLIBARR.ids.user!]: 'user' },
      };
      for (const [i, line] of lines.entries()) {
        const their = { ...DOLIBARR.facturedet[i]!, description: null };
        assert.deepEqual(
          comparable({ ...asTheirs(line, their), description: null }, lineNames, ['rowid']),
          comparable(their, lineNames, ['rowid']),
          `line ${i + 1}`,
        );
      }
      const links = await db()
        .selectFrom('element_element')
        .select(['fk_source', 'sourcetype', 'relationtype'])
        .where('fk_target', '=', inv.rowid)
        .where('targettype', '=', 'facture')
        .orderBy('rowid')
        .execute();
      const fi = await db()
        .selectFrom('element_element')
        .select('fk_target')
        .where('fk_source', '=', o.id)
        .where('sourcetype', '=', 'commande')
        .where('targettype', '=', 'fichinter')
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        links.map((l) => [Number(l.fk_source), l.sourcetype, l.relationtype]),
        [
          [o.id, 'commande', null],
          [Number(fi.fk_target), 'fichinter', null],
        ],
      );
      assert.deepEqual(
        DOLIBARR.element_element.map((l) => [l.sourcetype, l.relationtype]),
        [
          ['commande', null],
          ['fichinter', null],
        ],
      );

      // The report says where its time and parts went; each of its material lines, that it settled them.
      const marks = async (id: number) =>
        db().selectFrom('bericht').select(['fk_fichinter', 'fk_facture']).where('rowid', '=', id).executeTakeFirstOrThrow();
      assert.deepEqual(await marks(report.id), { fk_fichinter: Number(fi.fk_target), fk_facture: inv.rowid });
      const settledBy = await db()
        .selectFrom('bericht_material')
        .select('fk_bericht')
        .where('element_type', '=', 'commande')
        .where('fk_element', '=', o.id)
        .execute();
      assert.deepEqual(
        settledBy.map((r) => r.fk_bericht),
        [report.id, report.id, report.id, report.id],
      );

      // A second visit completes the draft; once the clerk validated it, the next one makes a new one.
      const second = await visit(o.id, { minutes: 30, endedAgo: 150, parts: false });
      assert.equal((await finalize(second.id)).statusCode, 200);
      assert.deepEqual(await marks(second.id), { fk_fichinter: Number(fi.fk_target), fk_facture: inv.rowid });
      assert.equal((await invoicesOf(o.id)).length, 1);
      const completed = await linesOf(inv.rowid);
      assert.equal(completed.length, 6);
      assert.deepEqual([Number(completed[5]!.qty), Number(completed[5]!.total_ht)], [0.5, 32.5]);
      const sum = await db()
        .selectFrom('facture')
        .select(['total_ht', 'total_ttc'])
        .where('rowid', '=', inv.rowid)
        .executeTakeFirstOrThrow();
      assert.deepEqual([Number(sum.total_ht), Number(sum.total_ttc)], [218.92, 260.52]);
      await db()
        .updateTable('facture')
        .set({ fk_statut: 1, ref: `FA-${inv.rowid}` })
        .where('rowid', '=', inv.rowid)
        .execute();
      const third = await visit(o.id, { minutes: 20, endedAgo: 60, parts: false });
      assert.equal((await finalize(third.id)).statusCode, 200);
      const all = await invoicesOf(o.id);
      assert.equal(all.length, 2);
      assert.equal((await linesOf(all[1]!.rowid)).length, 1);
    });

    test('BERICHT_INVOICE_FROM_REPORT 0 leaves the invoice to the clerk, and the agenda says so', async () => {
      const o = await order();
      const report = await visit(o.id, { minutes: 45, endedAgo: 10 });
      await ctx.make.setConst('BERICHT_INVOICE_FROM_REPORT', '0');
      try {
        assert.equal((await finalize(report.id)).statusCode, 200);
      } finally {
        await ctx.make.setConst('BERICHT_INVOICE_FROM_REPORT', '1');
      }
      assert.equal((await invoicesOf(o.id)).length, 0);
      const marks = await db()
        .selectFrom('bericht')
        .select(['fk_fichinter', 'fk_facture'])
        .where('rowid', '=', report.id)
        .executeTakeFirstOrThrow();
      assert.ok(Number(marks.fk_fichinter) > 0, 'the intervention is made all the same');
      assert.equal(marks.fk_facture, null);
      const note = (
        await db()
          .selectFrom('actioncomm')
          .select('note')
          .where('fk_element', '=', o.id)
          .where('code', '=', 'AC_BERICHT_VALIDATE')
          .executeTakeFirstOrThrow()
      ).note;
      assert.match(note ?? '', /Kein Rechnungsentwurf \(BERICHT_INVOICE_FROM_REPORT 0\)/);
    });
  });
}
