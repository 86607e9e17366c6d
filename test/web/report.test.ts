/**
 * The whole visit in Chromium at a phone's viewport with touch, against the real service on SQLite,
 * checked through the API and the PDF the service then serves: log in, take three photos, create a
 * report from a template, add a photo page, a before/after page and a title page, edit a note,
 * turn a photo, drag the last page to the front with a finger, sign on the pad with finger strokes,
 * finalize. The PDF's page count, its pages in the new order (the title page's text first) and the
 * signature page are read from the PDF itself (pdftotext). The same walk with the phone offline from
 * the report step to the signature ends, once online again, in the same PDF. A page edit refused
 * because the report was finalized in another tab shows its reason, and what was queued after it
 * still arrives. axe-core and screenshots on the report, page, signature and PDF screens.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PDFDocument } from 'pdf-lib';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import sharp from 'sharp';
import { objectFolder } from '../../src/dolibarr/documents.js';
import { pdfBytesText } from '../helpers/pdf-tools.js';
import {
  apiToken,
  cachedRead,
  finger,
  goOffline,
  outboxRecords,
  untilOfflineReady,
  goOnline,
  assertAccessible,
  assertPhoneFriendly,
  logIn,
  orderByRef,
  phone,
  screenshot,
  skipReason,
  startWorld,
  type AppWorld,
  until,
} from '../helpers/browser.js';

const skip = skipReason() ?? (existsSync('/usr/bin/pdftotext') ? undefined : 'pdftotext not installed (Debian package poppler-utils)');
const REF = 'CO2611-0009';
const OTHER_REF = 'CO2610-0007';
const SIGNER = 'Erika Musterfrau';
const CLOSING = 'Abschluss und Übergabe';
const NOTE = 'Brennkammer vor der Reinigung';
/** Why the report is finalized with its checklist not answered. */
const FINAL_REASON = 'Prüfung folgt beim Wartungstermin im Frühjahr';
/** The demo's report template (src/demo/seed.ts), chosen by its label. */
const TEMPLATE_LABEL = 'Wartung Gasheizung';

interface TemplatePage {
  layout: string;
  title: string;
  note: string | null;
}

interface Walked {
  reportId: number;
  pdf: Buffer;
}

