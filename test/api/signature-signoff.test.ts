/**
 * The sign-off on every database: a signature sent with what the customer was shown (`signoff`:
 * the work description, the time on site, the material lines, the checklist's counts) takes the
 * hash form fieldreport-pages/4, which covers the work, the times and the material beside the
 * pages; the sealed metadata keeps the sign-off. The check recomputes the hash from the pages and
 * the sign-off, and says what of the visit changed since (a material line added or removed, a
 * departure recorded after signing, the work description edited): the signature stays valid for
 * what was signed, and what changed is "not covered", on the API's check, the public check page
 * and `fieldreport verify`. A malformed sign-off is a clear 400 (413 beyond its size) naming the
 * place, and leaves nothing. Signatures without a sign-off keep their forms.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { objectFolder } from '../../src/dolibarr/documents.js';
import { canonicalJson, loadSigningKey } from '../../src/modules/signatures/signing-key.js';
import { MAX_SIGNOFF_BYTES, MAX_SIGNOFF_MATERIALS } from '../../src/modules/signatures/signoff.js';
import { assertError } from '../helpers/assertions.js';
import { cliEnv, runCli } from '../helpers/cli.js';
import { type Caller, type Json, testClient } from '../helpers/client.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';
import { publicSignatureCheck, signatureMetadata } from '../helpers/signature.js';
import { pdfText, pdfToolsMissing } from '../helpers/pdf-tools.js';
import { assertPdfA1b } from '../helpers/pdfa.js';

const WORK = 'Jährliche Wartung der Gas-Brennwerttherme im Keller; Abgasmessung.';
/** The check's answer when nothing changed since signing. */
const ALL_COVERED = { covered: true, work_changed: false, materials_added: [], materials_removed: [], times_added: [], times_removed: [] };

