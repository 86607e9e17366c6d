/**
 * Finalizing a report that is not complete, on every database: the PDF's summary says what it
 * lacked when finalized (checklist items not checked, someone still on site, no signature, pages
 * after the signature), each with the technician's reason from the finalize body or "ohne
 * Begründung"; a preview lists the same as a reminder. A reason the customer's sign-off already
 * printed with the same words is not printed twice; a reason for something not missing is not
 * printed. A malformed body is a clear 400 naming the field (413 when huge), and the report stays a
 * draft with no file; another user's report is 404 whatever the body.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { objectFolder } from '../../src/dolibarr/documents.js';
import { MAX_MISSING_REASON } from '../../src/modules/signatures/signoff.js';
import { assertError } from '../helpers/assertions.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { type Caller, testClient } from '../helpers/client.js';
import { testDialects } from '../helpers/databases.js';
import { pdfText, pdfToolsMissing } from '../helpers/pdf-tools.js';
import { assertPdfA1b } from '../helpers/pdfa.js';

const ITEMS = [{ label: 'Sichtprüfung Kessel' }, { label: 'Abgasverlust', unit: '%', upper: 10 }, { label: 'Kondensatpumpe' }];
const OPEN_REASON = 'Kessel außer Betrieb, Prüfung beim nächsten Termin';
const STAY_REASON = 'Techniker bleibt für die Nachtschicht vor Ort';

/** pdftotext's lines joined by one space, so a line the PDF wraps reads whole. */
const flat = (text: string) => text.replace(/\s+/g, ' ');