describe('app: a report from photos to the signed PDF in Chromium [sqlite]', { skip }, () => {
  let world: AppWorld;
  let scratch: string;
  /** The demo template's title and its pages (a checklist, then a title page), as the database holds them. */
  let template: { id: number; title: string; pages: TemplatePage[] };

  before(async () => {
    world = await startWorld();
    scratch = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-report-'));
    const db = world.ctx.handle.db;
    const row = await db
      .selectFrom('bericht')
      .select(['rowid', 'title'])
      .where('is_template', '=', 1)
      .where('template_label', '=', TEMPLATE_LABEL)
      .executeTakeFirstOrThrow();
    const pages = await db
      .selectFrom('bericht_page')
      .select(['title', 'note', 'layout'])
      .where('fk_bericht', '=', row.rowid)
      .orderBy('page_order')
      .execute();
    assert.ok(
      pages.length >= 2 && pages.every((p) => ['checklist', 'title_only'].includes(p.layout) && p.title),
      `the demo template: a checklist and title pages ${JSON.stringify(pages)}`,
    );
    assert.equal(pages[0]!.layout, 'checklist');
    template = { id: row.rowid, title: row.title!, pages: pages.map((p) => ({ layout: p.layout, title: p.title!, note: p.note })) };
  });
  after(async () => {
    await world?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  async function api(url: string, init: { method?: 'GET' | 'POST'; payload?: unknown } = {}) {
    const res = await world.ctx.app.inject({
      url,
      method: init.method ?? 'GET',
      ...(init.payload ? { payload: init.payload as object } : {}),
      headers: { authorization: `Bearer ${await apiToken(world)}` },
    });
    assert.ok(res.statusCode < 300, `${url}: ${res.statusCode} ${res.body}`);
    return res;
  }
  const folderOf = (ref: string) => objectFolder(world.ctx.config.dataRoot, world.ctx.config.entity, 'commande', ref).dir;
  const photosIn = (ref: string) => (existsSync(folderOf(ref)) ? readdirSync(folderOf(ref)).filter((f) => f.endsWith('.jpg')) : []);

  async function photo(name: string, background: string) {
    const file = path.join(scratch, name);
    await sharp({ create: { width: 1600, height: 1200, channels: 3, background } })
      .jpeg({ quality: 80 })
      .toFile(file);
    return file;
  }

  /**
   * Drags the row at `from` with a finger on its handle up to `to`. A list taller than the screen
   * (the rows grow while they wait for the network) is done in strokes that each stay on the
   * screen: the row in the middle, dropped on the highest row visible below the app bar, again.
   */
  async function dragUp(page: Page, rows: Locator, from: number, to: number) {
    const appBar = (await page.locator('header.topbar').boundingBox())?.height ?? 0;
    for (let at = from; at > to; ) {
      const handle = rows.nth(at).locator('.handle');
      await handle.evaluate((el) => el.scrollIntoView({ block: 'center' }));
      await page.waitForTimeout(300);
      let target = at - 1;
      for (let i = to; i < at; i++) {
        if ((await rows.nth(i).boundingBox())!.y >= appBar + 4) {
          target = i;
          break;
        }
      }
      const a = (await handle.boundingBox())!;
      const b = (await rows.nth(target).boundingBox())!;
      const x = a.x + a.width / 2;
      const start = a.y + a.height / 2;
      const end = b.y + 4;
      await finger(
        page,
        Array.from({ length: 16 }, (_, i) => ({ x, y: start + ((end - start) * i) / 15 })),
      );
      at = target;
      await page.waitForTimeout(300);
    }
  }

  async function strokes(page: Page, pad: Locator) {
    const box = (await pad.boundingBox())!;
    const at = (fx: number, fy: number) => ({ x: box.x + box.width * fx, y: box.y + box.height * fy });
    await finger(
      page,
      Array.from({ length: 20 }, (_, i) => at(0.15 + i * 0.03, 0.5 + Math.sin(i / 2) * 0.15)),
    );
    await finger(
      page,
      Array.from({ length: 12 }, (_, i) => at(0.55 + i * 0.02, 0.35 + i * 0.03)),
    );
  }

  const pdfPages = async (pdf: Buffer) => (await PDFDocument.load(pdf)).getPageCount();
  /** `text` as a pattern whose words may be parted by any white space (a title may wrap). */
  const words = (text: string) =>
    new RegExp(
      text
        .split(/\s+/)
        .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('\\s+'),
    );

  /** The visit on one order; `offline`: without network from the report step until after the signature. */
  async function walk(
    page: Page,
    context: BrowserContext,
    ref: string,
    prefix: string,
    options: { offline?: boolean; shots?: boolean } = {},
  ): Promise<Walked> {
    const files = [
      await photo(`${prefix}-1.jpg`, '#b03a2e'),
      await photo(`${prefix}-2.jpg`, '#1f618d'),
      await photo(`${prefix}-3.jpg`, '#1e8449'),
    ];
    const before = photosIn(ref).length;
    // What the page said, for a failure's message.
    const said: string[] = [];
    page.on('console', (message) => said.push(`${message.type()}: ${message.text()}`));
    page.on('pageerror', (error) => said.push(`pageerror: ${String(error)}`));
    page.on('framenavigated', (frame) => frame === page.mainFrame() && said.push(`navigated: ${frame.url()}`));
    await logIn(page);
    await page.getByRole('link', { name: new RegExp(ref) }).click();
    await page.getByRole('heading', { name: /^Fotos/ }).waitFor();
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Foto', exact: true }).click();
    await (await chooser).setFiles(files);
    await until('three photos in the order folder', () => photosIn(ref).length === before + 3);
    await until('the photos shown as arrived', async () => (await page.locator('.pending').count()) === 0);
    // Offline, the report screen comes from the service worker's cache, and the report's pages from
    // the template the phone kept when the order was opened.
    if (options.offline) {
      await untilOfflineReady(page);
      await until('the template kept on the phone', async () => (await cachedRead(page, `report:${template.id}`)) !== undefined);
      await goOffline(context);
    }

    // A report from the template, without the photos as pages (they are added one by one below).
    await page.getByRole('button', { name: 'Neuer Bericht' }).click();
    const dialog = page.getByRole('dialog', { name: 'Neuer Bericht' });
    const steps = template.pages.length;
    await dialog.getByLabel('Vorlage').selectOption({ label: `${TEMPLATE_LABEL} (${steps} Seiten)` });
    await dialog.getByText(/Alle \d+ Fotos/).click();
    await dialog.getByRole('button', { name: 'Anlegen' }).click();
    const pages = page.locator('ol.pages > li');
    await until(
      'the template pages',
      async () => (await pages.count()) === steps,
      30_000,
      async () => ({
        url: page.url(),
        pages: await pages.allInnerTexts(),
        outbox: await outboxRecords(page).catch(String),
        screen: await page.locator('body').innerText({ timeout: 2000 }).catch(String),
        console: said,
      }),
    );

    // A photo page, a before/after page, a title page.
    await page.getByRole('button', { name: 'Fotos', exact: true }).click();
    let picker = page.getByRole('dialog', { name: 'Fotos für Seiten wählen' });
    await picker.getByRole('button', { name: `${prefix}-1.jpg` }).click();
    await picker.getByRole('button', { name: '1 Seite hinzufügen' }).click();
    await page.getByRole('button', { name: 'Vorher/Nachher' }).click();
    picker = page.getByRole('dialog', { name: /Vorher-, dann das Nachher/ });
    // Each photo shows its name; the one a page shows already says so.
    await picker.getByRole('button', { name: new RegExp(`^${prefix}-1\\.jpg\\s*schon im Bericht$`) }).waitFor();
    await picker.getByText(`${prefix}-2.jpg`, { exact: true }).waitFor();
    assert.equal(await picker.getByRole('button', { name: `${prefix}-2.jpg`, exact: true }).count(), 1, 'a photo not used is not marked');
    await picker.getByRole('button', { name: `${prefix}-2.jpg` }).click();
    await picker.getByRole('button', { name: `${prefix}-3.jpg` }).click();
    if (options.shots) {
      await assertAccessible(page, 'photo picker');
      await screenshot(page, 'report-picker');
    }
    await picker.getByRole('button', { name: 'Seite hinzufügen' }).click();
    await page.getByRole('button', { name: 'Titelseite' }).click();
    const titleDialog = page.getByRole('dialog', { name: 'Titelseite' });
    await titleDialog.getByLabel('Titel').fill(CLOSING);
    await titleDialog.getByRole('button', { name: 'Hinzufügen' }).click();
    await until('three pages more', async () => (await pages.count()) === steps + 3);

    // The photo page: a note, turned by 90°.
    await page.getByRole('link', { name: new RegExp(`^Seite ${steps + 1} Foto · ${prefix}-1\\.jpg`) }).click();
    await page.getByLabel('Notiz').fill(NOTE);
    await page.getByRole('button', { name: 'Drehen 90°' }).click();
    if (options.shots) {
      await assertAccessible(page, 'page editor');
      await assertPhoneFriendly(page, 'page editor');
      await screenshot(page, 'report-page');
    }
    await page.getByRole('button', { name: 'Speichern' }).click();
    await page.getByRole('heading', { name: /^\d+ Seiten$/ }).waitFor();

    // The last page to the front, with a finger on its handle.
    await dragUp(page, pages, steps + 2, 0);
    await until('the title page first', async () => ((await pages.nth(0).textContent()) ?? '').includes(CLOSING));
    const shown = (await pages.allTextContents()).map((t) => t.replace(/\s+/g, ' '));
    assert.match(shown[1]!, new RegExp(template.pages[0]!.title), shown.join(' | '));
    assert.match(shown[steps + 1]!, new RegExp(NOTE));
    if (options.shots) {
      await assertAccessible(page, 'report');
      await assertPhoneFriendly(page, 'report');
      await page.evaluate('window.scrollTo(0, 0)');
      await screenshot(page, 'report');
    }

    // The customer signs.
    await page.getByRole('button', { name: 'Unterschrift' }).click();
    // First what the customer confirms, then the pad: the template's checklist is not answered, which needs a reason.
    await page.getByLabel(/Prüfpunkte? (ist|sind) nicht geprüft/).fill('Prüfung folgt beim nächsten Termin');
    await page.getByRole('button', { name: 'Bestätigen und unterschreiben' }).click();
    await page.getByLabel('Name der unterschreibenden Person').fill(SIGNER);
    const pad = page.locator('canvas');
    await pad.waitFor();
    await page.waitForTimeout(300);
    await strokes(page, pad);
    if (options.shots) {
      await assertAccessible(page, 'signature');
      await screenshot(page, 'report-signature');
    }
    await page.getByRole('button', { name: 'Unterschreiben' }).click();
    if (options.offline) {
      await page.getByText('wird gesendet, sobald Netz da ist').waitFor();
      if (options.shots) await screenshot(page, 'report-signed-offline');
      await goOnline(context);
    }
    await page.getByText('Unterschrift gültig').waitFor({ timeout: 60_000 });
    assert.match((await page.locator('.url a').textContent()) ?? '', /\/public\/verify_signature\.php\?/);
    if (options.shots) {
      await assertAccessible(page, 'signature checked');
      await screenshot(page, 'report-signed');
    }

    // The PDF: preview, finalize, then share/download.
    await page.getByRole('button', { name: 'PDF & Abschluss' }).click();
    await page.getByRole('img', { name: /^Seite 1 von \d+$/ }).waitFor({ timeout: 60_000 });
    if (options.shots) {
      await assertAccessible(page, 'pdf preview');
      await screenshot(page, 'report-preview');
    }
    await page.getByRole('button', { name: 'Abschließen' }).click();
    // The checklist is still not answered: finalizing it needs a reason again, which the PDF prints.
    const confirm = page.getByRole('dialog', { name: 'Bericht endgültig abschließen?' });
    const final = confirm.getByRole('button', { name: 'Endgültig abschließen' });
    await confirm.getByText('Bitte zu jedem offenen Punkt einen Grund angeben.').waitFor();
    assert.equal(await final.isDisabled(), true, 'no finalizing before the reason');
    assert.equal(
      await confirm.getByLabel(/nicht unterschrieben|nach der Unterschrift|Abfahrt/).count(),
      0,
      'signed last, no time on site open',
    );
    if (options.shots) {
      await assertAccessible(page, 'finalize with a reason');
      await screenshot(page, 'report-finalize-reason');
    }
    await confirm.getByLabel(/Prüfpunkte? (ist|sind) nicht geprüft/).fill(FINAL_REASON);
    await final.click();
    await page.getByText(/ist abgeschlossen\./).waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Herunterladen' }).waitFor();
    await page.getByRole('img', { name: /^Seite 1 von \d+$/ }).waitFor({ timeout: 60_000 });
    if (options.shots) {
      await assertAccessible(page, 'pdf final');
      await assertPhoneFriendly(page, 'pdf final');
      await screenshot(page, 'report-final');
    }
    const order = await orderByRef(world, ref);
    const reports = (await api(`/api/reports.php?element_type=commande&fk_element=${order.id}&status=final`)).json() as {
      items: { id: number; title: string }[];
    };
    const report = reports.items.find((r) => r.title === template.title);
    assert.ok(report, 'the finalized report is listed');
    const pdf = (await api(`/api/pdf.php?id=${report.id}`)).rawPayload;
    return { reportId: report.id, pdf };
  }

  function normalized(pdf: Buffer, n: number) {
    // Refs, dates, times, hashes and the order's photos' names differ between two walks; the words stay.
    // A hash on the signature sheet may wrap: its last letters on the next line go with it.
    return pdfBytesText(pdf, scratch, n)
      .replace(/\b[0-9a-f]{16,}\s*[0-9a-f]*\b/g, ' ')
      .split(/\s+/)
      .filter((word) => word && !/\d/.test(word) && !/^(online|offline)-/.test(word))
      .join(' ');
  }

  let online: Walked;

  test('the whole visit: photos, report from a template, pages, note, turn, drag, signature, finalize; the PDF is checked', async () => {
    const { page, context, errors } = await phone(world);
    online = await walk(page, context, REF, 'online', { shots: true });
    const steps = template.pages.length;

    const detail = (await api(`/api/reports.php?id=${online.reportId}`)).json() as {
      status: string;
      pages: {
        layout: string;
        title: string | null;
        note: string | null;
        prompt: string | null;
        rotation: number;
        source_path: string | null;
        source_path_2: string | null;
      }[];
    };
    assert.equal(detail.status, 'final');
    const signature = detail.pages[steps + 3]!;
    assert.deepEqual(
      detail.pages.map((p) => [
        p.layout,
        p.title,
        p.note,
        p.prompt,
        p.rotation,
        p.source_path && path.basename(p.source_path),
        p.source_path_2 && path.basename(p.source_path_2),
      ]),
      [
        ['title_only', CLOSING, null, null, 0, null, null],
        // The template's notes are the pages' prompts: nobody wrote a note there.
        ...template.pages.map((p) => [p.layout, p.title, null, p.note, 0, null, null]),
        ['photo', null, NOTE, null, 90, 'online-1.jpg', null],
        ['before_after', null, null, null, 0, 'online-2.jpg', 'online-3.jpg'],
        ['signature', 'Unterschrift', signature.note, null, 0, signature.source_path && path.basename(signature.source_path), null],
      ],
    );
    assert.match(signature.note ?? '', new RegExp(SIGNER));

    // 4 to a sheet (the template's choice): the summary, the headings with the photo and the pair, the
    // signature and the evidence flow on; no cover sheet in the template.
    const sheets = await pdfPages(online.pdf);
    assert.ok(sheets >= 2 && sheets <= steps + 5, `${sheets} sheets for ${steps + 4} pages`);
    const all = Array.from({ length: sheets }, (_, i) => pdfBytesText(online.pdf, scratch, i + 1)).join('\n');
    const signatureAt = all.search(/Unterzeichner/);
    const evidenceAt = all.search(/Nachweisblatt/);
    assert.ok(signatureAt > 0 && evidenceAt > signatureAt, 'the signature, then the evidence, at the end');
    assert.match(all.slice(0, signatureAt), new RegExp(`Zusammenfassung[\\s\\S]*Unterschrift[\\s\\S]*${SIGNER}`));
    const body = all.slice(all.search(/Zusammenfassung/), signatureAt);
    let rest = body.slice(body.search(new RegExp(CLOSING)));
    assert.ok(rest.length > 0, `the body starts with ${CLOSING}`);
    for (const step of template.pages) {
      const at = rest.search(words(step.title));
      assert.ok(at >= 0, `${step.title} follows in order`);
      rest = rest.slice(at);
    }
    assert.match(rest, new RegExp(`${NOTE}[\\s\\S]*Vorher[\\s\\S]*Nachher`));
    assert.match(all.slice(signatureAt, evidenceAt), new RegExp(`Unterzeichner[\\s\\S]*${SIGNER}`));
    // What was still missing: at signing and at finalizing, each with its reason.
    assert.match(all.replace(/\s+/g, ' '), new RegExp(`Beim Abschluss noch offen: \\d+ Prüfpunkte nicht geprüft – Grund: ${FINAL_REASON}`));
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('the same walk offline from the report step to the signature ends in the same PDF', async () => {
    assert.ok(online, 'needs the online walk');
    const { page, context, errors } = await phone(world);
    const offline = await walk(page, context, REF, 'offline', { offline: true, shots: false });
    assert.notEqual(offline.reportId, online.reportId);
    assert.equal(await pdfPages(offline.pdf), await pdfPages(online.pdf));
    // The evidence at the end records how each report came about (online a page was turned after it
    // was added, offline it arrived turned): up to it, and from its checksums on, it reads the same.
    const sheets = await pdfPages(online.pdf);
    const whole = (pdf: Buffer) => Array.from({ length: sheets }, (_, i) => normalized(pdf, i + 1)).join(' ');
    const report = (pdf: Buffer) => whole(pdf).replace(/Nachweisblatt[\s\S]*$/, '');
    const checksums = (pdf: Buffer) => whole(pdf).replace(/^[\s\S]*?(?=Prüfsummen)/, '');
    for (const pdf of [online.pdf, offline.pdf]) assert.match(whole(pdf), /Nachweisblatt[\s\S]*Prüfsummen/, 'the evidence at the end');
    assert.equal(report(offline.pdf), report(online.pdf), 'the report reads the same');
    assert.equal(checksums(offline.pdf), checksums(online.pdf), 'the evidence reads the same from its checksums on');
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('"Neue Version" of a final report asks first and says what it keeps; cancelled nothing is made, confirmed a draft without the signature', async () => {
    assert.ok(online, 'needs the online walk');
    const { page, context, errors } = await phone(world);
    await logIn(page);
    const versions = async () =>
      ((await api(`/api/reports.php?id=${online.reportId}`)).json() as { versions: { id: number; version: number }[] }).versions;
    const before = await versions();
    await page.goto(`/app/#/report/${online.reportId}`);
    await page.getByRole('button', { name: 'Neue Version' }).click();
    const ask = page.getByRole('dialog', { name: 'Version 2 anlegen?' });
    await ask.getByText(/bleibt abgeschlossen und unverändert, mit seinem PDF\./).waitFor();
    await ask.getByText(/außer den Unterschriften: Sie muss neu unterschrieben und abgeschlossen werden\./).waitFor();
    await assertAccessible(page, 'new version confirmation');
    await screenshot(page, 'report-new-version');
    await ask.getByRole('button', { name: 'Abbrechen' }).click();
    await page.waitForTimeout(500);
    assert.deepEqual(await versions(), before, 'nothing made without the confirmation');
    await page.getByRole('button', { name: 'Neue Version' }).click();
    await ask.getByRole('button', { name: 'Neue Version anlegen' }).click();
    await page.waitForURL(/#\/report\/\d+$/);
    await until('the new version at the service', async () => (await versions()).length === before.length + 1);
    const made = (await versions()).at(-1)!;
    assert.equal(made.version, 2);
    const draft = (await api(`/api/reports.php?id=${made.id}`)).json() as { status: string; pages: { layout: string }[] };
    assert.equal(draft.status, 'draft');
    assert.equal(draft.pages.filter((p) => p.layout === 'signature').length, 0);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('a page edit refused because the report was finalized in another tab shows why; what follows it still arrives', async () => {
    const order = await orderByRef(world, OTHER_REF);
    const created = (
      await api('/api/reports.php?action=create', { method: 'POST', payload: { fk_element: order.id, title: 'Kurzbericht' } })
    ).json() as { id: number };
    const added = (
      await api(`/api/pages.php?action=add&bericht_id=${created.id}`, {
        method: 'POST',
        payload: { layout: 'title_only', title: 'Befund' },
      })
    ).json() as { id: number };

    const { page, context } = await phone(world);
    await logIn(page);
    await page.goto(`/app/#/report/${created.id}/page/${added.id}`);
    await page.getByLabel('Notiz').waitFor();
    // The other tab finalizes it meanwhile.
    const other = await context.newPage();
    await other.goto(`/app/#/report/${created.id}/pdf`);
    await other.getByRole('button', { name: 'Abschließen' }).click();
    const confirm = other.getByRole('dialog', { name: 'Bericht endgültig abschließen?' });
    await confirm.getByLabel('Der Bericht ist nicht unterschrieben. Grund:').fill('Kunde nicht anwesend');
    await confirm.getByRole('button', { name: 'Endgültig abschließen' }).click();
    await other.getByText(/ist abgeschlossen\./).waitFor({ timeout: 60_000 });
    await other.close();

    // The first tab still shows the draft's editor: the edit goes to the outbox and is refused.
    await page.getByLabel('Notiz').fill('Nachtrag nach Abschluss');
    await page.getByRole('button', { name: 'Speichern' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: 'wurde vom Server abgelehnt' });
    await refusal.waitFor();
    // Which change, why, and what it held: nothing typed is out of sight.
    const said = (await refusal.textContent()) ?? '';
    assert.match(said, /Die Änderung an Seite 1 \(Befund\)/);
    assert.match(said, /abgeschlossen/);
    assert.match(said, /Notiz: Nachtrag nach Abschluss/);
    await refusal.getByRole('button', { name: 'Erneut senden' }).waitFor();
    await assertAccessible(page, 'report with a refused edit');
    await screenshot(page, 'report-refused');
    const after = (await api(`/api/reports.php?id=${created.id}`)).json() as { status: string; pages: { note: string | null }[] };
    assert.equal(after.status, 'final');
    assert.equal(after.pages[0]!.note, null);

    // Queued after the refused one: a new report on the same order still arrives.
    await page.goto(`/app/#/order/${order.id}`);
    await page.getByRole('button', { name: 'Neuer Bericht' }).click();
    await page.getByRole('dialog', { name: 'Neuer Bericht' }).getByRole('button', { name: 'Anlegen' }).click();
    await until('the second report at the service', async () => {
      const list = (await api(`/api/reports.php?element_type=commande&fk_element=${order.id}`)).json() as { items: unknown[] };
      return list.items.length === 2;
    });
    await page.getByRole('heading', { level: 2, name: /Servicebericht/ }).waitFor();
    await context.close();
  });

  test('the report screens in the dark: no serious or critical axe violation', async () => {
    const order = await orderByRef(world, OTHER_REF);
    const created = (
      await api('/api/reports.php?action=create', { method: 'POST', payload: { fk_element: order.id, title: 'Befund im Keller' } })
    ).json() as { id: number };
    const added = (
      await api(`/api/pages.php?action=add&bericht_id=${created.id}`, {
        method: 'POST',
        payload: { layout: 'title_only', title: 'Heizraum', note: 'Leitung undicht' },
      })
    ).json() as { id: number };
    const { page, context, errors } = await phone(world, { colorScheme: 'dark' });
    await logIn(page);
    await page.goto(`/app/#/report/${created.id}`);
    await page.getByRole('heading', { level: 2, name: 'Befund im Keller' }).waitFor();
    await assertAccessible(page, 'report (dark)');
    await screenshot(page, 'report-dark');
    await page.goto(`/app/#/report/${created.id}/page/${added.id}`);
    await page.getByLabel('Notiz').waitFor();
    await assertAccessible(page, 'page editor (dark)');
    await page.goto(`/app/#/report/${created.id}/sign`);
    await page.getByRole('heading', { name: 'Material' }).waitFor();
    await assertAccessible(page, 'sign-off (dark)');
    await screenshot(page, 'report-signoff-dark');
    for (const reason of await page.locator('input[id^="reason-"]').all()) await reason.fill('Folgt beim nächsten Termin');
    await page.getByRole('button', { name: 'Bestätigen und unterschreiben' }).click();
    await page.getByLabel('Name der unterschreibenden Person').waitFor();
    await assertAccessible(page, 'signature (dark)');
    await page.goto(`/app/#/report/${created.id}/pdf`);
    await page.getByRole('img', { name: /^Seite 1 von \d+$/ }).waitFor({ timeout: 60_000 });
    await assertAccessible(page, 'pdf preview (dark)');
    assert.deepEqual(errors, []);
    await context.close();
  });
});
