/**
 * A maintenance visit from arrival to the final PDF, as a heating technician makes it with the
 * demo, in Chromium at a phone's viewport with touch, against the real service on SQLite:
 * offline from arrival to signature, the technician arrives, fills the demo's checklist (the gas
 * boiler's service: OK by taps, measured values with a decimal comma, one value above its limit,
 * one defect with a note whose photo is marked up with an arrow, "alle übrigen OK"), records the
 * material used, and the customer reads the sign-off (the work, the time on site, the material,
 * the defects) and signs while the technician is still on site (the missing departure explained);
 * then the departure. Back online every change arrives exactly once (one idempotency row per
 * outbox record, one marked photo in the order's folder, one photo page for it, one signature, one
 * interval with the phone's tap times); the signature's hash covers the sign-off (form 4, its
 * metadata holds what was shown) and the check says the departure came after it; a material line
 * changed after signing shows as not covered on the public check page and in the PDF. The report
 * is finalized in the app, and the PDF's text holds the defects first, every item with its result
 * and value, and the time on site with its total. The checks read the API, the database and the
 * documents folder, not the app's words.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { objectFolder } from '../../src/dolibarr/documents.js';
import { readItems } from '../../src/modules/pages/checklist.js';
import {
  apiToken,
  assertAccessible,
  finger,
  outboxRecords,
  goOffline,
  goOnline,
  logIn,
  phone,
  screenshot,
  skipReason,
  startWorld,
  type AppWorld,
  until,
} from '../helpers/browser.js';
import { inOrder, pdfBytesText } from '../helpers/pdf-tools.js';

const skip = skipReason() ?? (existsSync('/usr/bin/pdftotext') ? undefined : 'pdftotext not installed (Debian package poppler-utils)');

const DEFECT = 'Abgasleitung dicht, fest und Mündung frei';
const DEFECT_NOTE = 'Mündung durch Vogelnest teilweise verlegt; Kunde informiert, Reinigung angeboten';
const PHOTO = 'Schornstein_Mauerwerk.jpg';
const VALUES: Array<[label: string, typed: string, stored: number]> = [
  ['Anlagendruck (kalt)', '1,6', 1.6],
  ['Gas-Fließdruck am Gerät', '21', 21],
  ['CO im Abgas (unverdünnt)', '12', 12],
  ['Abgasverlust', '11,4', 11.4],
];
const SIGNER = 'Berta Sonnenschein';
/** Material used, as typed on the phone (a decimal comma). */
const MATERIALS: Array<[label: string, typed: string, qty: number]> = [
  ['Dichtung Brenner', '1', 1],
  ['Kupferrohr 15 mm', '2,5', 2.5],
];
const NO_DEPARTURE = 'Kunde muss los; Abfahrt nach der Unterschrift';
/** Why the flue gas loss above its limit is accepted. */
const OK_REASON = 'Brenner noch im Anlauf; Nachmessung bei Volllast ergab 9,8 %';

interface Item {
  label: string;
  state: string;
  ok_reason: string | null;
  value: number | null;
  deviation: string | null;
  note: string | null;
  photos: Array<{ name: string }>;
}
interface PageRow {
  id: number;
  layout: string;
  title: string | null;
  source_path: string | null;
  checklist: Item[] | null;
}
interface Verification {
  verified: boolean;
  // biome-ignore lint/suspicious/noExplicitAny: the sealed metadata, read field by field.
  metadata: any;
  not_covered: {
    materials_added: unknown[];
    materials_removed: unknown[];
    times_added: unknown[];
    times_removed: unknown[];
  };
}
interface Report {
  id: number;
  ref: string;
  status: string;
  fk_element: number;
  pages: PageRow[];
}

