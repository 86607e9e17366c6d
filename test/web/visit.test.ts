/**
 * A whole visit as a technician meets it, in Chromium at a phone's viewport with touch, against the
 * real service on SQLite; each result is checked through the API, the documents folder or the PDF:
 * 1. offline, an open order never opened shows its customer, address and photo list (the phone kept
 *    it after the login); an order the phone did not keep says so and still takes a photo, a voice
 *    note and a material line, each of which arrives exactly once back online;
 * 2. a signature made offline carries the moment of signing by the phone's clock (moved by the
 *    test) beside the server's time; a clock far ahead is kept and marked implausible, not refused;
 * 3. a page added after the signature is marked as not covered, in the app and in the preview PDF,
 *    and finalizing names it;
 * 4. finalizing asks first, saying what becomes final; its progress counts the PDF's pages;
 * 5. without the phone's share sheet there is one download action; with it, share and save;
 * 6. speech-to-text is offered only where the service has it; its errors speak the app's language;
 * 7. a page without a title is named by its kind and photo, the same wherever it moves; two lines of title;
 * 8. a photo is deleted from the order after a confirmation, refused with its reason when a report
 *    shows it; the grid is newest first with the waiting photos in their place;
 * 9. at 360 × 640 no text leaves its control and no word breaks inside one; the signature pad takes
 *    60 % of the height and suggests turning the phone; undo says "Rückgängig"; the turn icon turns
 *    the way the page turns; a new screen opens at its top;
 * 10. in English every text is English: units, page kinds, the signature's caption, the service's refusals;
 * 11. a report of 40 photo pages draws the thumbnails on screen first and asks for the others as they
 *     come into view (or later, one at a time, to keep them for offline), never all at once.
 * The first screen's and a report's load times of row 11 are measured by `npm run bench:app`.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { PDFDocument } from 'pdf-lib';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { objectFolder } from '../../src/dolibarr/documents.js';
import { COVER_TEMPLATE_FILENAME } from '../../src/demo/cover-template.js';
import { pdfBytesText } from '../helpers/pdf-tools.js';
import {
  apiToken,
  logInEnglish,
  assertAccessible,
  assertPhoneFriendly,
  finger,
  goOffline,
  goOnline,
  logIn,
  phone,
  screenshot,
  skipReason,
  startWorld,
  type AppWorld,
  until,
  untilOfflineReady,
} from '../helpers/browser.js';
import { multipart } from '../helpers/multipart.js';
import { sign } from '../helpers/signature.js';

const skip = skipReason() ?? (existsSync('/usr/bin/pdftotext') ? undefined : 'pdftotext not installed (Debian package poppler-utils)');
const FIXTURES = fileURLToPath(new URL('../fixtures/uploads/', import.meta.url));
const SMALL = { width: 360, height: 640 };
/** The page's getComputedStyle for evaluate() callbacks (run in the page; this file has no DOM types). */
type Styles = { getComputedStyle(el: unknown): { lineHeight: string; transform: string } };

interface OrderRow {
  id: number;
  ref: string;
  status: number;
  customer: { id: number; name: string | null } | null;
}
interface PageRow {
  id: number;
  layout: string;
  title: string | null;
  note: string | null;
  source_path: string | null;
  signature?: {
    signer_name: string;
    signed_at: number;
    signed_at_device: number | null;
    signed_at_device_zone: string | null;
    device_time_plausible: boolean | null;
  } | null;
}

