/**
 * The visit as a Dolibarr intervention when its report is finalized, on every database: a report on
 * an order makes a draft intervention linked to the order (compared column by column with what
 * Dolibarr 22's own PHP wrote, test/fixtures/dolibarr22/intervention.json), its lines the time on
 * site and the parts, signed when the customer signed, the report's PDF among its documents; a
 * second report completes it while it is a draft, never a second one (also when two are finalized
 * at once); once the office validated it, the next visit makes a new one; a report on an
 * intervention completes that one while it is a draft; BERICHT_INTERVENTION_FROM_REPORT 0 makes none.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fromDbDateTime } from '../../src/db/dialect.js';
import { objectFolder } from '../../src/dolibarr/documents.js';
import { toDolibarrDateTime } from '../../src/dolibarr/time.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { type Caller, testClient } from '../helpers/client.js';
import { testDialects } from '../helpers/databases.js';
import { comparable } from '../helpers/dolibarr-rows.js';

/** What Dolibarr 22.0.4's intervention card wrote (intervention.php). */
const DOLIBARR = JSON.parse(readFileSync(new URL('../fixtures/dolibarr22/intervention.json', import.meta.url), 'utf8')) as {
  ids: Record<string, string | number>;
  fichinter: Array<Record<string, string | null>>;
  fichinterdet: Array<Record<string, string | null>>;
  element_element: Array<Record<string, string | null>>;
};

