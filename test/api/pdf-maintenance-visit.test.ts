/**
 * The demo's maintenance visit as the customer reads it (maintenance-visit.ts: the template
 * *Wartung Gasheizung*, 7 photos, one defect, a value above its limit accepted with a reason, time
 * on site, 4 material lines, a signature with its sign-off, the demo's cover sheet): at most 5
 * sheets, no sheet but the last under half full, the checklist printed once, one evidence sheet
 * without shell commands or JSON, long photo titles whole, the template's prompt not printed; PDF/A-1b
 * by Apache PDFBox Preflight. The sheets shown in the README are this file at `pdftoppm -r 50`
 * (KEEP_PDF=<folder> keeps it as maintenance-visit.pdf).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createLibreOffice } from '../../src/adapters/libreoffice.js';
import { seedDemo } from '../../src/demo/seed.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import {
  makeMaintenanceVisit,
  ok,
  VISIT_DEFECT,
  VISIT_DEFECT_NOTE,
  VISIT_OK_REASON,
  VISIT_SIGNER,
  VISIT_UPLOADS,
  type VisitCall,
} from '../helpers/maintenance-visit.js';
import { pdfInfo, pdfText, pdfToolsMissing, poppler } from '../helpers/pdf-tools.js';
import { assertPdfA1b } from '../helpers/pdfa.js';

describe('the demo maintenance visit as the customer reads it [sqlite]', { skip: pdfToolsMissing }, () => {
  let ctx: TestContext;
  let tmp: string;
  before(async () => {
    ctx = await createTestContext('sqlite');
    await seedDemo(ctx.handle, ctx.config);
    tmp = await mkdtemp(path.join(os.tmpdir(), 'fieldreport-maintenance-pdf-'));
  });
  after(async () => {
    await ctx?.close();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  const send =
    (token: string | null): VisitCall =>
    async ({ method, url, json, form }) => {
      const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
      if (form) headers['content-type'] = form.contentType;
      const res = await ctx.app.inject({ method, url, headers, payload: form ? form.payload : (json as object | undefined) });
      return { status: res.statusCode, body: res.rawPayload };
    };

  test('at most 5 sheets, none but the last under half full, the checklist once, one evidence sheet for a customer, PDF/A-1b', async (t) => {
    if (!(await createLibreOffice().available())) return t.skip('LibreOffice (soffice) is not installed');
    const visit = await makeMaintenanceVisit(send);
    const call = send(visit.token);
    await ok(call, 'POST', `/api/reports.php?id=${visit.reportId}&action=finalize`, {});
    const file = path.join(process.env.KEEP_PDF ?? tmp, 'maintenance-visit.pdf');
    await writeFile(file, (await call({ method: 'GET', url: `/api/pdf.php?id=${visit.reportId}` })).body);

    const sheets = (await pdfInfo(file)).pages;
    const text = await pdfText(file);
    const pages = text.split('\f').slice(0, sheets);
    assert.ok(sheets <= 5, `${sheets} sheets:\n${pages.map((p, i) => `--- ${i + 1}\n${p.slice(0, 300)}`).join('\n')}`);
    // How full each sheet is: the lowest drawn line (pdftotext -bbox), against the body's height.
    const fill = await sheetFill(file);
    for (const [i, f] of fill.slice(0, -1).entries()) assert.ok(f >= 0.5, `sheet ${i + 1} is ${Math.round(f * 100)} % full`);
    const flat = text.replace(/\s+/g, ' ');
    // The checklist once: its defect's note in the summary, and every item once.
    assert.equal(flat.split('Zünd- und Ionisationselektrode geprüft').length - 1, 1, 'every checklist item printed once');
    assert.ok(flat.includes(VISIT_DEFECT_NOTE), 'the defect with its note');
    assert.ok(flat.includes(VISIT_OK_REASON), 'the reason for the value above its limit');
    assert.ok(flat.includes(VISIT_DEFECT), 'the defect item');
    // The template's prompt is no text of the technician.
    assert.ok(!flat.includes('Verschleißteile, empfohlene Arbeiten'), "the template's prompt is not printed");
    // Long titles whole.
    for (const [, , title] of VISIT_UPLOADS) assert.ok(flat.includes(title), `the title "${title}" whole`);
    // One evidence sheet, the last, without shell commands or JSON.
    const evidence = pages.findIndex((p) => p.includes('Nachweisblatt'));
    assert.equal(evidence, sheets - 1, 'the evidence sheet is the last one');
    for (const marker of ['openssl', 'pdfsig', 'sha256sum', '{"', '$ '])
      assert.ok(!pages[evidence]!.includes(marker), `no "${marker}" on the evidence sheet`);
    assert.ok(flat.includes(VISIT_SIGNER));
    // Every printed time names its zone (the test runs in the process's zone, UTC here or another).
    assert.match(flat, /Zeit vor Ort \d{2}\.\d{2}\.\d{4}, \d{2}:\d{2} – \d{2}:\d{2} [A-Z][\w+-]* /, 'time on site with its zone');
    await assertPdfA1b(t, file, 'the demo maintenance visit');
  });

  /** Per sheet, the lowest text line's bottom as a share of the sheet's body (30 mm top, 16 mm bottom margin). */
  async function sheetFill(file: string): Promise<number[]> {
    const html = await poppler('pdftotext', ['-bbox', file, '-']);
    const pages = html.split('<page ').slice(1);
    return pages.map((page) => {
      const height = Number(/height="([\d.]+)"/.exec(page)?.[1]);
      const mmPt = 72 / 25.4;
      const top = 30 * mmPt;
      const bottom = height - 16 * mmPt;
      // The footer ("Seite x / y") sits in the bottom margin and does not count.
      const ys = [...page.matchAll(/yMax="([\d.]+)"/g)].map((m) => Number(m[1])).filter((y) => y <= bottom);
      const images = [...page.matchAll(/<image[^>]*yMax="([\d.]+)"/g)].map((m) => Number(m[1]));
      const lowest = Math.max(top, ...ys, ...images.filter((y) => y <= bottom));
      return (lowest - top) / (bottom - top);
    });
  }
});