describe('app: a whole visit, as a technician meets it [sqlite]', { skip }, () => {
  let world: AppWorld;
  let scratch: string;

  before(async () => {
    world = await startWorld();
    scratch = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-visit-'));
  });
  after(async () => {
    await world?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  async function api<T = unknown>(
    url: string,
    init: { method?: 'GET' | 'POST' | 'DELETE'; payload?: unknown; login?: string } = {},
  ): Promise<T> {
    const res = await world.ctx.app.inject({
      url,
      method: init.method ?? 'GET',
      ...(init.payload ? { payload: init.payload as object } : {}),
      headers: { authorization: `Bearer ${await apiToken(world, init.login)}` },
    });
    assert.ok(res.statusCode < 300, `${url}: ${res.statusCode} ${res.body}`);
    return (res.headers['content-type']?.toString().startsWith('application/json') ? res.json() : res.rawPayload) as T;
  }
  async function orders(login = 'techniker'): Promise<OrderRow[]> {
    return (await api<{ items: OrderRow[] }>('/api/orders.php?limit=500', { login })).items;
  }
  const folderOf = (ref: string) => objectFolder(world.ctx.config.dataRoot, world.ctx.config.entity, 'commande', ref).dir;
  /** The order's files (not the service's temporary or hidden ones). */
  const filesIn = (ref: string) =>
    existsSync(folderOf(ref))
      ? readdirSync(folderOf(ref), { withFileTypes: true })
          .filter((e) => e.isFile() && !e.name.startsWith('.'))
          .map((e) => e.name)
          .sort()
      : [];
  async function materials(orderId: number): Promise<string[]> {
    return (
      await api<{ items: { label: string }[] }>(`/api/materials.php?element_type=commande&fk_element=${orderId}&limit=500`)
    ).items.map((i) => i.label);
  }
  async function photo(name: string, background: string, width = 1200, height = 900): Promise<string> {
    const file = path.join(scratch, name);
    await sharp({ create: { width, height, channels: 3, background } })
      .jpeg({ quality: 80 })
      .toFile(file);
    return file;
  }
  /** A photo uploaded into the order through the API (as another phone would), answered by its name. */
  async function upload(orderId: number, file: string): Promise<string> {
    const form = multipart([{ name: 'file', filename: path.basename(file), type: 'image/jpeg', data: readFileSync(file) }]);
    const res = await world.ctx.app.inject({
      method: 'POST',
      url: `/api/orders.php?id=${orderId}&action=upload_photo`,
      payload: form.payload,
      headers: { 'content-type': form.contentType, authorization: `Bearer ${await apiToken(world)}` },
    });
    assert.equal(res.statusCode, 201, res.body);
    return (res.json() as { name: string }).name;
  }
  async function newReport(orderId: number, title: string, extra: Record<string, unknown> = {}): Promise<{ id: number; ref: string }> {
    return api('/api/reports.php?action=create', { method: 'POST', payload: { fk_element: orderId, title, ...extra } });
  }
  async function addPage(reportId: number, fields: Record<string, unknown>): Promise<{ id: number }> {
    return api(`/api/pages.php?action=add&bericht_id=${reportId}`, { method: 'POST', payload: fields });
  }
  /** A report of title pages, signed through the API by `signer` (as on another phone). */
  async function signedReport(
    status: number,
    title: string,
    pages: string[],
    signer: string,
    extra: Record<string, unknown> = {},
  ): Promise<{ id: number; ref: string }> {
    const order = (await orders()).find((o) => o.status === status)!;
    const made = await newReport(order.id, title, extra);
    for (const pageTitle of pages) await addPage(made.id, { layout: 'title_only', title: pageTitle });
    assert.equal((await sign(world.ctx.app, { authorization: `Bearer ${await apiToken(world)}` }, made.id, signer)).statusCode, 201);
    return made;
  }
  async function report(id: number): Promise<{ id: number; ref: string; status: string; pages: PageRow[] }> {
    return api(`/api/reports.php?id=${id}`);
  }
  /** Opens the order from the order list (an appointment above it may link to it too). */
  async function openOrderOf(page: Page, ref: string) {
    await page
      .getByRole('list', { name: 'Aufträge', exact: true })
      .getByRole('link', { name: new RegExp(ref.replace(/[()]/g, '\\$&')) })
      .click();
  }
  /** The customer signs on the pad with a finger, named `signer`. */
  async function signOnPad(page: Page, signer: string) {
    // First what the customer confirms, then the pad.
    await page.getByRole('button', { name: 'Bestätigen und unterschreiben' }).click();
    await page.getByLabel('Name der unterschreibenden Person').fill(signer);
    const pad = page.locator('canvas');
    await pad.scrollIntoViewIfNeeded();
    await page.waitForTimeout(300);
    const box = (await pad.boundingBox())!;
    await finger(
      page,
      Array.from({ length: 18 }, (_, i) => ({
        x: box.x + box.width * (0.15 + i * 0.04),
        y: box.y + box.height * (0.5 + Math.sin(i / 2) * 0.15),
      })),
    );
    await page.getByRole('button', { name: 'Unterschreiben' }).click();
  }

  // ---- 1 --------------------------------------------------------------------------------------

  test('1: offline, open orders never opened are readable; an order not kept says so and still takes a photo, a voice note and a line, each arriving once', async () => {
    const mine = await orders();
    const open = mine.filter((o) => [0, 1, 2].includes(o.status));
    const closed = mine.filter((o) => o.status === 3);
    assert.ok(open.length >= 3 && closed.length >= 1, `demo data: ${open.length} open, ${closed.length} closed orders`);
    const kept = open.find((o) => o.customer?.name)!;
    const notKept = closed[0]!;
    const keptDetail = await api<{ customer: { name: string; town: string | null; phone: string | null } }>(
      `/api/orders.php?id=${kept.id}`,
    );

    const { page, context, errors } = await phone(world);
    await logIn(page);
    // What the phone keeps, said in Settings once the keeping after the login has run.
    await page.getByRole('button', { name: 'Einstellungen' }).click();
    // The open orders, the open interventions and those of the appointments of the next days.
    const agenda = await api<{ items: { object: { element_type: string; id: number } | null }[] }>('/api/agenda.php');
    const interventions = await api<{ items: { id: number }[] }>('/api/interventions.php?status=0,1');
    const keptIds = new Set([
      ...open.map((o) => `commande:${o.id}`),
      ...interventions.items.map((i) => `fichinter:${i.id}`),
      ...agenda.items.flatMap((a) => (a.object ? [`${a.object.element_type}:${a.object.id}`] : [])),
    ]);
    await page.getByText(`${keptIds.size} Aufträge und Serviceaufträge sind auf dem Telefon gespeichert`).waitFor({ timeout: 45_000 });
    await page.getByLabel('Höchstens so viele offene Aufträge speichern').waitFor();
    await assertAccessible(page, 'settings with kept orders');
    await assertPhoneFriendly(page, 'settings');
    await screenshot(page, 'settings', { small: true });
    await page.getByRole('button', { name: 'Zurück' }).click();
    await page.getByRole('list', { name: 'Aufträge', exact: true }).waitFor();

    await untilOfflineReady(page);
    await goOffline(context);
    // Never opened on this phone, and readable: customer, address, the photo list.
    await openOrderOf(page, kept.ref);
    await page.getByRole('heading', { level: 2, name: keptDetail.customer.name }).waitFor({ timeout: 10_000 });
    if (keptDetail.customer.town) await page.getByRole('link', { name: new RegExp(keptDetail.customer.town) }).waitFor();
    if (keptDetail.customer.phone) await page.getByRole('link', { name: keptDetail.customer.phone }).waitFor();
    await page.getByRole('heading', { name: /^Fotos/ }).waitFor();
    assert.equal(await page.getByText('Wird geladen').count(), 0, 'nothing is left loading');
    await page.getByRole('button', { name: 'Zurück' }).click();

    // Not kept (delivered): said in words, and the capture bar is there.
    const filesBefore = filesIn(notKept.ref);
    const linesBefore = await materials(notKept.id);
    await openOrderOf(page, notKept.ref);
    await page.getByText('Dieser Auftrag ist nicht auf dem Telefon gespeichert').waitFor({ timeout: 10_000 });
    await assertAccessible(page, 'order not kept, offline');
    await assertPhoneFriendly(page, 'order not kept, offline');
    await screenshot(page, 'order-not-kept-offline', { small: true });
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Galerie' }).click();
    await (await chooser).setFiles([await photo('keller-unbekannt.jpg', '#6c3483')]);
    await page.getByRole('button', { name: 'Foto keller-unbekannt.jpg öffnen (wartet auf das Senden)' }).waitFor();
    await page.getByRole('button', { name: 'Sprachnotiz', exact: true }).click();
    const recorder = page.getByRole('dialog', { name: 'Sprachnotiz aufnehmen' });
    await recorder.getByRole('button', { name: 'Aufnahme starten' }).click();
    await recorder.getByText('0:01').waitFor();
    await recorder.getByRole('button', { name: 'Aufnahme beenden' }).click();
    await recorder.getByRole('button', { name: 'Speichern' }).click();
    // Clear of the capture bar fixed at the bottom.
    await page.getByRole('button', { name: 'Material hinzufügen' }).evaluate((el) => el.scrollIntoView({ block: 'center' }));
    await page.getByRole('button', { name: 'Material hinzufügen' }).click();
    await page.getByLabel('Bezeichnung').fill('Sicherung 16 A');
    await page.getByLabel('Menge').fill('2');
    await page.getByRole('button', { name: 'Hinzufügen', exact: true }).click();
    await page.getByRole('button', { name: 'Warteschlange: 3 Einträge warten' }).waitFor();
    assert.deepEqual(filesIn(notKept.ref), filesBefore, 'nothing reached the service offline');

    await goOnline(context);
    await page.evaluate('window.dispatchEvent(new Event("online"))');
    await until('the photo and the voice note in the folder', () => filesIn(notKept.ref).length === filesBefore.length + 2, 45_000);
    await until('the line at the service', async () => (await materials(notKept.id)).includes('Sicherung 16 A'));
    await page.getByRole('button', { name: 'Warteschlange: 0 Einträge warten' }).waitFor({ timeout: 30_000 });
    const added = filesIn(notKept.ref).filter((f) => !filesBefore.includes(f));
    assert.equal(added.filter((f) => f === 'keller-unbekannt.jpg').length, 1, `the photo once: ${added.join(', ')}`);
    assert.equal(added.filter((f) => /^Sprachnotiz_.*\.webm$/.test(f)).length, 1, `the voice note once: ${added.join(', ')}`);
    assert.deepEqual(
      (await materials(notKept.id)).filter((l) => l === 'Sicherung 16 A'),
      ['Sicherung 16 A'],
      'the line once',
    );
    assert.equal((await materials(notKept.id)).length, linesBefore.length + 1);
    // Now with signal, the order shows as it is.
    await page.getByRole('heading', { level: 2, name: notKept.customer?.name ?? '' }).waitFor();
    assert.deepEqual(errors, []);
    await context.close();
  });

  // ---- 2 --------------------------------------------------------------------------------------

  test("2: a signature made offline keeps the moment of signing by the phone's clock; a clock far ahead is kept and marked implausible", async () => {
    const order = (await orders()).find((o) => o.status === 1)!;
    const made = await newReport(order.id, 'Kellerprüfung');
    await addPage(made.id, { layout: 'title_only', title: 'Heizraum' });
    const { page, context, errors } = await phone(world);
    await logIn(page);
    await page.goto(`/app/#/report/${made.id}/sign`);
    await page.getByRole('button', { name: 'Bestätigen und unterschreiben' }).waitFor();

    // In the cellar: no signal, and the phone's clock two hours behind the server's.
    await untilOfflineReady(page);
    await goOffline(context);
    const phoneTime = new Date(Date.now() - 2 * 3600_000);
    await page.clock.setSystemTime(phoneTime);
    await signOnPad(page, 'Karl Keller');
    await page.getByText('wird gesendet, sobald Netz da ist').waitFor();
    await page.waitForTimeout(1500);
    await goOnline(context);
    await page.evaluate('window.dispatchEvent(new Event("online"))');
    await page.getByText('Unterschrift gültig').waitFor({ timeout: 60_000 });

    const signed = (await report(made.id)).pages.at(-1)!;
    assert.equal(signed.layout, 'signature');
    const verified = await api<{ verified: boolean; metadata: Record<string, unknown> }>(`/ajax/verify_signature.php?id=${signed.id}`);
    assert.equal(verified.verified, true);
    const meta = verified.metadata;
    const deviceUnix = meta.signed_at_device_unix as number;
    assert.ok(
      Math.abs(deviceUnix - phoneTime.getTime() / 1000) < 5,
      `the phone's moment is kept (${deviceUnix} vs ${phoneTime.getTime() / 1000})`,
    );
    assert.match(meta.signed_at_device as string, /\+0[12]:00$/, "with the phone's offset (Berlin)");
    assert.equal(meta.signed_at_device_zone, 'Europe/Berlin');
    assert.ok((meta.server_time_unix as number) - deviceUnix > 7000, "the server's own time stays its receipt");
    assert.equal(meta.device_time_difference_seconds, (meta.server_time_unix as number) - deviceUnix);
    assert.equal(meta.device_time_plausible, true);
    assert.equal(signed.signature?.signed_at_device, deviceUnix);
    assert.match(signed.note ?? '', /\(Gerät.*empfangen am.*\(Server/);

    // The page says both, in words.
    await page.goto(`/app/#/report/${made.id}/page/${signed.id}`);
    await page.getByText(/Unterschrieben von Karl Keller am .* \(Gerät\), empfangen am .* \(Server\)/).waitFor();
    await assertAccessible(page, 'signature page with two times');
    await screenshot(page, 'signature-device-time', { small: true });
    // So does the public check behind the QR code.
    const code = meta.verify_code as string;
    const check = await world.ctx.app.inject({ url: `/public/verify_signature.php?code=${code}` });
    assert.match(check.body, /Unterschrieben \(Gerät\)/);
    assert.match(check.body, /Empfangen \(Server\)/);

    // A clock ten minutes ahead of the server's: kept and marked, never refused.
    const second = await newReport(order.id, 'Uhr vorgestellt');
    await addPage(second.id, { layout: 'title_only', title: 'Zähler' });
    await page.clock.setSystemTime(new Date(Date.now() + 10 * 60_000));
    await page.goto(`/app/#/report/${second.id}/sign`);
    await signOnPad(page, 'Vera Vorlauf');
    await page.getByText('Unterschrift gültig').waitFor({ timeout: 60_000 });
    const ahead = (await report(second.id)).pages.at(-1)!;
    const aheadMeta = (await api<{ metadata: Record<string, unknown> }>(`/ajax/verify_signature.php?id=${ahead.id}`)).metadata;
    assert.equal(aheadMeta.device_time_plausible, false);
    assert.equal(aheadMeta.device_time_implausible_reason, 'ahead');
    assert.equal(ahead.signature?.device_time_plausible, false);
    await page.goto(`/app/#/report/${second.id}/page/${ahead.id}`);
    await page.getByText(/als unplausibel vermerkt/).waitFor();
    assert.deepEqual(errors, []);
    await context.close();
  });

  // ---- 3 --------------------------------------------------------------------------------------

  test('3: a page added after the signature is marked as not covered in the app and the preview; finalizing names it', async () => {
    const made = await signedReport(1, 'Nachtrag', ['Befund'], 'Nora Nachher');

    const { page, context, errors } = await phone(world);
    await logIn(page);
    await page.goto(`/app/#/report/${made.id}`);
    await page.getByRole('button', { name: 'Titelseite' }).click();
    const dialog = page.getByRole('dialog', { name: 'Titelseite' });
    await dialog.getByLabel('Titel').fill('Zusatzarbeiten');
    await dialog.getByRole('button', { name: 'Hinzufügen' }).click();
    const rows = page.locator('ol.pages > li');
    await until('three pages', async () => (await rows.count()) === 3);
    await until('the added page at the service', async () => (await report(made.id)).pages.length === 3);
    const third = rows.nth(2);
    await third.getByText('Nicht von der Unterschrift erfasst').waitFor();
    assert.equal(await rows.nth(0).getByText('Nicht von der Unterschrift erfasst').count(), 0, 'the signed page is covered');
    await assertAccessible(page, 'report with a page after the signature');
    await screenshot(page, 'report-uncovered', { small: true });

    // The preview PDF marks it, on its own page only.
    await page.getByRole('button', { name: 'PDF & Abschluss' }).click();
    await page
      .getByText(/Nicht von der Unterschrift erfasst: Seite 3 \(Zusatzarbeiten\)/)
      .first()
      .waitFor();
    // The summary, the heading "Befund", the signature, the late page and the evidence flow on:
    // the sheet with the late page carries the notice, the others do not.
    const preview = await api<Buffer>(`/api/pdf.php?id=${made.id}&preview=1`);
    const sheets = (await PDFDocument.load(preview)).getPageCount();
    await page.getByRole('img', { name: new RegExp(`^Seite 1 von ${sheets}$`) }).waitFor({ timeout: 60_000 });
    const texts = Array.from({ length: sheets }, (_, i) => pdfBytesText(preview, scratch, i + 1));
    const late = texts.findIndex((text) => text.includes('Zusatzarbeiten'));
    assert.ok(late >= 0, 'the late page is printed');
    assert.match(texts[late]!, /Nicht von der Unterschrift erfasst/);
    for (const [i, text] of texts.entries())
      if (i !== late) assert.doesNotMatch(text, /Nicht von der Unterschrift erfasst/, `sheet ${i + 1}`);

    await page.getByRole('button', { name: 'Abschließen' }).click();
    const confirm = page.getByRole('dialog', { name: 'Bericht endgültig abschließen?' });
    await confirm.getByText(/Nicht von der Unterschrift erfasst: Seite 3 \(Zusatzarbeiten\)/).waitFor();
    await confirm.getByText('Unterschrieben von: Nora Nachher.').waitFor();
    await assertAccessible(page, 'finalize confirmation naming an uncovered page');
    await screenshot(page, 'finalize-confirm-uncovered', { small: true });
    await confirm.getByRole('button', { name: 'Abbrechen' }).click();
    assert.equal((await report(made.id)).status, 'draft', 'cancelled: still a draft');
    assert.deepEqual(errors, []);
    await context.close();
  });

  // ---- 4 --------------------------------------------------------------------------------------

  test('4: finalizing asks first and says what becomes final; the progress counts the pages of the PDF, cover sheet included', async () => {
    const made = await signedReport(2, 'Abschluss mit Deckblatt', ['Anfahrt', 'Arbeiten', 'Übergabe'], 'Otto Obermeier', {
      odt_template: COVER_TEMPLATE_FILENAME,
    });

    const { page, context, errors } = await phone(world);
    await logIn(page);
    // The finalize request is held a moment, so its progress can be read.
    await context.route('**/api/reports.php?*action=finalize*', async (route) => {
      await new Promise((r) => setTimeout(r, 2500));
      await route.continue();
    });
    await page.goto(`/app/#/report/${made.id}/pdf`);
    // Three pages and the signature, behind a cover sheet and the summary: the PDF has as many pages as the preview
    // the service makes now, which the test reads itself.
    const preview = await api<Buffer>(`/api/pdf.php?id=${made.id}&preview=1`);
    const expected = (await PDFDocument.load(preview)).getPageCount();
    assert.ok(expected >= 4, `a cover sheet, the summary, the three pages and the signature sheet: ${expected}`);
    await page.getByRole('img', { name: new RegExp(`^Seite 1 von ${expected}$`) }).waitFor({ timeout: 90_000 });
    await page.getByRole('button', { name: 'Abschließen' }).click();
    const confirm = page.getByRole('dialog', { name: 'Bericht endgültig abschließen?' });
    await confirm.getByText(`Das PDF mit ${expected} Seiten wird erstellt und als endgültige Fassung abgelegt.`).waitFor();
    await confirm.getByText('Unterschrieben von: Otto Obermeier.').waitFor();
    await confirm.getByText(/Danach nicht mehr änderbar/).waitFor();
    await assertAccessible(page, 'finalize confirmation');
    await assertPhoneFriendly(page, 'finalize confirmation');
    await screenshot(page, 'finalize-confirm', { small: true });
    await confirm.getByRole('button', { name: 'Abbrechen' }).click();
    await page.waitForTimeout(500);
    assert.equal((await report(made.id)).status, 'draft', 'nothing is final without the confirmation');

    await page.getByRole('button', { name: 'Abschließen' }).click();
    await confirm.getByRole('button', { name: 'Endgültig abschließen' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: new RegExp(`Das PDF mit ${expected} Seiten wird erstellt …`) })
      .waitFor();
    await page.getByText(/ist abgeschlossen\./).waitFor({ timeout: 90_000 });
    const final = await report(made.id);
    assert.equal(final.status, 'final');
    const pdf = await api<Buffer>(`/api/pdf.php?id=${made.id}`);
    assert.equal((await PDFDocument.load(pdf)).getPageCount(), expected, 'the count the progress said');
    assert.deepEqual(errors, []);
    await context.close();
  });

  // ---- 5 --------------------------------------------------------------------------------------

  test('5: without the share sheet one download action; with it, share and save', async () => {
    const order = (await orders()).find((o) => o.status === 1)!;
    const made = await newReport(order.id, 'Zum Teilen');
    await addPage(made.id, { layout: 'title_only', title: 'Alles erledigt' });
    const final = await api<{ ref: string }>(`/api/reports.php?id=${made.id}&action=finalize`, { method: 'POST' });

    const { page, context, errors } = await phone(world);
    await logIn(page);
    await page.goto(`/app/#/report/${made.id}/pdf`);
    await page.getByText(/ist abgeschlossen\./).waitFor();
    const actions = page.getByRole('navigation', { name: 'PDF' });
    await actions.getByRole('button', { name: 'Herunterladen' }).waitFor();
    assert.deepEqual(
      (await actions.getByRole('button').allTextContents()).map((t) => t.trim()),
      ['An Kunden senden', 'Herunterladen', 'Öffnen'],
      'one download action, nothing called share',
    );
    await page.getByRole('img', { name: /^Seite 1 von \d+$/ }).waitFor({ timeout: 60_000 });
    const download = page.waitForEvent('download');
    await actions.getByRole('button', { name: 'Herunterladen' }).click();
    const file = await download;
    assert.equal(file.suggestedFilename(), `${final.ref}.pdf`);
    assert.equal(
      readFileSync((await file.path())!)
        .subarray(0, 5)
        .toString(),
      '%PDF-',
    );
    await assertPhoneFriendly(page, 'final pdf without share sheet');
    await screenshot(page, 'pdf-final-download', { small: true });
    await context.close();

    // A phone that shares files: share (the PDF itself goes to the sheet) and save.
    const sharing = await phone(world);
    await sharing.context.addInitScript(`
      window.__shared = [];
      navigator.canShare = (data) => !!data && Array.isArray(data.files);
      navigator.share = async (data) => { window.__shared.push(...data.files.map((f) => ({ name: f.name, type: f.type, size: f.size }))); };
    `);
    await logIn(sharing.page);
    await sharing.page.goto(`/app/#/report/${made.id}/pdf`);
    const bar = sharing.page.getByRole('navigation', { name: 'PDF' });
    await bar.getByRole('button', { name: 'Teilen' }).waitFor();
    assert.deepEqual(
      (await bar.getByRole('button').allTextContents()).map((t) => t.trim()),
      ['An Kunden senden', 'Teilen', 'Speichern', 'Öffnen'],
    );
    await sharing.page.getByRole('img', { name: /^Seite 1 von \d+$/ }).waitFor({ timeout: 60_000 });
    await bar.getByRole('button', { name: 'Teilen' }).click();
    await sharing.page.getByText('Geteilt.').waitFor();
    const shared = (await sharing.page.evaluate('window.__shared')) as { name: string; type: string; size: number }[];
    assert.equal(shared.length, 1);
    assert.equal(shared[0]!.name, `${final.ref}.pdf`);
    assert.equal(shared[0]!.type, 'application/pdf');
    assert.ok(shared[0]!.size > 1000);
    assert.deepEqual([...errors, ...sharing.errors], []);
    await sharing.context.close();
  });

  // ---- 6 --------------------------------------------------------------------------------------

  test("6: speech-to-text is offered only where the service has it; its refusal is in the app's language and names no setting", async () => {
    const order = (await orders()).find((o) => o.status === 1)!;
    const form = multipart([
      { name: 'file', filename: 'ansage.webm', type: 'audio/webm', data: readFileSync(path.join(FIXTURES, 'voice.webm')) },
    ]);
    const uploaded = await world.ctx.app.inject({
      method: 'POST',
      url: `/api/voice.php?id=${order.id}`,
      payload: form.payload,
      headers: { 'content-type': form.contentType, authorization: `Bearer ${await apiToken(world)}` },
    });
    assert.equal(uploaded.statusCode, 201, uploaded.body);
    const name = (uploaded.json() as { name: string }).name;

    // Not configured: no button that can only fail.
    const first = await phone(world);
    await logIn(first.page);
    await first.page.goto(`/app/#/order/${order.id}`);
    await first.page.getByRole('button', { name: `${name} abspielen` }).waitFor();
    await first.page.waitForTimeout(500);
    assert.equal(await first.page.getByRole('button', { name: `${name} in Text umwandeln` }).count(), 0);
    await first.context.close();

    // A speech-to-text server (whisper-asr's protocol) that fails, then works; configured in Dolibarr's constants.
    let fail = true;
    const stt = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (fail) {
          res.writeHead(500, { 'content-type': 'text/plain' }).end('model not loaded');
        } else {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ text: 'Pumpe getauscht, Druck geprüft.' }));
        }
      });
    });
    await new Promise<void>((resolve) => stt.listen(0, '127.0.0.1', resolve));
    try {
      await world.ctx.make.setConst(
        'BERICHT_TRANSCRIBE_URL',
        `http://127.0.0.1:${(stt.address() as AddressInfo).port}`,
        world.ctx.config.entity,
      );
      await world.ctx.make.setConst('BERICHT_TRANSCRIBE_MODE', 'whisper-asr', world.ctx.config.entity);
      const english = await phone(world, { locale: 'en-GB' });
      await english.page.goto('/app/');
      await english.page.getByLabel('User name').fill('techniker');
      await english.page.getByLabel('Password').fill('demo');
      await english.page.getByRole('button', { name: 'Log in' }).click();
      await english.page.getByRole('list', { name: 'Orders' }).waitFor();
      await english.page.goto(`/app/#/order/${order.id}`);
      const button = english.page.getByRole('button', { name: `Turn ${name} into text` });
      await button.click();
      const alert = english.page.getByRole('alert').filter({ hasText: 'Speech recognition' });
      await alert.waitFor();
      const said = (await alert.textContent()) ?? '';
      assert.doesNotMatch(said, /BERICHT_|TRANSCRIBE|Spracherkennung/, `the refusal names no setting and is English: ${said}`);
      fail = false;
      await button.click();
      await english.page.getByText('Pumpe getauscht, Druck geprüft.').waitFor();
      assert.deepEqual(english.errors, []);
      await english.context.close();
    } finally {
      await world.ctx.handle.db.deleteFrom('const').where('name', 'in', ['BERICHT_TRANSCRIBE_URL', 'BERICHT_TRANSCRIBE_MODE']).execute();
      stt.close();
    }
  });

  // ---- 7 --------------------------------------------------------------------------------------

  test('7: a page without a title is named by its kind and photo, the same wherever it moves; titles show two lines', async () => {
    const order = (await orders()).find((o) => o.status === 2)!;
    const names = [
      await upload(order.id, await photo('zaehlerschrank.jpg', '#1a5276')),
      await upload(order.id, await photo('verteiler.jpg', '#7b241c')),
    ];
    const made = await newReport(order.id, 'Namen');
    const long = 'Heizungsanlage im Keller, Brennerraum Nord mit Abgasleitung';
    await addPage(made.id, { layout: 'title_only', title: long });
    await addPage(made.id, { layout: 'photo', source: names[0] });
    await addPage(made.id, { layout: 'before_after', source: names[0], source_2: names[1] });

    const { page, context, errors } = await phone(world);
    await logIn(page);
    await page.goto(`/app/#/report/${made.id}`);
    const rows = page.locator('ol.pages > li');
    await until('three pages', async () => (await rows.count()) === 3);
    const nameOf = async (row: number) => ((await rows.nth(row).locator('.name').textContent()) ?? '').trim();
    assert.equal(await nameOf(1), `Foto · ${names[0]}`);
    assert.equal(await nameOf(2), `Vorher/Nachher · ${names[0]} / ${names[1]}`);
    // The long title: whole in the row, on two lines (not cut after a dozen characters).
    assert.equal(await nameOf(0), long);
    const lines = await rows
      .nth(0)
      .locator('.name')
      .evaluate((el) =>
        Math.round(el.getBoundingClientRect().height / parseFloat((globalThis as unknown as Styles).getComputedStyle(el).lineHeight)),
      );
    assert.equal(lines, 2, 'the title takes two lines');

    // The photo page to the front (by the move dialog): its name stays.
    await rows.nth(1).locator('.handle').click();
    await page.getByRole('dialog').getByRole('button', { name: 'An den Anfang' }).click();
    await until('the photo page first', async () => (await nameOf(0)) === `Foto · ${names[0]}`);
    assert.equal(await nameOf(1), long);
    await until('the order at the service', async () => (await report(made.id)).pages[0]!.layout === 'photo');
    await page.reload();
    await until('the page list after a reload', async () => (await rows.count()) === 3);
    assert.equal(await nameOf(0), `Foto · ${names[0]}`);
    // The page editor names it so too.
    await rows.nth(0).locator('a.open').click();
    await page.getByRole('heading', { level: 1, name: `Foto · ${names[0]}` }).waitFor();
    await page.getByText('Seite 1 von 3').waitFor();
    await screenshot(page, 'page-named', { small: true });
    assert.deepEqual(errors, []);
    await context.close();
  });

  // ---- 8 --------------------------------------------------------------------------------------

  test('8: a photo is deleted from the order after a confirmation, refused with its reason when a report shows it; the grid is newest first, waiting photos in their place', async () => {
    // Another validated order than the other tests use, where there is one.
    const validated = (await orders()).filter((o) => o.status === 1);
    const order = validated[1] ?? validated[0]!;
    const older = await upload(order.id, await photo('alt.jpg', '#145a32'));
    await new Promise((r) => setTimeout(r, 1100));
    const used = await upload(order.id, await photo('im-bericht.jpg', '#4a235a'));
    await new Promise((r) => setTimeout(r, 1100));
    const newest = await upload(order.id, await photo('neu.jpg', '#b9770e'));
    const made = await newReport(order.id, 'Mit Foto');
    await addPage(made.id, { layout: 'photo', source: used });

    const { page, context, errors } = await phone(world);
    await logIn(page);
    await page.goto(`/app/#/order/${order.id}`);
    await page.getByRole('button', { name: `Foto ${newest} öffnen` }).waitFor();
    const grid = page.locator('ul.grid > li button.thumb');
    const labels = async () => await grid.evaluateAll((els) => els.map((el) => el.getAttribute('aria-label') ?? ''));
    const before = await labels();
    assert.ok(
      before.indexOf(`Foto ${newest} öffnen`) < before.indexOf(`Foto ${used} öffnen`) &&
        before.indexOf(`Foto ${used} öffnen`) < before.indexOf(`Foto ${older} öffnen`),
      `newest first: ${before.join(' | ')}`,
    );

    // A photo taken offline goes first, where it belongs by time, not at the end.
    await untilOfflineReady(page);
    await goOffline(context);
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Galerie' }).click();
    await (await chooser).setFiles([await photo('gerade-eben.jpg', '#a04000')]);
    await page.getByRole('button', { name: 'Foto gerade-eben.jpg öffnen (wartet auf das Senden)' }).waitFor();
    assert.equal((await labels())[0], 'Foto gerade-eben.jpg öffnen (wartet auf das Senden)');
    // Open full screen while it waits; it arrives meanwhile: the viewer stays on it (not on whatever took its place).
    await page.getByRole('button', { name: 'Foto gerade-eben.jpg öffnen (wartet auf das Senden)' }).click();
    const open = page.getByRole('dialog', { name: /gerade-eben\.jpg/ });
    await open.getByText(/^gerade-eben\.jpg · 1\//).waitFor();
    await goOnline(context);
    await page.evaluate('window.dispatchEvent(new Event("online"))');
    await until('the offline photo at the service', () => filesIn(order.ref).includes('gerade-eben.jpg'), 45_000);
    await page.waitForTimeout(500);
    await open.getByText(/^gerade-eben\.jpg · \d+\//).waitFor();
    await open.getByRole('button', { name: 'Schließen' }).click();
    await until('the grid shows it as arrived', async () => (await labels())[0] === 'Foto gerade-eben.jpg öffnen');

    // The photo a report shows: the service refuses, and the phone says why.
    await page.getByRole('button', { name: `Foto ${used} öffnen` }).click();
    const viewer = page.getByRole('dialog', { name: new RegExp(used) });
    await viewer.getByRole('button', { name: `Foto ${used} löschen` }).click();
    await viewer.getByText(`Foto ${used} aus dem Auftrag löschen?`).waitFor();
    await assertAccessible(page, 'delete photo confirmation');
    await screenshot(page, 'photo-delete-confirm', { small: true });
    await viewer.getByRole('button', { name: 'Löschen', exact: true }).click();
    const refusal = page.getByRole('alert').filter({ hasText: `Foto ${used} wurde nicht gelöscht` });
    await refusal.waitFor({ timeout: 30_000 });
    assert.match((await refusal.textContent()) ?? '', new RegExp(`in einem Bericht verwendet.*${made.ref}`));
    assert.ok(filesIn(order.ref).includes(used), 'the photo is still there');
    await refusal.getByRole('button', { name: 'OK' }).click();

    // Once the phone knows the report, it says so at once, before anything is sent.
    await page.goto(`/app/#/report/${made.id}`);
    await page.locator('ol.pages > li').first().waitFor();
    await page.goto(`/app/#/order/${order.id}`);
    await page.getByRole('button', { name: `Foto ${used} öffnen` }).click();
    await viewer.getByRole('button', { name: `Foto ${used} löschen` }).click();
    await viewer.getByRole('button', { name: 'Löschen', exact: true }).click();
    await viewer.getByRole('alert').filter({ hasText: made.ref }).waitFor();
    await viewer.getByRole('button', { name: 'Schließen' }).click();

    // A photo no page shows: confirmed, deleted at the service and gone from the grid.
    await page.getByRole('button', { name: `Foto ${older} öffnen` }).click();
    const olderViewer = page.getByRole('dialog', { name: new RegExp(older) });
    await olderViewer.getByRole('button', { name: `Foto ${older} löschen` }).click();
    await olderViewer.getByRole('button', { name: 'Abbrechen' }).click();
    assert.ok(filesIn(order.ref).includes(older), 'cancelled: still there');
    await olderViewer.getByRole('button', { name: `Foto ${older} löschen` }).click();
    await olderViewer.getByRole('button', { name: 'Löschen', exact: true }).click();
    await until('the photo gone from the folder', () => !filesIn(order.ref).includes(older), 30_000);
    await until('and from the grid', async () => !(await labels()).some((l) => l.includes(older)));
    const thumbs = readdirSync(path.join(folderOf(order.ref), 'thumbs'));
    assert.ok(!thumbs.some((t) => t.startsWith(older.replace(/\.jpg$/, ''))), 'its thumbnails too');
    assert.deepEqual(errors, []);
    await context.close();
  });

  // ---- 9 --------------------------------------------------------------------------------------

  test('9: at 360 × 640 no text leaves its control; the pad takes half the height with "Unterschreiben" in view and suggests turning; "Rückgängig"; the turn icon turns as the page; screens open at their top', async () => {
    const order = (await orders()).find((o) => o.status === 2)!;
    const name = await upload(order.id, await photo('drehen.jpg', '#2e4053', 1200, 800));
    const made = await newReport(order.id, 'Kleiner Bildschirm');
    const photoPage = await addPage(made.id, { layout: 'photo', source: name });
    await addPage(made.id, { layout: 'before_after', source: name, source_2: name });

    const { page, context, errors } = await phone(world);
    await page.setViewportSize(SMALL);
    await logIn(page);
    await assertPhoneFriendly(page, 'orders');
    await page.goto(`/app/#/order/${order.id}`);
    await page.getByRole('heading', { name: /^Fotos/ }).waitFor();
    await assertPhoneFriendly(page, 'order');
    // Scrolled far down the order, then a report opens: at its top.
    await page.evaluate('window.scrollTo(0, document.body.scrollHeight)');
    assert.ok(((await page.evaluate('window.scrollY')) as number) > 200, 'the order scrolls');
    await page.goto(`/app/#/report/${made.id}`);
    await page.locator('ol.pages > li').nth(1).waitFor();
    assert.equal(await page.evaluate('window.scrollY'), 0, 'the report opens at its top');
    await assertPhoneFriendly(page, 'report');
    await screenshot(page, 'report-360');

    // The turn button's icon turns the way the page turns (clockwise).
    await page.goto(`/app/#/report/${made.id}/page/${photoPage.id}`);
    const turn = page.getByRole('button', { name: 'Drehen 90°' });
    await turn.waitFor();
    await assertPhoneFriendly(page, 'page editor');
    const iconSweep = await turn.locator('path').evaluate((p) => /a[\d.\s-]+\s(\d)\s(\d)/.exec(p.getAttribute('d') ?? '')?.[2]);
    await turn.click();
    await page.waitForTimeout(500); // the turn is animated (0.2 s)
    const matrix = await page
      .locator('.preview img')
      .first()
      .evaluate((img) => (globalThis as unknown as Styles).getComputedStyle(img).transform);
    // rotate(90deg) is matrix(0, 1, -1, 0, 0, 0): clockwise on screen.
    assert.match(matrix, /^matrix\(\s*0,\s*1,\s*-1,\s*0/, `the page turned clockwise (${matrix})`);
    assert.equal(iconSweep, '1', "the icon's arc runs clockwise (SVG sweep flag 1)");
    await page.getByRole('button', { name: 'Speichern' }).click();
    await page.locator('ol.pages > li').nth(1).waitFor();

    // The sign-off first: its main action in view without scrolling at 360 × 640.
    await page.goto(`/app/#/report/${made.id}/sign`);
    const confirm = page.getByRole('button', { name: 'Bestätigen und unterschreiben' });
    await confirm.waitFor();
    const confirmBox = (await confirm.boundingBox())!;
    assert.ok(
      confirmBox.y + confirmBox.height <= SMALL.height,
      `the sign-off's button ends at ${confirmBox.y + confirmBox.height} of ${SMALL.height}`,
    );
    await assertPhoneFriendly(page, 'sign-off');
    await screenshot(page, 'report-signoff-360');
    // The signature pad: at least half the height in portrait with "Unterschreiben" in view below it, a hint to turn the phone, undo named as undo.
    await confirm.click();
    const pad = page.locator('canvas');
    await pad.waitFor();
    await page.waitForTimeout(300);
    const padHeight = (await pad.boundingBox())!.height;
    assert.ok(padHeight >= 0.5 * SMALL.height, `the pad is ${padHeight} px high at ${SMALL.height}`);
    const signBox = (await page.getByRole('button', { name: 'Unterschreiben', exact: true }).boundingBox())!;
    assert.ok(signBox.y + signBox.height <= SMALL.height, `"Unterschreiben" ends at ${signBox.y + signBox.height} of ${SMALL.height}`);
    await page.getByText('Mehr Platz: Telefon quer halten').waitFor();
    await page.getByRole('button', { name: 'Rückgängig' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Zurück', exact: true }).count(), 1, 'only the back button says "Zurück"');
    await assertPhoneFriendly(page, 'signature');
    await screenshot(page, 'report-signature-360');
    // Turned sideways: fields beside the pad, no hint.
    await page.setViewportSize({ width: SMALL.height, height: SMALL.width });
    await page.waitForTimeout(300);
    assert.equal(await page.getByText('Mehr Platz: Telefon quer halten').isVisible(), false);
    await page.setViewportSize(SMALL);
    await page.goto(`/app/#/report/${made.id}/pdf`);
    await page.getByRole('img', { name: /^Seite 1 von \d+$/ }).waitFor({ timeout: 60_000 });
    await assertPhoneFriendly(page, 'pdf preview');
    await page.goto('/app/#/queue');
    await page.getByRole('heading', { level: 1, name: 'Warteschlange' }).waitFor();
    await assertPhoneFriendly(page, 'queue');
    assert.deepEqual(errors, []);
    await context.close();
  });

  // ---- 10 -------------------------------------------------------------------------------------

  test("10: in English every text is English: units, page kinds, the signature's caption, the service's refusals", async () => {
    const order = (await orders()).find((o) => o.status === 1)!;
    const made = await signedReport(1, 'English', ['Boiler'], 'Jane Doe');

    const { page, context, errors } = await phone(world, { locale: 'en-GB' });
    await logInEnglish(page);
    await page.goto(`/app/#/order/${order.id}`);
    await page.getByRole('button', { name: 'Add material' }).click();
    const units = await page.getByLabel('Unit').locator('option').allTextContents();
    assert.ok(units.includes('pcs') && !units.includes('Stk') && !units.includes('Pkt'), `units in English: ${units.join(', ')}`);

    await page.goto(`/app/#/report/${made.id}`);
    const rows = page.locator('ol.pages > li');
    await until('two pages', async () => (await rows.count()) === 2);
    const signatureRow = ((await rows.nth(1).textContent()) ?? '').replace(/\s+/g, ' ');
    assert.match(signatureRow, /Signature Jane Doe/);
    assert.match(signatureRow, /Signed by Jane Doe on/);
    assert.doesNotMatch(signatureRow, /Unterschrift|Unterschrieben/);
    assert.match(((await rows.nth(0).textContent()) ?? '').replace(/\s+/g, ' '), /Title page/);
    await screenshot(page, 'report-english', { small: true });

    // A refusal of the service, said in English: a photo a report shows is not deleted.
    const photoName = await upload(order.id, await photo('boiler.jpg', '#566573'));
    const shown = await newReport(order.id, 'Shows the photo');
    await addPage(shown.id, { layout: 'photo', source: photoName });
    await page.goto(`/app/#/order/${order.id}`);
    await page.getByRole('button', { name: `Open photo ${photoName}` }).click();
    const viewer = page.getByRole('dialog', { name: new RegExp(photoName) });
    await viewer.getByRole('button', { name: `Delete photo ${photoName}` }).click();
    await viewer.getByRole('button', { name: 'Delete', exact: true }).click();
    const refusal = page.getByRole('alert').filter({ hasText: `Photo ${photoName} was not deleted` });
    await refusal.waitFor({ timeout: 30_000 });
    const said = ((await refusal.textContent()) ?? '').replace(/\s+/g, ' ');
    assert.match(said, new RegExp(`A report shows this photo.*${shown.ref}`));
    assert.doesNotMatch(said, /Foto|Bericht|verwendet/);
    await page.goto('/app/#/queue');
    const body = (await page.locator('main').textContent()) ?? '';
    assert.doesNotMatch(body, /Warteschlange|Wartet|abgelehnt/);
    assert.deepEqual(errors, []);
    await context.close();
  });

  // ---- 11 -------------------------------------------------------------------------------------

  test('11: a report of 40 photo pages draws the thumbnails in view first and the others as they come into view, not all at once', async () => {
    const order = (await orders()).find((o) => o.status === 2)!;
    const made = await newReport(order.id, 'Viele Fotos');
    for (let i = 0; i < 40; i++) {
      const name = await upload(
        order.id,
        await photo(`viele-${String(i).padStart(2, '0')}.jpg`, `#${(0x203040 + i * 0x050301).toString(16).slice(-6)}`, 480, 360),
      );
      await addPage(made.id, { layout: 'photo', source: name });
    }
    const { page, context, errors } = await phone(world);
    await logIn(page);
    // Thumbnail requests on their way at once: all 40 together before, now those near the view, then one at a time.
    let inFlight = 0;
    let mostInFlight = 0;
    const thumbnail = (url: string) => /\/api\/photo\.php\?.*size=/.test(url);
    page.on('request', (request) => {
      if (!thumbnail(request.url())) return;
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
    });
    const done = (request: { url(): string }) => {
      if (thumbnail(request.url())) inFlight--;
    };
    page.on('requestfinished', done);
    page.on('requestfailed', done);
    await page.goto(`/app/#/report/${made.id}`);
    const rows = page.locator('ol.pages > li');
    await until('40 rows', async () => (await rows.count()) === 40);
    const drawn = (row: number) =>
      rows
        .nth(row)
        .locator('img')
        .evaluateAll((imgs) => imgs.some((img) => (img as unknown as { naturalWidth: number }).naturalWidth > 0));
    await until("the first row's thumbnail drawn", () => drawn(0));
    await page.waitForTimeout(1000);
    assert.ok(mostInFlight > 0 && mostInFlight <= 20, `${mostInFlight} thumbnails asked for at once: those near the view, not all 40`);
    assert.equal(await drawn(39), false, 'the last row, far below, is not drawn yet');
    await rows.nth(39).scrollIntoViewIfNeeded();
    await until("the last row's thumbnail drawn once it is in view", () => drawn(39), 15_000);
    assert.deepEqual(errors, []);
    await context.close();
  });
});