for (const dialect of testDialects()) {
  describe(`the visit as an intervention [${dialect}]`, () => {
    let ctx: TestContext;
    let tech: Caller;
    let office: Caller;
    let seal: { id: number; ref: string };
    before(async () => {
      ctx = await createTestContext(dialect);
      tech = await caller();
      office = await caller();
      seal = await ctx.make.product({ ref: 'DICHT', label: 'Dichtungssatz Brenner', price: 12.5, unit: 'SET' });
      await ctx.make.van({ user: tech.id, stock: [[seal.id, 10]] });
    });
    after(async () => ctx?.close());

    const { caller, api, json, newReport, addPage, sign } = testClient(() => ctx);
    const db = () => ctx.handle.db;
    const tz = () => ctx.config.timeZone;

    /** A visit: `minutes` on site that ended `endedAgo` minutes ago, two material lines, a report with a page, signed or not. */
    async function visit(
      element: { element_type: 'commande' | 'fichinter'; fk_element: number },
      options: { sign?: boolean; minutes?: number; endedAgo?: number } = {},
    ) {
      const now = Math.floor(Date.now() / 1000);
      const arrival = now - (options.minutes ?? 135) * 60 - (options.endedAgo ?? 1) * 60;
      await json('POST', '/api/times.php?action=arrive', tech, { ...element, at: arrival });
      await json('POST', '/api/times.php?action=leave', tech, { ...element, at: arrival + (options.minutes ?? 135) * 60 });
      await json(
        'POST',
        '/api/materials.php',
        tech,
        { ...element, label: 'Dichtungssatz Brenner', qty: 2, fk_product: seal.id },
        { status: 201 },
      );
      await json(
        'POST',
        '/api/materials.php',
        tech,
        { ...element, label: 'Kleinteile', qty: 1, unit: 'Stk', note: 'Schrauben & Dübel' },
        { status: 201 },
      );
      const report = await newReport<{ id: number; ref: string }>(tech, { ...element, title: 'Wartung' });
      await addPage(tech, report.id, { title: 'Wartung', note: 'Brenner gereinigt' });
      if (options.sign !== false) assert.equal((await sign(tech, report.id)).statusCode, 201);
      return { report, arrival };
    }
    const finalize = (id: number) => api('POST', `/api/reports.php?action=finalize&id=${id}`, tech);
    const interventionsOf = (order: number) =>
      db()
        .selectFrom('fichinter as f')
        .innerJoin('element_element as ee', 'ee.fk_target', 'f.rowid')
        .selectAll('f')
        .where('ee.targettype', '=', 'fichinter')
        .where('ee.sourcetype', '=', 'commande')
        .where('ee.fk_source', '=', order)
        .orderBy('f.rowid')
        .execute();
    const linesOf = (fichinter: number) =>
      db().selectFrom('fichinterdet').selectAll().where('fk_fichinter', '=', fichinter).orderBy('rowid').execute();

    test("a report on an order makes a draft intervention as Dolibarr's card does, with the time, the parts, the signature and the PDF", async () => {
      const order = await ctx.make.order({ author: office.id, valid: tech.id });
      const { report, arrival } = await visit({ element_type: 'commande', fk_element: order.id }, { endedAgo: 300 });
      const res = await finalize(report.id);
      assert.equal(res.statusCode, 200, res.body);

      const [fi, ...more] = await interventionsOf(order.id);
      assert.ok(fi);
      assert.equal(more.length, 0);
      const customer = (await db().selectFrom('commande').select('fk_soc').where('rowid', '=', order.id).executeTakeFirstOrThrow()).fk_soc;
      const theirs = DOLIBARR.fichinter[0]!;
      const names = {
        fk_soc: { [customer]: 'customer', [DOLIBARR.ids.customer!]: 'customer' },
        fk_user_author: { [tech.id]: 'user', [DOLIBARR.ids.user!]: 'user' },
        fk_user_modif: { [tech.id]: 'user', [DOLIBARR.ids.user!]: 'user' },
        ref: { [`(PROV${fi.rowid})`]: '(PROV<id>)', [`(PROV${DOLIBARR.ids.fichinter})`]: '(PROV<id>)' },
        description: { [`Bericht ${report.ref} „Wartung“`]: 'description', [theirs.description!]: 'description' },
        duree: { 8100: 'seconds' },
        // Not written by Fichinter::create: the key this service finds its intervention by.
        ref_ext: { [`fieldreport:${report.ref}`]: 'ref_ext', null: 'ref_ext' },
      };
      assert.deepEqual(
        comparable(fi, names, ['rowid', 'tms', 'datec', 'dateo', 'datee']),
        comparable(theirs, names, ['rowid', 'tms', 'datec', 'dateo', 'datee']),
      );
      const day = toDolibarrDateTime(new Date(arrival * 1000), tz()).slice(0, 10);
      assert.equal(String(fi.dateo).slice(0, 10), day);
      assert.equal(String(fi.datee).slice(0, 10), toDolibarrDateTime(new Date(), tz()).slice(0, 10));

      // The lines: the time on site (its date and seconds, who), then the parts as the card writes an order's product line.
      const lines = await linesOf(fi.rowid);
      const hm = (unix: number) => toDolibarrDateTime(new Date(unix * 1000), tz()).slice(11, 16);
      const techName = (
        await json<{ items: Array<{ user_name: string }> }>('GET', `/api/times.php?element_type=commande&fk_element=${order.id}`, tech)
      ).items[0]!.user_name;
      assert.deepEqual(
        lines.map((l) => [l.description, Number(l.duree)]),
        [
          [`${techName}: vor Ort ${hm(arrival)}–${hm(arrival + 8100)}`, 8100],
          ['DICHT - Dichtungssatz Brenner<br><br> (Menge: 2 set)', 0],
          ['Kleinteile<br>Schrauben &amp; Dübel<br> (Menge: 1 Stk)', 0],
        ],
      );
      assert.equal(lines[0]!.date, toDolibarrDateTime(new Date(arrival * 1000), tz()));
      // A part is dated when it was recorded: Dolibarr's card lists the lines by date.
      const recorded = await db()
        .selectFrom('bericht_material')
        .select('datec')
        .where('element_type', '=', 'commande')
        .where('fk_element', '=', order.id)
        .orderBy('rowid')
        .execute();
      assert.deepEqual(
        lines.slice(1).map((l) => l.date),
        recorded.map((r) => toDolibarrDateTime(new Date(fromDbDateTime(r.datec)! * 1000), tz())),
      );
      const lineNames = {
        fk_fichinter: { [fi.rowid]: 'fi', [DOLIBARR.ids.fichinter!]: 'fi' },
        description: {
          [lines[0]!.description!]: 'time',
          [DOLIBARR.fichinterdet[0]!.description!]: 'time',
          [lines[1]!.description!]: 'part',
          [DOLIBARR.fichinterdet[1]!.description!]: 'part',
        },
        duree: { 8100: 'seconds' },
      };
      for (const i of [0, 1])
        assert.deepEqual(
          comparable(lines[i]!, lineNames, ['rowid', 'date']),
          comparable(DOLIBARR.fichinterdet[i]!, lineNames, ['rowid', 'date']),
        );
      const link = await db()
        .selectFrom('element_element')
        .selectAll()
        .where('fk_target', '=', fi.rowid)
        .where('targettype', '=', 'fichinter')
        .execute();
      const linkNames = {
        fk_source: { [order.id]: 'order', [DOLIBARR.ids.order!]: 'order' },
        fk_target: { [fi.rowid]: 'fi', [DOLIBARR.ids.fichinter!]: 'fi' },
      };
      assert.deepEqual(
        link.map((l) => comparable(l, linkNames, ['rowid'])),
        DOLIBARR.element_element.map((l) => comparable(l, linkNames, ['rowid'])),
      );

      // The report's PDF among the intervention's documents, the same bytes, with its ecm_files row.
      const theirFolder = objectFolder(ctx.config.dataRoot, ctx.config.entity, 'fichinter', fi.ref);
      const ours = objectFolder(ctx.config.dataRoot, ctx.config.entity, 'bericht', report.ref);
      assert.deepEqual(
        await readFile(path.join(theirFolder.dir, `${report.ref}.pdf`)),
        await readFile(path.join(ours.dir, `${report.ref}.pdf`)),
      );
      const ecm = await db()
        .selectFrom('ecm_files')
        .select(['src_object_type', 'src_object_id', 'gen_or_uploaded'])
        .where('filepath', '=', theirFolder.filepath)
        .where('filename', '=', `${report.ref}.pdf`)
        .execute();
      assert.deepEqual(
        ecm.map((e) => [e.src_object_type, Number(e.src_object_id), e.gen_or_uploaded]),
        [['fichinter', fi.rowid, 'generated']],
      );
      const intents = await db().selectFrom('bericht_file_intent').select('rowid').execute();
      assert.equal(intents.length, 0);
      const note = (
        await db()
          .selectFrom('actioncomm')
          .select('note')
          .where('fk_element', '=', order.id)
          .where('code', '=', 'AC_BERICHT_VALIDATE')
          .executeTakeFirstOrThrow()
      ).note;
      assert.match(
        note ?? '',
        new RegExp(
          `Intervention \\(PROV${fi.rowid}\\) angelegt: 1 Zeile\\(n\\) Zeit vor Ort \\(2 h 15 min\\), 2 Zeile\\(n\\) Material, vom Kunden unterschrieben`,
        ),
      );

      // The technician's list says it is the record of the visit; the app's open work leaves it out.
      type Listed = { items: Array<{ id: number; visit_record: string | null }> };
      const listed = await json<Listed>('GET', '/api/interventions.php?status=0,1', tech);
      assert.equal(listed.items.find((i) => i.id === fi.rowid)?.visit_record, report.ref);
      const work = await json<Listed>('GET', '/api/interventions.php?status=0,1&visit_records=0', tech);
      assert.equal(
        work.items.some((i) => i.id === fi.rowid),
        false,
      );
      const other = await ctx.make.intervention({ customer, author: tech.id, status: 0 });
      const withOther = await json<Listed>('GET', '/api/interventions.php?status=0,1&visit_records=0', tech);
      assert.deepEqual(
        withOther.items.filter((i) => i.id === other.id).map((i) => i.visit_record),
        [null],
      );
      assert.equal((await api('GET', '/api/interventions.php?visit_records=no', tech)).statusCode, 400);

      // A second visit completes the draft; once the office validated it, the next visit makes a new one.
      const second = await visit({ element_type: 'commande', fk_element: order.id }, { sign: false, minutes: 30, endedAgo: 150 });
      assert.equal((await finalize(second.report.id)).statusCode, 200);
      assert.equal((await interventionsOf(order.id)).length, 1);
      assert.equal((await linesOf(fi.rowid)).length, 6);
      const after2 = await db()
        .selectFrom('fichinter')
        .select(['duree', 'signed_status'])
        .where('rowid', '=', fi.rowid)
        .executeTakeFirstOrThrow();
      assert.equal(Number(after2.duree), 8100 + 1800);
      await db()
        .updateTable('fichinter')
        .set({ fk_statut: 1, ref: `FI-${fi.rowid}` })
        .where('rowid', '=', fi.rowid)
        .execute();
      const third = await visit({ element_type: 'commande', fk_element: order.id }, { sign: false, minutes: 20, endedAgo: 60 });
      assert.equal((await finalize(third.report.id)).statusCode, 200);
      const all = await interventionsOf(order.id);
      assert.equal(all.length, 2);
      assert.equal(Number(all[1]!.signed_status), 0);
      assert.equal((await linesOf(all[1]!.rowid)).length, 3);
      assert.equal((await linesOf(fi.rowid)).length, 6);
    });

    test('two reports of one order finalized at once make one intervention', async () => {
      const order = await ctx.make.order({ author: office.id, valid: tech.id });
      const a = await visit({ element_type: 'commande', fk_element: order.id }, { sign: false, minutes: 40 });
      const b = await newReport<{ id: number }>(tech, order.id);
      await addPage(tech, b.id, { title: 'Nachtrag', note: 'Foto' });
      const results = await Promise.all([finalize(a.report.id), finalize(b.id)]);
      for (const r of results) assert.ok([200, 409, 503].includes(r.statusCode), r.body);
      assert.ok(results.some((r) => r.statusCode === 200));
      const made = await interventionsOf(order.id);
      assert.equal(made.length, 1);
      // Each time interval and line once, whichever report took it.
      assert.equal((await linesOf(made[0]!.rowid)).length, 3);
    });

    test('a report on a draft intervention completes it; on a validated one it adds nothing; the setting 0 makes none', async () => {
      const customer = (await ctx.make.thirdParty()).id;
      const draft = await ctx.make.intervention({ customer, author: tech.id, status: 0 });
      const v = await visit({ element_type: 'fichinter', fk_element: draft.id });
      assert.equal((await finalize(v.report.id)).statusCode, 200);
      assert.equal((await linesOf(draft.id)).length, 3);
      const row = await db()
        .selectFrom('fichinter')
        .select(['signed_status', 'duree'])
        .where('rowid', '=', draft.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual([Number(row.signed_status), Number(row.duree)], [2, 8100]);

      const validated = await ctx.make.intervention({ customer, author: tech.id, status: 1 });
      const w = await visit({ element_type: 'fichinter', fk_element: validated.id });
      assert.equal((await finalize(w.report.id)).statusCode, 200);
      assert.equal((await linesOf(validated.id)).length, 0);

      const order = await ctx.make.order({ author: office.id, valid: tech.id });
      const x = await visit({ element_type: 'commande', fk_element: order.id });
      await ctx.make.setConst('BERICHT_INTERVENTION_FROM_REPORT', '0');
      try {
        assert.equal((await finalize(x.report.id)).statusCode, 200);
      } finally {
        await ctx.make.setConst('BERICHT_INTERVENTION_FROM_REPORT', '1');
      }
      assert.equal((await interventionsOf(order.id)).length, 0);
    });
  });
}