for (const dialect of testDialects()) {
  describe(`finalizing what is not complete [${dialect}]`, { skip: pdfToolsMissing }, () => {
    let ctx: TestContext;
    let me: Caller;
    let scratch: string;
    before(async () => {
      ctx = await createTestContext(dialect);
      me = await caller();
      scratch = await mkdtemp(path.join(os.tmpdir(), 'fr-finalize-missing-'));
    });
    after(async () => {
      await ctx?.close();
      if (scratch) await rm(scratch, { recursive: true, force: true });
    });

    const { caller, api, json, newReport, addPage, sign } = testClient(() => ctx);

    /** A draft with a checklist whose three items are not checked, and an arrival without departure. */
    async function openVisit() {
      const order = await ctx.make.order({ author: me.id });
      const report: { id: number; ref: string } = await newReport(me, order.id);
      await addPage(me, report.id, { layout: 'checklist', title: 'Wartung', checklist: ITEMS });
      await json('POST', '/api/times.php?action=arrive', me, {
        element_type: 'commande',
        fk_element: order.id,
        at: Math.floor(Date.now() / 1000) - 1800,
      });
      return { ...report, order };
    }
    const finalize = (id: number, body?: unknown, who: Caller = me) => api('POST', `/api/reports.php?action=finalize&id=${id}`, who, body);
    const finalPdf = (ref: string) => path.join(objectFolder(ctx.config.dataRoot, ctx.config.entity, 'bericht', ref).dir, `${ref}.pdf`);
    async function previewText(id: number): Promise<string> {
      const res = await api('GET', `/api/pdf.php?id=${id}&preview=1`, me);
      assert.equal(res.statusCode, 200, res.body);
      const file = path.join(scratch, `preview-${id}.pdf`);
      await writeFile(file, res.rawPayload);
      return flat(await pdfText(file));
    }

    test('the preview reminds of what is missing; the final PDF prints each with its reason or "ohne Begründung"', async (t) => {
      const v = await openVisit();
      const preview = await previewText(v.id);
      assert.match(
        preview,
        /Noch offen \(vor dem Abschluss zu erledigen oder zu begründen\): 3 Prüfpunkte nicht geprüft Abfahrt nicht erfasst nicht unterschrieben/,
      );
      assert.doesNotMatch(preview, /Beim Abschluss/);

      const res = await finalize(v.id, {
        missing: [
          { what: 'open_items', reason: `  ${OPEN_REASON} ` },
          { what: 'no_departure', reason: STAY_REASON },
          // Not missing: a report without a signature page has no pages after one.
          { what: 'pages_after_signature', reason: 'nichts' },
        ],
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().status, 'final');
      const text = flat(await pdfText(finalPdf(v.ref)));
      assert.ok(
        text.includes(
          `Beim Abschluss noch offen: 3 Prüfpunkte nicht geprüft – Grund: ${OPEN_REASON} Abfahrt nicht erfasst – Grund: ${STAY_REASON} nicht unterschrieben – ohne Begründung`,
        ),
        text,
      );
      assert.doesNotMatch(text, /Seiten nach der Unterschrift|Grund: nichts|Noch offen \(/);
      await assertPdfA1b(t, finalPdf(v.ref));
    });

    test('a complete report prints nothing missing; a signed one with a page after it says so, and a reason given at signing is not repeated', async () => {
      // Complete: every item answered, departure recorded, signed last.
      const order = await ctx.make.order({ author: me.id });
      const done: { id: number; ref: string } = await newReport(me, order.id);
      await addPage(me, done.id, { title: 'Wartung', note: 'Brenner gereinigt' });
      assert.equal((await sign(me, done.id)).statusCode, 201);
      assert.doesNotMatch(await previewText(done.id), /Noch offen/);
      assert.equal((await finalize(done.id)).statusCode, 200);
      assert.doesNotMatch(flat(await pdfText(finalPdf(done.ref))), /noch offen|Noch offen/);

      // Signed with the open items explained at signing, a photo note added after it; finalized with the same reason.
      const v = await openVisit();
      await json('POST', '/api/times.php?action=leave', me, { element_type: 'commande', fk_element: v.order.id });
      const signoff = {
        work: null,
        times: [],
        materials: [],
        checklist: { items: 3, ok: 0, defects: 0, na: 0, open: 3, outside_limits: 0 },
        pages: 1,
        photos: 0,
        missing: [{ what: 'open_items', reason: OPEN_REASON }],
      };
      const signed = await sign(me, v.id, {
        fields: { signoff: { filename: 'signoff.json', type: 'application/json', data: Buffer.from(JSON.stringify(signoff)) } },
      });
      assert.equal(signed.statusCode, 201, signed.body);
      await addPage(me, v.id, { title: 'Nachtrag', note: 'Ersatzteil bestellt' });
      const res = await finalize(v.id, {
        missing: [
          { what: 'open_items', reason: OPEN_REASON },
          { what: 'pages_after_signature', reason: 'Nachtrag nach Abfahrt des Kunden' },
        ],
      });
      assert.equal(res.statusCode, 200, res.body);
      const text = flat(await pdfText(finalPdf(v.ref)));
      assert.ok(text.includes(`Bei der Unterschrift noch offen: Prüfpunkte nicht geprüft – Grund: ${OPEN_REASON}`), text);
      assert.ok(text.includes('Beim Abschluss noch offen: Seiten nach der Unterschrift – Grund: Nachtrag nach Abfahrt des Kunden'), text);
      assert.equal(text.split(OPEN_REASON).length - 1, 1, 'the reason given at signing is printed once');
    });

    test('a malformed body is a 400 naming the field and leaves a draft without a file; a huge one is 413; a foreign report is 404', async () => {
      const v = await openVisit();
      const cases: Array<[string, unknown, string]> = [
        ['a list for the body', [{ what: 'open_items', reason: 'x' }], 'body'],
        ['missing as text', { missing: 'alles' }, 'body.missing'],
        ['an unknown kind', { missing: [{ what: 'no_coffee', reason: 'x' }] }, 'body.missing.0.what'],
        ['no reason', { missing: [{ what: 'open_items' }] }, 'body.missing.0.reason'],
        ['a reason of spaces', { missing: [{ what: 'open_items', reason: '   ' }] }, 'body.missing.0.reason'],
        ['a reason too long', { missing: [{ what: 'open_items', reason: 'x'.repeat(MAX_MISSING_REASON + 1) }] }, 'body.missing.0.reason'],
        ['a control character', { missing: [{ what: 'open_items', reason: 'ok\u001b[2J' }] }, 'body.missing.0.reason'],
        ['a reason as a number', { missing: [{ what: 'open_items', reason: 5 }] }, 'body.missing.0.reason'],
        ['an unknown field', { missing: [{ what: 'open_items', reason: 'x', by: 'me' }] }, 'body.missing.0.by'],
        ['an unknown field at the top', { reasons: [] }, 'body.reasons'],
        [
          'a kind twice',
          {
            missing: [
              { what: 'open_items', reason: 'a' },
              { what: 'open_items', reason: 'b' },
            ],
          },
          'body.missing.1.what',
        ],
      ];
      for (const [label, body, field] of cases) {
        const res = await finalize(v.id, body);
        const error = assertError(res, 400, 'VALIDATION_FAILED');
        const fields = ((error.details ?? []) as Array<{ field: string }>).map((d) => d.field);
        assert.ok(fields.includes(field), `${label}: ${field} named in ${JSON.stringify(error)}`);
      }
      const huge = await ctx.app.inject({
        method: 'POST',
        url: `/api/reports.php?action=finalize&id=${v.id}`,
        headers: { ...me.headers, 'content-type': 'application/json' },
        payload: JSON.stringify({ missing: [{ what: 'open_items', reason: 'y'.repeat(2 * 1024 * 1024) }] }),
      });
      assertError(huge, 413, 'BODY_TOO_LARGE');
      const other = await caller();
      assertError(await finalize(v.id, { missing: [{ what: 'open_items', reason: 'fremd' }] }, other), 404, 'REPORT_NOT_FOUND');
      const report = await json<{ status: string }>('GET', `/api/reports.php?id=${v.id}`, me);
      assert.equal(report.status, 'draft');
      assert.equal(existsSync(finalPdf(v.ref)), false);
      // Then a good one goes through.
      assert.equal((await finalize(v.id, { missing: [{ what: 'open_items', reason: OPEN_REASON }] })).statusCode, 200);
    });
  });
}
