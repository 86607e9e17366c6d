/**
 * The service killed with SIGKILL while a report is finalized with an ODT cover sheet (so
 * LibreOffice is at work), at seeded random moments, and started again: no PDF without its row,
 * the report still a draft, no temporary file, no working folder in TMPDIR and no LibreOffice
 * process of a killed run left, nothing out of the van, no intervention and no invoice; a finalize
 * afterwards succeeds with one PDF and one row, one stock movement per part, one intervention and
 * one draft invoice.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pidAlive } from '../../src/adapters/runs.js';
import { SEED, conversionsAtWork, crashFixture, prng, sofficeProcessesOf, walk } from '../helpers/crash.js';

const KILLS = 10;
const describeLinux = process.platform === 'linux' ? describe : describe.skip;

describeLinux('crash recovery: kill -9 during finalize [sqlite]', { timeout: 170_000 }, () => {
  const random = prng(SEED + 1);
  const fx = crashFixture();
  before(async () => {
    console.log(`# crash recovery (finalize) seed ${SEED} (CRASH_SEED repeats a run)`);
    await fx.start(true);
  });
  after(() => fx.close());

  test(`${KILLS} kills during finalize leave no PDF without its row, no temporary file and no LibreOffice`, async () => {
    const auth = () => ({ authorization: `Bearer ${fx.token()}` });
    const reports = (await (await fetch(`${fx.service().base}/api/reports.php`, { headers: auth() })).json()) as {
      items: Array<{ id: number; ref: string; status: string }>;
    };
    const report = reports.items.find((r) => r.status === 'draft')!;
    assert.ok(report, 'the demo has a draft report');
    // A part of the catalogue on the report's order, from the technician's van.
    const { element_type, fk_element } = (await (
      await fetch(`${fx.service().base}/api/reports.php?id=${report.id}`, { headers: auth() })
    ).json()) as {
      element_type: string;
      fk_element: number;
    };
    const seal = (
      (await (await fetch(`${fx.service().base}/api/products.php?barcode=4260123450014`, { headers: auth() })).json()) as {
        items: Array<{ id: number }>;
      }
    ).items[0]!;
    const added = await fetch(`${fx.service().base}/api/materials.php`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ element_type, fk_element, label: 'Dichtungssatz Brenner', qty: 1, fk_product: seal.id }),
    });
    assert.equal(added.status, 201, await added.clone().text());
    // What the visit made in Dolibarr (the demo's own invoices and interventions of the order do not count).
    const officeRows = () => ({
      movements: fx.query<{ n: number }>(
        'select count(*) as n from llx_stock_mouvement where fk_origin = ? and origintype = ?',
        fk_element,
        element_type,
      )[0]!.n,
      settled: fx.query<{ n: number }>(
        'select count(*) as n from llx_bericht_material where fk_element = ? and element_type = ? and fk_stock_mouvement is not null',
        fk_element,
        element_type,
      )[0]!.n,
      interventions: fx.query<{ n: number }>(
        "select count(*) as n from llx_element_element ee join llx_fichinter f on f.rowid = ee.fk_target where ee.fk_source = ? and ee.sourcetype = ? and ee.targettype = 'fichinter' and f.ref_ext like 'fieldreport:%'",
        fk_element,
        element_type,
      )[0]!.n,
      invoices: fx.query<{ n: number }>(
        "select count(*) as n from llx_element_element ee join llx_facture f on f.rowid = ee.fk_target where ee.fk_source = ? and ee.sourcetype = ? and ee.targettype = 'facture' and f.ref_ext like 'fieldreport:%'",
        fk_element,
        element_type,
      )[0]!.n,
    });
    assert.deepEqual(officeRows(), { movements: 0, settled: 0, interventions: 0, invoices: 0 });
    // How long the work takes here: a preview does what a finalize does before its commit (cover
    // sheet through LibreOffice, the pages), the first one also starts LibreOffice cold. The kills
    // at a random moment fall within the faster one, so none lands after the commit, when the
    // answer is already on its way (a finalize that completed is no kill during the work).
    let work = Infinity;
    for (let i = 0; i < 2; i++) {
      const started = Date.now();
      const preview = await fetch(`${fx.service().base}/api/pdf.php?id=${report.id}&preview=1`, { headers: auth() });
      assert.equal(preview.status, 200, await preview.clone().text());
      await preview.arrayBuffer();
      work = Math.min(work, Date.now() - started);
    }
    console.log(`# a preview with its cover sheet took ${work} ms`);
    let sawLibreOffice = 0;
    for (let i = 0; i < KILLS; i++) {
      const pending = fetch(`${fx.service().base}/api/reports.php?id=${report.id}&action=finalize`, {
        method: 'POST',
        headers: auth(),
      }).then(
        // An answer is wrong here; its body says which (kept for the failure message).
        async (res) => `${res.status} ${await res.text().catch(() => '')}`,
        () => 'no answer' as const,
      );
      // Half of the kills while LibreOffice converts the cover sheet (a conversion's working folder is there), half at a random moment of the work.
      const deadline = Date.now() + 4000;
      if (i % 2 === 0) {
        while (Date.now() < deadline && conversionsAtWork(fx.tmp).length === 0) await new Promise((r) => setTimeout(r, 5));
        if (conversionsAtWork(fx.tmp).length > 0) sawLibreOffice += 1;
        await new Promise((r) => setTimeout(r, Math.floor(random() * 300)));
      } else {
        await new Promise((r) => setTimeout(r, 50 + Math.floor(random() * 0.7 * work)));
      }
      await fx.service().kill();
      const status = await pending;
      assert.equal(status, 'no answer', `finalize ${i} answered before the kill (${status}); the kill must come during the work`);
      await fx.start();
      assert.deepEqual(sofficeProcessesOf(fx.tmp), [], `no LibreOffice of the killed run is left (kill ${i})`);
    }
    console.log(`# LibreOffice was at work at ${sawLibreOffice} of ${KILLS} kills`);
    assert.ok(sawLibreOffice >= KILLS / 2 - 1, 'the kills meant for LibreOffice found it at work');
    const detail = (await (await fetch(`${fx.service().base}/api/reports.php?id=${report.id}`, { headers: auth() })).json()) as {
      status: string;
    };
    assert.equal(detail.status, 'draft', 'no killed finalize made the report final');
    assert.deepEqual(officeRows(), { movements: 0, settled: 0, interventions: 0, invoices: 0 }, 'nothing of a killed finalize in Dolibarr');
    const workArea = path.join(fx.dataRoot, 'bericht', report.ref);
    const pdfs = () =>
      readdirSync(workArea, { withFileTypes: true })
        .filter((e) => e.isFile() && e.name.endsWith('.pdf'))
        .map((e) => e.name);
    assert.deepEqual(pdfs(), [], 'no PDF without its finalize');
    assert.deepEqual(
      fx.query('select filename from llx_ecm_files where filepath = ?', `bericht/${report.ref}`),
      [],
      'no row without its PDF',
    );

    assert.deepEqual(
      walk(fx.dataRoot).filter((f) => f.endsWith('.tmp')),
      [],
      'no temporary file in the documents folder',
    );
    // The running service may be at its renderer's warm-up (1.5 s after it listens) while this looks:
    // that folder is its own, alive. What the killed runs left must be gone.
    const live = `-${fx.service().child.pid}-`;
    assert.deepEqual(
      readdirSync(fx.tmp).filter((name) => name.startsWith('fieldreport-') && !name.includes(live)),
      [],
      'no working folder of a killed run in TMPDIR',
    );
    assert.equal(fx.query<{ n: number }>('select count(*) as n from llx_bericht_file_intent')[0]!.n, 0, 'every intent settled');
    // Markers of killed runs stay for some hours (a late retry still learns its run died); each names a dead process.
    const runsDir = path.join(fx.dataRoot, 'bericht', 'temp', 'runs');
    const markers = readdirSync(runsDir).map((name) => JSON.parse(readFileSync(path.join(runsDir, name), 'utf8')) as { pid: number });
    assert.equal(markers.length, 1 + KILLS, 'one marker per run');
    assert.deepEqual(
      markers.filter((m) => m.pid !== fx.service().child.pid && pidAlive(m.pid)).map((m) => m.pid),
      [],
      'no other marker names a live process',
    );
    // coreutils' timeout is there, so a LibreOffice cannot outlive a killed service by more than its time limit.
    assert.doesNotThrow(() => execFileSync('timeout', ['--version']));

    const done = await fetch(`${fx.service().base}/api/reports.php?id=${report.id}&action=finalize`, { method: 'POST', headers: auth() });
    assert.equal(done.status, 200, await done.clone().text());
    const rows = fx
      .query<{ filename: string }>('select filename from llx_ecm_files where filepath = ?', `bericht/${report.ref}`)
      .map((r) => r.filename);
    assert.deepEqual(rows, pdfs(), 'the PDF and its row, once');
    const lines = fx.query<{ n: number }>(
      'select count(*) as n from llx_bericht_material where fk_element = ? and element_type = ?',
      fk_element,
      element_type,
    )[0]!.n;
    assert.deepEqual(
      officeRows(),
      { movements: 1, settled: lines, interventions: 1, invoices: 1 },
      'one movement, one intervention, one draft invoice',
    );
    // A finalize repeated after its answer was lost is refused, and adds nothing.
    const again = await fetch(`${fx.service().base}/api/reports.php?id=${report.id}&action=finalize`, { method: 'POST', headers: auth() });
    assert.equal(again.status, 409);
    assert.deepEqual(officeRows(), { movements: 1, settled: lines, interventions: 1, invoices: 1 });
  });
});