for (const dialect of testDialects()) {
  describe(`signature sign-off [${dialect}]`, () => {
    let ctx: TestContext;
    let me: Caller;
    before(async () => {
      ctx = await createTestContext(dialect);
      me = await caller();
    });
    after(async () => ctx?.close());

    const { caller, api, json, newReport, addPage, sign } = testClient(() => ctx);

    /**
     * A draft on an order with a work description, one title page, two material lines and a
     * closed interval of time on site (arrived 2 h ago, left 1 h ago), as the phone recorded them.
     */
    async function visit() {
      const order = await ctx.make.order({ author: me.id });
      await ctx.handle.db
        .updateTable('commande')
        .set({ note_public: `  ${WORK}\r\n` })
        .where('rowid', '=', order.id)
        .execute();
      const r: { id: number; ref: string } = await newReport(me, order.id);
      await addPage(me, r.id, { title: 'Wartung', note: 'Brenner gereinigt' });
      const material = (label: string, qty: number, unit: string | null, note: string | null) =>
        json('POST', '/api/materials.php', me, { element_type: 'commande', fk_element: order.id, label, qty, unit, note });
      const lines = [await material('Dichtung Brenner', 1, 'Stk', null), await material('Kupferrohr 15 mm', 2.5, 'm', 'verlegt im Keller')];
      const arrival = Math.floor(Date.now() / 1000) - 7200;
      const departure = arrival + 3600;
      const tap = (action: string, at: number) =>
        json('POST', `/api/times.php?action=${action}`, me, { element_type: 'commande', fk_element: order.id, at });
      await tap('arrive', arrival);
      await tap('leave', departure);
      const signoff = {
        work: WORK,
        times: [{ arrival, departure }],
        materials: [
          { label: 'Dichtung Brenner', qty: 1, unit: 'Stk', note: null },
          { label: 'Kupferrohr 15 mm', qty: 2.5, unit: 'm', note: 'verlegt im Keller' },
        ],
        checklist: { items: 13, ok: 11, defects: 1, na: 1, open: 0, outside_limits: 1 },
        pages: 1,
        photos: 0,
        missing: [],
      };
      return {
        ...r,
        order,
        lines: lines as Array<{ id: number }>,
        arrival,
        departure,
        signoff,
        workDir: objectFolder(ctx.config.dataRoot, ctx.config.entity, 'bericht', r.ref).dir,
      };
    }

    /** A later visit on the order: a line of its own ('Filter F7', `qty` Stk) and a draft report with a page. */
    async function laterVisit(order: number, qty: number): Promise<{ id: number }> {
      await json('POST', '/api/materials.php', me, { element_type: 'commande', fk_element: order, label: 'Filter F7', qty, unit: 'Stk' });
      const report: { id: number } = await newReport(me, order);
      await addPage(me, report.id, { title: 'Filterwechsel' });
      return report;
    }

    const metadataOf = (page: { source_path: string }) => signatureMetadata(ctx.config.dataRoot, page);
    const verify = async (pageId: number) => json('GET', `/ajax/verify_signature.php?id=${pageId}`, me);
    const publicCheck = (page: { verify_url: string }) => publicSignatureCheck(ctx.app, page);
    const signoffPart = (value: unknown) => ({
      filename: 'signoff.json',
      type: 'application/json',
      data: Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)),
    });

    test("on an intervention the work is its description (its note_public when it has none): signed as shown, a changed description is 'work changed'", async () => {
      const fi = await ctx.make.intervention({ author: me.id, description: 'Lüftungsanlage warten, Filter tauschen' });
      await ctx.handle.db.updateTable('fichinter').set({ note_public: 'Zugang über den Hof' }).where('rowid', '=', fi.id).execute();
      const r: { id: number } = await newReport(me, { element_type: 'fichinter', fk_element: fi.id, title: 'Wartung' });
      await addPage(me, r.id, { title: 'Wartung' });
      const signoff = { work: 'Lüftungsanlage warten, Filter tauschen', times: [], materials: [], pages: 1, photos: 0, missing: [] };
      const res = await sign(me, r.id, { fields: { signoff: signoffPart(signoff) } });
      assert.equal(res.statusCode, 201, res.body);
      const page = res.json();
      assert.equal((await verify(page.id)).not_covered.work_changed, false, 'the description is the work signed');
      await ctx.handle.db.updateTable('fichinter').set({ description: '' }).where('rowid', '=', fi.id).execute();
      assert.equal((await verify(page.id)).not_covered.work_changed, true, 'without a description the work is its note_public');
    });

    test('a sign-off makes the hash cover the work, the times and the material (form 4, recomputed here from its documented form) and goes sealed into the metadata', async () => {
      const v = await visit();
      const res = await sign(me, v.id, { fields: { signoff: signoffPart(v.signoff) } });
      assert.equal(res.statusCode, 201, res.body);
      const page = res.json();
      const meta = await metadataOf(page);
      assert.equal(meta.hash_form, 'fieldreport-pages/4');
      assert.deepEqual(meta.signoff, v.signoff, 'the metadata keeps the sign-off as shown');
      // The documented byte form, built here without the service's code: one title-only page, then the visit.
      const expected = createHash('sha256')
        .update(
          canonicalJson({
            form: 'fieldreport-pages/4',
            report: v.ref,
            pages: [
              {
                position: 1,
                layout: 'title_only',
                title: 'Wartung',
                note: 'Brenner gereinigt',
                rotation: 0,
                image: null,
                image_2: null,
                evidence: null,
                evidence_2: null,
              },
            ],
            visit: { work: WORK, times: v.signoff.times, materials: v.signoff.materials },
          }),
          'utf8',
        )
        .digest('hex');
      assert.equal(meta.hash, expected);
      assert.equal(page.hash, expected);

      const checked = await verify(page.id);
      assert.equal(checked.verified, true, JSON.stringify(checked));
      assert.deepEqual(checked.not_covered, ALL_COVERED);
      assert.match(checked.message, /Arbeiten, Zeiten und Materialien sind unverändert/);
      const html = await publicCheck(page);
      assert.ok(html.includes('✔ Gültig: was unterschrieben wurde, ist unverändert'), html);
      assert.ok(html.includes('<dt>Umfang</dt><dd>die Seiten des Berichts, die Arbeiten, die Zeiten vor Ort und das Material'), html);
      assert.ok(!html.includes('Nicht gedeckt'), html);
    });

    test("a later visit's sign-off and PDF have its own parts, not those an earlier visit's report settled; a new version of that report keeps them", async (t) => {
      const v = await visit();
      assert.equal((await sign(me, v.id, { fields: { signoff: signoffPart(v.signoff) } })).statusCode, 201);
      const finalize = (id: number) => api('POST', `/api/reports.php?action=finalize&id=${id}`, me);
      const first = await finalize(v.id);
      assert.equal(first.statusCode, 200, first.body);

      // The second visit: one line of its own; the first visit's two are settled (and billed) already.
      const second = await laterVisit(v.order.id, 2);
      const own = { ...v.signoff, times: [], materials: [{ label: 'Filter F7', qty: 2, unit: 'Stk', note: null }] };
      const signed = await sign(me, second.id, { fields: { signoff: signoffPart(own) } });
      assert.equal(signed.statusCode, 201, signed.body);
      assert.deepEqual((await verify(signed.json().id)).not_covered, ALL_COVERED);
      const settledBy = async () =>
        (
          await json<{ items: Array<{ label: string; fk_bericht: number | null }> }>(
            'GET',
            `/api/materials.php?element_type=commande&fk_element=${v.order.id}`,
            me,
          )
        ).items.map((m) => [m.label, m.fk_bericht]);
      assert.deepEqual(await settledBy(), [
        ['Dichtung Brenner', v.id],
        ['Kupferrohr 15 mm', v.id],
        ['Filter F7', null],
      ]);

      const detail = (id: number) =>
        json<{ material_reports: number[]; material_unknown: boolean }>('GET', `/api/reports.php?id=${id}`, me);
      assert.deepEqual(await detail(second.id).then((d) => [d.material_reports, d.material_unknown]), [[second.id], false]);

      // A new version of the first report shows the first visit's lines, as it was signed; once the second
      // report settled its own line, not that one (a draft, like a draft's time on site, shows what no report took yet).
      const again = await json<{ id: number }>('POST', `/api/reports.php?action=new_version&id=${v.id}`, me, undefined, { status: 201 });
      if (!pdfToolsMissing) {
        const lines = async (id: number, preview: boolean) => {
          const pdf = (await api('GET', `/api/pdf.php?id=${id}${preview ? '&preview=1' : ''}`, me)).rawPayload;
          const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'fieldreport-visits-')), 'r.pdf');
          await writeFile(file, pdf);
          const summary = (await pdfText(file)).split('\f')[0]!.replace(/\s+/g, ' ');
          return ['Dichtung Brenner', 'Kupferrohr 15 mm', 'Filter F7'].filter((label) => summary.includes(label));
        };
        assert.deepEqual(await lines(second.id, true), ['Filter F7']);
        assert.equal((await finalize(second.id)).statusCode, 200);
        assert.deepEqual(await lines(second.id, false), ['Filter F7']);
        assert.deepEqual(await lines(again.id, true), ['Dichtung Brenner', 'Kupferrohr 15 mm']);
        assert.deepEqual(await lines(v.id, false), ['Dichtung Brenner', 'Kupferrohr 15 mm']);
      } else {
        t.diagnostic(`PDF text not read: ${pdfToolsMissing}`);
        assert.equal((await finalize(second.id)).statusCode, 200);
      }
      assert.deepEqual(await settledBy(), [
        ['Dichtung Brenner', v.id],
        ['Kupferrohr 15 mm', v.id],
        ['Filter F7', second.id],
      ]);
      assert.deepEqual(await detail(again.id).then((d) => [d.material_reports, d.material_unknown]), [[again.id, v.id], false]);
      // The new version finalized settles nothing again: the lines stay the first report's.
      assert.equal((await finalize(again.id)).statusCode, 200);
      assert.deepEqual(
        (await settledBy()).map((l) => l[1]),
        [v.id, v.id, second.id],
      );
    });

    test("a report finalized before reports listed their own visit's lines keeps its signature's check, also after a later visit", async () => {
      const v = await visit();
      const page = (await sign(me, v.id, { fields: { signoff: signoffPart(v.signoff) } })).json();
      const finalize = (id: number) => api('POST', `/api/reports.php?action=finalize&id=${id}`, me);
      assert.equal((await finalize(v.id)).statusCode, 200);
      // As such a report was left by the migrations: marked (0026), its lines without their report (before 0025).
      await ctx.handle.db.updateTable('bericht').set({ all_material: 1 }).where('rowid', '=', v.id).execute();
      await ctx.handle.db
        .updateTable('bericht_material')
        .set({ fk_bericht: null })
        .where('element_type', '=', 'commande')
        .where('fk_element', '=', v.order.id)
        .execute();
      assert.equal((await verify(page.id)).not_covered.covered, true, JSON.stringify((await verify(page.id)).not_covered));
      const detail = await json<{ material_reports: number[]; material_unknown: boolean }>('GET', `/api/reports.php?id=${v.id}`, me);
      assert.deepEqual([detail.material_reports, detail.material_unknown], [[v.id], true]);

      // A later visit's line, settled by its own report, is neither that report's nor changes its check.
      const later = await laterVisit(v.order.id, 1);
      assert.equal((await finalize(later.id)).statusCode, 200);
      assert.equal((await verify(page.id)).not_covered.covered, true);
      // Nor when that later visit was reported before the update too: it is not an earlier report of the object.
      await ctx.handle.db.updateTable('bericht').set({ all_material: 1 }).where('rowid', '=', later.id).execute();
      assert.equal((await verify(page.id)).not_covered.covered, true);
    });

    test('what changes after signing is not covered: a line removed and one added, a departure recorded later, the work edited; the signature stays valid for what was signed', async () => {
      const v = await visit();
      // Still on site when the customer signs: the open interval is shown without a departure.
      const arrival = v.departure + 600;
      await json('POST', '/api/times.php?action=arrive', me, { element_type: 'commande', fk_element: v.order.id, at: arrival });
      const shown = { ...v.signoff, times: [...v.signoff.times, { arrival, departure: null }] };
      const signed = await sign(me, v.id, { fields: { signoff: signoffPart(shown) } });
      assert.equal(signed.statusCode, 201, signed.body);
      const page = signed.json();
      assert.equal((await verify(page.id)).not_covered.covered, true, 'the open interval is covered as shown');

      // After signing: the copper pipe becomes 3 m (removed and added again), the departure is recorded.
      await api('DELETE', `/api/materials.php?id=${v.lines[1]!.id}`, me);
      await json('POST', '/api/materials.php', me, {
        element_type: 'commande',
        fk_element: v.order.id,
        label: 'Kupferrohr 15 mm',
        qty: 3,
        unit: 'm',
        note: 'verlegt im Keller',
      });
      const departure = Math.floor(Date.now() / 1000) - 5;
      await json('POST', '/api/times.php?action=leave', me, { element_type: 'commande', fk_element: v.order.id, at: departure });
      const checked = await verify(page.id);
      assert.equal(checked.verified, true, JSON.stringify(checked));
      assert.deepEqual(checked.not_covered, {
        covered: false,
        work_changed: false,
        materials_added: [{ label: 'Kupferrohr 15 mm', qty: 3, unit: 'm', note: 'verlegt im Keller' }],
        materials_removed: [{ label: 'Kupferrohr 15 mm', qty: 2.5, unit: 'm', note: 'verlegt im Keller' }],
        times_added: [{ arrival, departure }],
        times_removed: [{ arrival, departure: null }],
      });
      assert.match(checked.message, /seitdem geänderte Arbeiten, Zeiten oder Materialien deckt sie nicht/);
      const html = await publicCheck(page);
      assert.ok(html.includes('✔ Gültig'), html);
      assert.ok(
        html.includes('<dt>Nicht gedeckt</dt><dd class="bad">seit der Unterschrift 1 Zeitraum geändert, 1 Materialposition geändert</dd>'),
        html,
      );
      assert.ok(!html.includes('Kupferrohr'), 'the public page names counts, never the lines');

      await ctx.handle.db.updateTable('commande').set({ note_public: 'Etwas anderes' }).where('rowid', '=', v.order.id).execute();
      await json('POST', '/api/materials.php', me, { element_type: 'commande', fk_element: v.order.id, label: 'Schrauben', qty: 4 });
      const again = await verify(page.id);
      assert.equal(again.not_covered.work_changed, true);
      assert.equal(again.not_covered.materials_added.length, 2);
      const cli = await runCli(['verify', v.ref], cliEnv(ctx.config));
      assert.equal(cli.code, 0, cli.stdout + cli.stderr);
      assert.match(cli.stdout, /valid\n {2}covers: pages, work, times and material as shown at signing\n/);
      assert.match(
        cli.stdout,
        /not covered \(changed since\): die Arbeitsbeschreibung geändert, 1 Zeitraum geändert, 1 Materialposition geändert, 1 Materialposition hinzugefügt/,
      );
    });

    test('the PDF says what the signature covers and marks what changed since: a line added, a line removed, a departure recorded later, the work edited', async (t) => {
      if (pdfToolsMissing) return t.skip(`pdftotext: ${pdfToolsMissing}`);
      const v = await visit();
      const arrival = v.departure + 600;
      await json('POST', '/api/times.php?action=arrive', me, { element_type: 'commande', fk_element: v.order.id, at: arrival });
      const shown = { ...v.signoff, times: [...v.signoff.times, { arrival, departure: null }] };
      assert.equal((await sign(me, v.id, { fields: { signoff: signoffPart(shown) } })).statusCode, 201);
      const summaryOf = async () => {
        const pdf = (await api('GET', `/api/pdf.php?id=${v.id}&preview=1`, me)).rawPayload;
        const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'fieldreport-signoff-')), 'r.pdf');
        await writeFile(file, pdf);
        await assertPdfA1b(t, file, 'sign-off marks');
        // Words joined across pdftotext's line breaks, so a sentence reads as one.
        return (await pdfText(file)).split('\f')[0]!.replace(/\s+/g, ' ');
      };
      const before = await summaryOf();
      assert.match(
        before,
        /Die Unterschrift von Erika Müller erfasst die Seiten des Berichts und die Arbeiten, die Zeiten vor Ort und das Material/,
      );
      assert.doesNotMatch(before, /nicht von der Unterschrift erfasst|Nach der Unterschrift/);

      await api('DELETE', `/api/materials.php?id=${v.lines[1]!.id}`, me);
      await json('POST', '/api/materials.php', me, {
        element_type: 'commande',
        fk_element: v.order.id,
        label: 'Kupferrohr 15 mm',
        qty: 3,
        unit: 'm',
      });
      await json('POST', '/api/times.php?action=leave', me, {
        element_type: 'commande',
        fk_element: v.order.id,
        at: Math.floor(Date.now() / 1000) - 5,
      });
      await ctx.handle.db.updateTable('commande').set({ note_public: 'Etwas anderes' }).where('rowid', '=', v.order.id).execute();
      const after = await summaryOf();
      assert.match(after, /Was danach geändert wurde, ist als „nicht von der Unterschrift erfasst“ markiert/);
      assert.match(after, /Etwas anderes Nach der Unterschrift geändert: nicht von der Unterschrift erfasst\./);
      assert.match(after, /Kupferrohr 15 mm 3 m nicht von der Unterschrift erfasst/);
      assert.match(after, /Nach der Unterschrift entfernt: Kupferrohr 15 mm 2,5 m\./);
      assert.match(after, /Dichtung Brenner 1 Stk (?!nicht von)/, 'a line signed as shown is not marked');
      // The interval recorded after signing: its row is marked once, the signed closed one is not.
      assert.equal(after.split('nicht von der Unterschrift erfasst').length - 1, 4, after);
    });

    test('the sign-off is sealed and hashed: editing it breaks the seal; sealed again by the key holder, a changed line, work or time (or none at all) is content_changed', async () => {
      const v = await visit();
      const page = (await sign(me, v.id, { fields: { signoff: signoffPart(v.signoff) } })).json();
      const file = path.join(ctx.config.dataRoot, page.source_path.replace(/\.png$/, '.json'));
      const original = await readFile(file, 'utf8');
      const meta = JSON.parse(original);
      meta.signoff.materials[1].qty = 25;
      await writeFile(file, JSON.stringify(meta));
      const broken = await verify(page.id);
      assert.equal(broken.verified, false);
      assert.equal(broken.reason, 'seal_broken');
      assert.equal(broken.not_covered, null);
      // Sealed again with the service's own key (as only its holder could): the hash still covers what was shown.
      const reseal = async (edit: (m: Json) => void) => {
        const copy = JSON.parse(original);
        edit(copy);
        delete copy.seal;
        copy.seal = loadSigningKey(ctx.config.signingKeyFile, { create: false }).seal(copy);
        await writeFile(file, JSON.stringify(copy));
        return verify(page.id);
      };
      for (const edit of [
        (m: Json) => (m.signoff.materials[1].qty = 25),
        (m: Json) => (m.signoff.work = 'Etwas anderes'),
        (m: Json) => (m.signoff.times[0].departure += 60),
        (m: Json) => (m.signoff = null),
      ]) {
        const changed = await reseal(edit);
        assert.equal(changed.verified, false, String(edit));
        assert.equal(changed.reason, 'content_changed', String(edit));
        assert.equal(changed.checks.hash, false, String(edit));
      }
      // The counts are kept as shown but are not in the hash (the pages themselves are).
      assert.equal((await reseal((m: Json) => (m.signoff.photos = 7))).verified, true);
      await writeFile(file, original);
      assert.equal((await verify(page.id)).verified, true);
    });

    test('without a sign-off the hash keeps its old form and the check says nothing of the visit', async () => {
      const v = await visit();
      const page = (await sign(me, v.id)).json();
      const meta = await metadataOf(page);
      assert.equal(meta.hash_form, 'fieldreport-pages/1');
      assert.equal(meta.signoff, null);
      const checked = await verify(page.id);
      assert.equal(checked.verified, true);
      assert.equal(checked.not_covered, null);
      assert.match(checked.message, /die unterschriebenen Seiten sind unverändert/);
      const html = await publicCheck(page);
      assert.ok(html.includes('<dt>Umfang</dt><dd>die Seiten des Berichts</dd>'), html);
    });

    test('a malformed sign-off is 400 naming the place (413 beyond its size), and leaves no page, row or file', async () => {
      const v = await visit();
      const good = v.signoff;
      const cases: Array<[string, unknown, string]> = [
        ['not JSON', '{"work": ', 'body.signoff'],
        ['an array', '[]', 'body.signoff'],
        ['work a number', { ...good, work: 42 }, 'body.signoff.work'],
        ['an unknown key', { ...good, total: 3 }, 'body.signoff.total'],
        ['arrival as text', { ...good, times: [{ arrival: '2026-11-24T09:00:00Z', departure: null }] }, 'body.signoff.times[0].arrival'],
        [
          'departure before arrival',
          { ...good, times: [{ arrival: v.arrival, departure: v.arrival - 1 }] },
          'body.signoff.times[0].departure',
        ],
        ['qty as text', { ...good, materials: [{ label: 'x', qty: '2', unit: null, note: null }] }, 'body.signoff.materials[0].qty'],
        [
          'qty with 4 decimals',
          { ...good, materials: [{ label: 'x', qty: 1.0001, unit: null, note: null }] },
          'body.signoff.materials[0].qty',
        ],
        ['a negative qty', { ...good, materials: [{ label: 'x', qty: -1, unit: null, note: null }] }, 'body.signoff.materials[0].qty'],
        ['an empty label', { ...good, materials: [{ label: '  ', qty: 1, unit: null, note: null }] }, 'body.signoff.materials[0].label'],
        [
          'a label over 255',
          { ...good, materials: [{ label: 'x'.repeat(256), qty: 1, unit: null, note: null }] },
          'body.signoff.materials[0].label',
        ],
        ['a control character', { ...good, work: 'a\u0007b' }, 'body.signoff.work'],
        [
          'a direction override',
          { ...good, materials: [{ label: 'a\u202Eb', qty: 1, unit: null, note: null }] },
          'body.signoff.materials[0].label',
        ],
        [
          'too many lines',
          { ...good, materials: Array.from({ length: MAX_SIGNOFF_MATERIALS + 1 }, () => ({ label: 'x', qty: 1, unit: null, note: null })) },
          'body.signoff.materials',
        ],
        ['a count below 0', { ...good, checklist: { ...good.checklist, open: -1 } }, 'body.signoff.checklist.open'],
        ['an unknown missing kind', { ...good, missing: [{ what: 'coffee', reason: 'x' }] }, 'body.signoff.missing[0].what'],
        ['a missing kind without reason', { ...good, missing: [{ what: 'open_items', reason: '' }] }, 'body.signoff.missing[0].reason'],
      ];
      for (const [what, value, field] of cases) {
        const body = assertError(await sign(me, v.id, { fields: { signoff: signoffPart(value) } }), 400, 'VALIDATION_FAILED') as Json;
        assert.equal(body.details?.[0]?.field, field, `${what}: ${JSON.stringify(body)}`);
      }
      // As a plain text field too: read the same way.
      const asText = assertError(await sign(me, v.id, { fields: { signoff: '{"pages": "3"}' } }), 400, 'VALIDATION_FAILED') as Json;
      assert.equal(asText.details?.[0]?.field, 'body.signoff.pages');
      const huge = { ...good, work: 'x'.repeat(MAX_SIGNOFF_BYTES) };
      const tooLarge = assertError(await sign(me, v.id, { fields: { signoff: signoffPart(huge) } }), 413, 'SIGNOFF_TOO_LARGE') as Json;
      assert.equal(tooLarge.details?.[0]?.field, 'body.signoff');

      const pages = await ctx.handle.db.selectFrom('bericht_page').select('layout').where('fk_bericht', '=', v.id).execute();
      assert.deepEqual(
        pages.map((p) => p.layout),
        ['title_only'],
      );
      assert.deepEqual(
        (await readdir(v.workDir).catch(() => [] as string[])).filter((n) => n.startsWith('unterschrift_')),
        [],
      );
      const rows = await ctx.handle.db.selectFrom('bericht_signature').select('rowid').where('fk_bericht', '=', v.id).execute();
      assert.equal(rows.length, 0);
      // The same report then signs with a good sign-off.
      assert.equal((await sign(me, v.id, { fields: { signoff: signoffPart(good) } })).statusCode, 201);
    });

    test("another user's report cannot be signed with a sign-off, nor its signature checked", async () => {
      const v = await visit();
      const other = await caller();
      const page = (await sign(me, v.id, { fields: { signoff: signoffPart(v.signoff) } })).json();
      assertError(await sign(other, v.id, { fields: { signoff: signoffPart(v.signoff) } }), 404, 'REPORT_NOT_FOUND');
      assertError(await api('GET', `/ajax/verify_signature.php?id=${page.id}`, other), 404, 'PAGE_NOT_FOUND');
    });
  });
}