describe('app: a maintenance visit from arrival to the final PDF, offline from arrival to signature [sqlite]', { skip }, () => {
  let world: AppWorld;
  let scratch: string;
  before(async () => {
    world = await startWorld();
    scratch = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-maintenance-'));
  });
  after(async () => {
    await world?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  async function api<T = unknown>(url: string, init: { method?: 'GET' | 'POST' } = {}): Promise<T> {
    const res = await world.ctx.app.inject({
      url,
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${await apiToken(world)}` },
    });
    assert.ok(res.statusCode < 300, `${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    return (res.headers['content-type']?.toString().startsWith('application/json') ? res.json() : res.rawPayload) as T;
  }
  const item = (page: Page, label: string): Locator =>
    page.locator('li[data-item]').filter({ has: page.getByRole('heading', { name: label }) });
  /** The key as the service keeps it: a hash of the Idempotency-Key (the outbox record's id). */
  const keyOf = (id: string) => createHash('sha256').update(id, 'utf8').digest('hex');

  test('arrive, checklist with a defect marked on its photo and a value above its limit, leave, sign offline; online each change once; the PDF says it all', async () => {
    // The demo's draft report on the technician's first order starts with the checklist.
    const listed = await api<{ items: Array<{ id: number; title: string; fk_element: number; status: string }> }>('/api/reports.php');
    const draft = listed.items.find((r) => r.title === 'Wartung Gas-Brennwertheizung' && r.status === 'draft');
    assert.ok(draft, 'the demo draft report');
    const start = await api<Report>(`/api/reports.php?id=${draft.id}`);
    const checklistPage = start.pages.find((p) => p.layout === 'checklist')!;
    const labels = checklistPage.checklist!.map((i) => i.label);
    assert.equal(labels.length, 13);
    const orderId = start.fk_element;
    const order = await api<{ ref: string }>(`/api/orders.php?id=${orderId}`);
    const folder = objectFolder(world.ctx.config.dataRoot, world.ctx.config.entity, 'commande', order.ref).dir;
    const filesBefore = readdirSync(folder);

    const { page, context, errors } = await phone(world);
    // The next item comes into view at once, not in a smooth scroll a tap could land in the middle of.
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await logIn(page);
    await page.waitForFunction(
      () =>
        (globalThis as unknown as { navigator: { serviceWorker: { controller: unknown } } }).navigator.serviceWorker.controller !== null,
    );
    // With signal at the door: the order, its report and the photo of the chimney seen in full.
    await page.goto(`/app/#/order/${orderId}`);
    await page.getByRole('heading', { name: 'Zeit vor Ort' }).waitFor();
    await page.getByRole('button', { name: `Foto ${PHOTO} öffnen` }).click();
    const viewer = page.locator('dialog.viewer');
    await until(
      'the whole photo shown',
      async () =>
        (await viewer
          .locator('img')
          .evaluate((i) => (i as unknown as { naturalWidth: number }).naturalWidth)
          .catch(() => 0)) > 480,
    );
    await page.keyboard.press('Escape');
    await viewer.waitFor({ state: 'detached' });
    await page.getByRole('link', { name: /Wartung Gas-Brennwertheizung/ }).click();
    await page.getByRole('link', { name: /Prüfliste Gas-Brennwertheizung/ }).waitFor();
    await page.getByRole('button', { name: 'Zurück' }).click();
    await page.getByRole('heading', { name: 'Zeit vor Ort' }).waitFor();

    // In the cellar: no signal from here to the signature. The phone's clock: two hours ago.
    await goOffline(context);
    const arrivedAt = new Date(Date.now() - 2 * 3600_000);
    await page.clock.setSystemTime(arrivedAt);
    await page.getByRole('button', { name: 'Angekommen' }).tap();
    // A finger that bounces: the second tap right after the first is not the departure.
    await page.getByRole('button', { name: 'Abfahrt' }).tap();
    await page.waitForTimeout(300);
    const timeRecords = async () => (await outboxRecords(page)).filter((r) => r.kind.startsWith('time-')).map((r) => r.kind);
    assert.deepEqual(await timeRecords(), ['time-arrive'], 'one arrival, no departure');
    // The tap can be taken back while it waits on the phone; then the arrival again.
    await page.getByRole('button', { name: /^Rückgängig: Ankunft/ }).click();
    await page.getByRole('button', { name: 'Angekommen' }).waitFor();
    assert.deepEqual(await timeRecords(), []);
    await page.waitForTimeout(1600);
    await page.clock.setSystemTime(arrivedAt);
    await page.getByRole('button', { name: 'Angekommen' }).tap();
    await page.getByRole('button', { name: 'Abfahrt' }).waitFor();
    assert.deepEqual(await timeRecords(), ['time-arrive']);

    await page.getByRole('link', { name: /Wartung Gas-Brennwertheizung/ }).click();
    await page.getByRole('link', { name: /Prüfliste Gas-Brennwertheizung/ }).click();
    await page.getByText('0 von 13 geprüft').waitFor();

    // The first steps OK by a tap each.
    for (const label of labels.slice(0, 1)) await item(page, label).getByRole('button', { name: 'OK' }).tap();
    // The defect: a note, the chimney's photo, marked up with an arrow where the nest is.
    const defect = item(page, DEFECT);
    await defect.getByRole('button', { name: 'Mangel' }).tap();
    await defect.getByLabel(/Was ist mangelhaft/).fill(DEFECT_NOTE);
    await defect.getByRole('button', { name: `Foto ${PHOTO} zum Mangel` }).click();
    await defect.getByRole('button', { name: 'Foto markieren' }).click();
    const annotator = page.getByRole('dialog', { name: `Markieren: ${PHOTO}` });
    const canvas = page.locator('dialog.annotate canvas.marks');
    await until('the photo in the annotator', async () => ((await canvas.boundingBox())?.width ?? 0) > 100);
    await page.waitForTimeout(300);
    const box = (await canvas.boundingBox())!;
    await finger(
      page,
      Array.from({ length: 12 }, (_, i) => ({ x: box.x + box.width * (0.2 + i * 0.04), y: box.y + box.height * (0.3 + i * 0.02) })),
    );
    await annotator.getByRole('button', { name: 'Speichern' }).click();
    await annotator.waitFor({ state: 'detached' });
    const marked = PHOTO.replace(/\.jpg$/, '_markiert.jpg');
    await defect.getByRole('button', { name: 'Mangel speichern' }).click();
    await page.getByText(/2 von 13 geprüft, 1 Mangel/).waitFor();

    // The measured values, typed with a decimal comma; the flue gas loss is above its limit, said at once.
    for (const [index, [label, typed]] of VALUES.entries()) {
      const row = item(page, label);
      await row.scrollIntoViewIfNeeded();
      await row.getByLabel(/Messwert/).fill(typed);
      if (label === 'Abgasverlust') await row.getByText('über dem Grenzwert 10 %').waitFor();
      await row.getByRole('button', { name: 'OK' }).tap();
      if (label === 'Abgasverlust') {
        // Above its limit, OK only with a reason ("OK trotz Grenzwert"); without one it is no OK.
        const save = row.getByRole('button', { name: 'OK trotz Grenzwert speichern' });
        await save.click();
        await row.getByText('Ohne Begründung ist ein Wert außerhalb des Grenzwerts ein Mangel.').waitFor();
        await row.getByLabel(/OK trotz Grenzwert – Begründung/).fill(OK_REASON);
        await save.click();
        await row.getByText(`OK trotz Grenzwert: ${OK_REASON}`).waitFor();
      }
      await page.getByText(new RegExp(`${3 + index} von 13 geprüft, 1 Mangel`)).waitFor();
    }
    await page.getByText(/6 von 13 geprüft, 1 Mangel/).waitFor();
    // The rest OK, after the confirmation.
    await page.getByRole('button', { name: 'Alle übrigen OK' }).click();
    await page.getByRole('dialog', { name: 'Alle übrigen Punkte OK?' }).getByRole('button', { name: 'OK setzen' }).click();
    await page.getByText(/13 von 13 geprüft, 1 Mangel/).waitFor();

    // The material used, on the order, still without signal (beside the lines the order had).
    const before = (
      await api<{ items: Array<{ label: string; qty: number; unit: string | null; note: string | null }> }>(
        `/api/materials.php?element_type=commande&fk_element=${orderId}`,
      )
    ).items;
    await page.getByRole('button', { name: 'Zum Bericht' }).click();
    await page.getByRole('link', { name: new RegExp(`Auftrag ${order.ref}`) }).click();
    await page.getByRole('button', { name: 'Material hinzufügen' }).click();
    for (const [label, typed] of MATERIALS) {
      await page.getByLabel('Bezeichnung').fill(label);
      await page.getByLabel('Menge').fill(typed);
      await page.getByRole('button', { name: 'Hinzufügen', exact: true }).click();
      await page.getByRole('button', { name: `${label} nicht senden` }).waitFor();
    }

    // Fifty minutes in, still on site: the customer reads the sign-off and signs, without signal.
    const signedAt = new Date(arrivedAt.getTime() + 50 * 60_000);
    await page.clock.setSystemTime(signedAt);
    await page.goto(`/app/#/report/${draft.id}/sign`);
    const main = page.locator('main');
    await page.getByRole('heading', { name: 'Arbeiten laut Auftrag' }).waitFor();
    const work = (await api<{ note_public: string }>(`/api/orders.php?id=${orderId}`)).note_public.trim();
    await main.getByText(work).first().waitFor();
    await main.getByText('vor Ort', { exact: true }).waitFor();
    // The order's lines as the service had them, then the two typed offline.
    for (const line of before) await main.locator('li').filter({ hasText: line.label }).first().waitFor();
    for (const [label, typed] of MATERIALS) await main.locator('li').filter({ hasText: label }).getByText(`${typed} Stk`).waitFor();
    await main.getByText('13 Punkte: 12 OK, 1 Mängel, 0 offen').waitFor();
    await main.getByText(DEFECT_NOTE).first().waitFor();
    await main
      .getByText(/über dem Grenzwert 10 %/)
      .first()
      .waitFor();
    const confirm = page.getByRole('button', { name: 'Bestätigen und unterschreiben' });
    assert.equal(await confirm.isDisabled(), true, 'the missing departure needs its reason first');
    await page.getByLabel('Die Abfahrt ist nicht erfasst. Grund:').fill(NO_DEPARTURE);
    await assertAccessible(page, 'sign-off of a maintenance visit');
    await screenshot(page, 'signoff-maintenance');
    await confirm.click();
    await page
      .getByText(
        new RegExp(`^Sie bestätigen die Arbeiten, die Zeit vor Ort seit \\d{2}:\\d{2} und ${before.length + 2} Materialpositionen\\.`),
      )
      .waitFor();
    await page.getByLabel('Name der unterschreibenden Person').fill(SIGNER);
    const pad = page.locator('canvas');
    await pad.scrollIntoViewIfNeeded();
    await page.waitForTimeout(300);
    const padBox = (await pad.boundingBox())!;
    await finger(
      page,
      Array.from({ length: 18 }, (_, i) => ({
        x: padBox.x + padBox.width * (0.15 + i * 0.04),
        y: padBox.y + padBox.height * (0.5 + Math.sin(i / 2) * 0.15),
      })),
    );
    await page.getByRole('button', { name: 'Unterschreiben' }).click();
    await until('the signature in the outbox', async () => (await outboxRecords(page)).some((r) => r.kind === 'signature'));

    // Ten minutes later: leaving, after the signature.
    const leftAt = new Date(arrivedAt.getTime() + 3600_000);
    await page.clock.setSystemTime(leftAt);
    await page.goto(`/app/#/order/${orderId}`);
    await page.getByRole('button', { name: 'Abfahrt' }).click();
    await page.getByRole('button', { name: 'Angekommen' }).waitFor();

    // Nothing reached the service while offline.
    const queued = await outboxRecords(page);
    assert.deepEqual(readdirSync(folder).sort(), [...filesBefore].sort(), 'no file arrived offline');
    const kinds = queued.map((r) => r.kind);
    for (const kind of ['time-arrive', 'photo', 'page-add', 'check-item', 'check-all', 'material-add', 'signature', 'time-leave'])
      assert.ok(kinds.includes(kind), `${kind} queued: ${kinds.join(', ')}`);
    assert.ok(
      kinds.indexOf('photo') < kinds.indexOf('page-add') &&
        kinds.indexOf('page-add') < kinds.indexOf('signature') &&
        kinds.lastIndexOf('material-add') < kinds.indexOf('signature') &&
        kinds.indexOf('signature') < kinds.indexOf('time-leave'),
      kinds.join(', '),
    );

    // Signal again: everything goes, once.
    await page.clock.setSystemTime(new Date());
    await goOnline(context);
    await page.evaluate('window.dispatchEvent(new Event("online"))');
    await page.getByRole('button', { name: 'Warteschlange: 0 Einträge warten' }).waitFor({ timeout: 90_000 });
    const keys = await world.ctx.handle.db.selectFrom('bericht_idempotency').select(['idem_key', 'scope']).execute();
    for (const record of queued)
      assert.equal(keys.filter((k) => k.idem_key === keyOf(record.id)).length, 1, `${record.kind} ${record.id} arrived once`);

    const after = await api<Report>(`/api/reports.php?id=${draft.id}`);
    const items = after.pages.find((p) => p.id === checklistPage.id)!.checklist!;
    assert.deepEqual(
      items.map((i) => i.label),
      labels,
    );
    assert.ok(
      items.every((i) => i.state !== 'open'),
      'every item answered',
    );
    const byLabel = (label: string) => items.find((i) => i.label === label)!;
    assert.equal(byLabel(DEFECT).state, 'defect');
    assert.equal(byLabel(DEFECT).note, DEFECT_NOTE);
    assert.deepEqual(
      byLabel(DEFECT).photos.map((p) => p.name),
      [marked],
      'the marked copy, not the original',
    );
    for (const [label, , stored] of VALUES) assert.equal(byLabel(label).value, stored, label);
    assert.equal(byLabel('Abgasverlust').deviation, 'above');
    assert.deepEqual([byLabel('Abgasverlust').state, byLabel('Abgasverlust').ok_reason], ['ok', OK_REASON]);
    const stored = await world.ctx.handle.db
      .selectFrom('bericht_page')
      .select('checklist')
      .where('rowid', '=', checklistPage.id)
      .executeTakeFirstOrThrow();
    assert.equal(readItems(stored.checklist).find((i) => i.label === 'Abgasverlust')?.value, 11.4);
    // One marked photo in the order's folder (the original untouched), one photo page showing it, one signature.
    assert.deepEqual(
      readdirSync(folder).filter((f) => !filesBefore.includes(f)),
      [marked],
    );
    assert.equal(after.pages.filter((p) => p.source_path?.endsWith(`/${marked}`)).length, 1, 'one page shows the marked photo');
    assert.equal(after.pages.filter((p) => p.layout === 'signature').length, 1);
    const times = await api<{ items: Array<{ arrival_tapped: number; departure_tapped: number; seconds: number }> }>(
      `/api/times.php?element_type=commande&fk_element=${orderId}`,
    );
    assert.equal(times.items.length, 1);
    assert.ok(Math.abs(times.items[0]!.arrival_tapped - arrivedAt.getTime() / 1000) <= 2);
    assert.ok(Math.abs(times.items[0]!.departure_tapped - leftAt.getTime() / 1000) <= 2);

    // The signature covers what the sign-off showed: the work, the time on site (still open then), the material.
    const signaturePage = after.pages.find((p) => p.layout === 'signature')!;
    const checked = await api<Verification>(`/ajax/verify_signature.php?id=${signaturePage.id}`);
    assert.equal(checked.verified, true, JSON.stringify(checked));
    assert.equal(checked.metadata.hash_form, 'fieldreport-pages/4');
    const shown = checked.metadata.signoff;
    assert.equal(shown.work, work);
    assert.deepEqual(shown.times, [{ arrival: times.items[0]!.arrival_tapped, departure: null }]);
    assert.deepEqual(shown.materials, [
      ...before.map(({ label, qty, unit, note }) => ({ label, qty, unit, note })),
      ...MATERIALS.map(([label, , qty]) => ({ label, qty, unit: 'Stk', note: null })),
    ]);
    assert.deepEqual(shown.checklist, { items: 13, ok: 12, defects: 1, na: 0, open: 0, outside_limits: 1 });
    assert.deepEqual(shown.missing, [{ what: 'no_departure', reason: NO_DEPARTURE }]);
    // The departure came after the signature: that interval, as it is now, is not covered.
    const interval = { arrival: times.items[0]!.arrival_tapped, departure: times.items[0]!.departure_tapped };
    assert.deepEqual(checked.not_covered.times_added, [interval]);
    assert.deepEqual(checked.not_covered.times_removed, [{ arrival: interval.arrival, departure: null }]);
    assert.deepEqual(checked.not_covered.materials_added, []);

    // A material line changed after signing (2,5 m become 3): on the phone, online.
    await page.goto(`/app/#/order/${orderId}`);
    await page.getByRole('button', { name: `${MATERIALS[1]![0]} entfernen` }).click();
    await page.getByRole('button', { name: 'Material hinzufügen' }).click();
    await page.getByLabel('Bezeichnung').fill(MATERIALS[1]![0]);
    await page.getByLabel('Menge').fill('3');
    await page.getByRole('button', { name: 'Hinzufügen', exact: true }).click();
    await page.getByRole('button', { name: 'Warteschlange: 0 Einträge warten' }).waitFor({ timeout: 60_000 });
    const changed = await api<Verification>(`/ajax/verify_signature.php?id=${signaturePage.id}`);
    assert.equal(changed.verified, true);
    assert.deepEqual(changed.not_covered.materials_added, [{ label: MATERIALS[1]![0], qty: 3, unit: 'Stk', note: null }]);
    assert.deepEqual(changed.not_covered.materials_removed, [{ label: MATERIALS[1]![0], qty: 2.5, unit: 'Stk', note: null }]);
    // The app's check of the signature page says so, line by line.
    await page.goto(`/app/#/report/${draft.id}/page/${signaturePage.id}`);
    await page.getByText('Seit der Unterschrift geändert und von ihr nicht erfasst:').waitFor({ timeout: 30_000 });
    await page.getByText(`Material neu oder geändert: ${MATERIALS[1]![0]} 3 Stk`).waitFor();
    await page.getByText(`Material entfernt oder geändert: ${MATERIALS[1]![0]} 2,5 Stk`).waitFor();
    // The public check page behind the QR code: counts only.
    const code = checked.metadata.verify_code;
    const publicPage = await world.ctx.app.inject({ url: `/public/verify_signature.php?code=${code}` });
    assert.match(
      publicPage.body,
      /<dt>Nicht gedeckt<\/dt><dd class="bad">seit der Unterschrift 1 Zeitraum geändert, 1 Materialposition geändert<\/dd>/,
    );

    // Finalized in the app; the PDF holds the defect first, every item, the time on site.
    await page.goto(`/app/#/report/${draft.id}/pdf`);
    await page.getByRole('img', { name: /^Seite 1 von \d+$/ }).waitFor({ timeout: 90_000 });
    await page.getByRole('button', { name: 'Abschließen' }).click();
    await page
      .getByRole('dialog', { name: 'Bericht endgültig abschließen?' })
      .getByRole('button', { name: 'Endgültig abschließen' })
      .click();
    await page.getByText(/ist abgeschlossen\./).waitFor({ timeout: 120_000 });
    const final = await api<Report>(`/api/reports.php?id=${draft.id}`);
    assert.equal(final.status, 'final');
    const text = pdfBytesText(await api<Buffer>(`/api/pdf.php?id=${draft.id}`), scratch);
    const photoNumber = final.pages.filter((p) => p.layout === 'photo').findIndex((p) => p.source_path?.endsWith(`/${marked}`)) + 1;
    // The summary (what was open at signing, time on site, material), then the checklist once, as its page.
    const expected = [
      'Bei der Unterschrift noch offen:',
      'Abfahrt nicht erfasst – Grund:',
      'Zeit vor Ort',
      'Max Mustermann',
      '1 h 00 min',
      'Gesamt',
      '1 h 00 min',
      'Material',
      MATERIALS[0]![0],
      MATERIALS[1]![0],
      'nicht von der Unterschrift',
      'Nach der Unterschrift entfernt:',
      'Prüfliste Gas-Brennwertheizung',
      '13 Punkte, 1 Mangel',
      ...labels.flatMap((label) => {
        const i = byLabel(label);
        const value = VALUES.find(([l]) => l === label);
        if (i.state === 'defect') return [label.slice(0, 30), '✗ Mangel', DEFECT_NOTE.slice(0, 25), `Foto ${photoNumber}`];
        if (i.ok_reason) return [label.slice(0, 30), '✓ OK', `${value![1]} `, 'Begründung: Brenner noch im Anlauf'];
        return [label.slice(0, 30), '✓ OK', ...(value ? [`${value[1]} `] : [])];
      }),
    ];
    const found = inOrder(text.replace(/[ \t]+\n/g, '\n'), expected);
    assert.ok(
      found.every((p) => p >= 0),
      `in order: ${JSON.stringify(expected.map((e, i) => [e, found[i]]).filter(([, p]) => p === -1))}\n${text}`,
    );
    assert.match(
      text,
      new RegExp(`Foto ${photoNumber} – Mangel: ${DEFECT.slice(0, 20)}`),
      'the marked photo is a page of the report, named by the defect',
    );
    assert.deepEqual(errors, []);
    await context.close();
  });
});
