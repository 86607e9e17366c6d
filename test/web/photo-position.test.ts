/**
 * When and where a photo was taken, from the app, in Chromium at a phone's viewport: the phone's
 * capture time goes with every photo; its position only when the person switched it on in the
 * settings (off by default, explained in words), even though the browser would give it. With it
 * on (geolocation granted, a fake position set on the browser context), a photo taken with the
 * camera button offline keeps time and position in the outbox and sends them when the phone is
 * back online; the service records them and the final PDF prints the place under the photo
 * (pdftotext). A photo from the gallery goes with its file's time and never a position. The
 * settings screen passes axe-core at 390 × 844 and 360 × 640; screenshots of it, switched on.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import {
  apiToken,
  assertAccessible,
  assertPhoneFriendly,
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
import { pdfText, pdfToolsMissing } from '../helpers/pdf-tools.js';

const skip = skipReason() ?? pdfToolsMissing;
/** Munich, Marienplatz: where the fake phone is. */
const HERE = { latitude: 48.137433, longitude: 11.575494 };

describe("app: the phone's time and, when switched on, position with each photo [sqlite]", { skip }, () => {
  let world: AppWorld;
  let scratch: string;
  let order: { id: number; ref: string };
  let token: string;

  before(async () => {
    world = await startWorld();
    scratch = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-position-'));
    token = await apiToken(world);
    const list = await world.ctx.app.inject({ url: '/api/orders.php?limit=1', headers: { authorization: `Bearer ${token}` } });
    const first = (list.json() as { items: Array<{ id: number; ref: string }> }).items[0]!;
    order = { id: first.id, ref: first.ref };
  });
  after(async () => {
    await world?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  async function photo(name: string, color: string): Promise<string> {
    const file = path.join(scratch, name);
    await sharp({ create: { width: 800, height: 600, channels: 3, background: color } })
      .jpeg()
      .toFile(file);
    return file;
  }
  const evidenceOf = (name: string) =>
    world.ctx.handle.db
      .selectFrom('bericht_photo_evidence')
      .selectAll()
      .where('filename', '=', name)
      .where('filepath', 'like', 'commande/%')
      .executeTakeFirst();

  async function openOrder(page: Page): Promise<void> {
    await page.goto(`/app/#/order/${order.id}`);
    await page.getByRole('heading', { name: /^Fotos/ }).waitFor();
  }

  async function takeWith(page: Page, button: 'Foto' | 'Galerie', file: string): Promise<void> {
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: button, exact: true }).click();
    await (await chooser).setFiles([file]);
  }

  test("off by default: the setting says so, and a camera photo goes with the phone's time but no position, though the browser would give one", async () => {
    const { page, context, errors } = await phone(world);
    await context.grantPermissions(['geolocation'], { origin: world.origin });
    await context.setGeolocation(HERE);
    await logIn(page);
    await page.getByRole('button', { name: 'Einstellungen' }).click();
    const toggle = page.getByLabel('Standort bei Kamerafotos mitsenden');
    await toggle.waitFor();
    assert.equal(await toggle.isChecked(), false, 'off unless switched on');
    await page.getByText('Ausgeschaltet, solange Sie ihn nicht einschalten').waitFor();
    await page.getByText('der Bericht für den Kunden druckt ihn unter dem Foto').waitFor();
    await assertAccessible(page, 'settings, position off');
    await assertPhoneFriendly(page, 'settings, position off');

    await openOrder(page);
    // Offline first, to see what the outbox keeps with the photo: its time, no position.
    await untilOfflineReady(page);
    await goOffline(context);
    const before_ = Date.now();
    await takeWith(page, 'Foto', await photo('ohne-ort.jpg', '#6a8caf'));
    await until('the photo waits in the outbox', async () => (await captureOf(page, 'ohne-ort.jpg')) !== undefined);
    const waiting = (await captureOf(page, 'ohne-ort.jpg'))!;
    assert.deepEqual(Object.keys(waiting), ['takenAt'], 'no position kept on the phone');
    await goOnline(context);
    await until('the photo arrived', async () => (await evidenceOf('ohne-ort.jpg')) !== undefined);
    const row = (await evidenceOf('ohne-ort.jpg'))!;
    assert.match(
      row.device_taken_at ?? '',
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+0[12]:00$/,
      "the phone's time, at Berlin's offset",
    );
    assert.equal(row.device_taken_at, waiting.takenAt);
    assert.ok(Math.abs(Date.parse(row.device_taken_at!) - before_) < 60_000, row.device_taken_at!);
    assert.deepEqual([row.device_lat_e7, row.device_lon_e7], [null, null], 'no position reached the service');
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('switched on: a camera photo taken offline keeps time and position in the outbox, sends them online, and the final PDF prints the place', async () => {
    const { page, context, errors } = await phone(world);
    await context.grantPermissions(['geolocation'], { origin: world.origin });
    await context.setGeolocation(HERE);
    await logIn(page);
    await page.getByRole('button', { name: 'Einstellungen' }).click();
    await page.getByLabel('Standort bei Kamerafotos mitsenden').check();
    await page.getByText('Der Standort ist verfügbar und wird mit Kamerafotos gesendet.').waitFor();
    await assertAccessible(page, 'settings, position on (390 × 844)');
    await page.setViewportSize({ width: 360, height: 640 });
    await assertAccessible(page, 'settings, position on (360 × 640)');
    await page.setViewportSize({ width: 390, height: 844 });
    await assertPhoneFriendly(page, 'settings, position on');
    // The choice is kept: the screen opened again shows it on.
    await page.reload();
    const toggle = page.getByLabel('Standort bei Kamerafotos mitsenden');
    await toggle.waitFor();
    await until('the setting read back as on', () => toggle.isChecked());
    // Switched off and on again for the pictures (the app's first-visit note is gone after the reload).
    await toggle.uncheck();
    await toggle.check();
    await page.getByText('Der Standort ist verfügbar und wird mit Kamerafotos gesendet.').waitFor();
    // The section whole in the pictures: its heading just under the top bar.
    await page.getByRole('heading', { name: 'Standort zu Fotos' }).evaluate((heading) => {
      heading.closest('section')!.scrollIntoView({ block: 'start' });
      (globalThis as unknown as { scrollBy(x: number, y: number): void }).scrollBy(0, -72);
    });
    await screenshot(page, 'settings-photo-position', { small: true });

    await openOrder(page);
    await untilOfflineReady(page);
    await goOffline(context);
    const taken = Date.now();
    await takeWith(page, 'Foto', await photo('mit-ort.jpg', '#b03a2e'));
    // In the outbox with the photo: its time and the position.
    await until('the photo waits in the outbox', async () => (await captureOf(page, 'mit-ort.jpg')) !== undefined);
    const waiting = (await captureOf(page, 'mit-ort.jpg'))!;
    assert.deepEqual([waiting.lat, waiting.lon], [HERE.latitude, HERE.longitude]);
    assert.ok(Math.abs(Date.parse(waiting.takenAt) - taken) < 60_000, waiting.takenAt);

    // A photo from the gallery: the file's own time, and no position even now.
    const older = await photo('aus-galerie.jpg', '#1e8449');
    const fileTime = new Date('2026-11-20T07:30:00Z');
    utimesSync(older, fileTime, fileTime);
    await takeWith(page, 'Galerie', older);
    await until('the gallery photo waits too', async () => (await captureOf(page, 'aus-galerie.jpg')) !== undefined);
    const gallery = (await captureOf(page, 'aus-galerie.jpg'))!;
    assert.equal(Date.parse(gallery.takenAt), fileTime.getTime(), gallery.takenAt);
    assert.equal(gallery.takenAt, '2026-11-20T08:30:00.000+01:00');
    assert.deepEqual([gallery.lat, gallery.lon], [undefined, undefined]);
    assert.equal(await evidenceOf('mit-ort.jpg'), undefined, 'nothing sent while offline');

    await goOnline(context);
    await until(
      'both photos arrived',
      async () => (await evidenceOf('mit-ort.jpg')) !== undefined && (await evidenceOf('aus-galerie.jpg')) !== undefined,
    );
    const row = (await evidenceOf('mit-ort.jpg'))!;
    assert.deepEqual([Number(row.device_lat_e7), Number(row.device_lon_e7)], [481374330, 115754940]);
    assert.equal(row.device_taken_at, waiting.takenAt, 'the time of the capture, not of the sending');
    const galleryRow = (await evidenceOf('aus-galerie.jpg'))!;
    assert.deepEqual([galleryRow.device_taken_at, galleryRow.device_lat_e7], ['2026-11-20T08:30:00.000+01:00', null]);

    // The final PDF of a report with the photo prints where it was taken.
    const headers = { authorization: `Bearer ${token}` };
    const created = await world.ctx.app.inject({
      method: 'POST',
      url: '/api/reports.php?action=create',
      headers,
      payload: { fk_element: order.id, title: 'Mit Ort', photos_per_sheet: 1 },
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().id as number;
    const added = await world.ctx.app.inject({
      method: 'POST',
      url: `/api/pages.php?action=add&bericht_id=${id}`,
      headers,
      payload: { source: 'mit-ort.jpg', title: 'Kessel' },
    });
    assert.equal(added.statusCode, 201, added.body);
    assert.equal(added.json().evidence.gps_lat, HERE.latitude);
    const done = await world.ctx.app.inject({ method: 'POST', url: `/api/reports.php?id=${id}&action=finalize`, headers, payload: {} });
    assert.equal(done.statusCode, 200, done.body);
    const file = path.join(scratch, 'mit-ort.pdf');
    await writeFile(file, (await world.ctx.app.inject({ url: `/api/pdf.php?id=${id}`, headers })).rawPayload);
    const text = (await pdfText(file)).replace(/\s+/g, ' ');
    assert.ok(text.includes('Ort 48.13743, 11.57549'), text);
    assert.match(text, /Aufgenommen \d{2}\.\d{2}\.\d{4} \d{2}:\d{2} \(UTC\+0[12]:00, laut Gerät\)/);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('switched off again: the next camera photo goes without a position', async () => {
    const { page, context, errors } = await phone(world);
    await context.grantPermissions(['geolocation'], { origin: world.origin });
    await context.setGeolocation(HERE);
    await logIn(page);
    await page.getByRole('button', { name: 'Einstellungen' }).click();
    const toggle = page.getByLabel('Standort bei Kamerafotos mitsenden');
    await toggle.check();
    await page.getByText('Der Standort ist verfügbar').waitFor();
    await toggle.uncheck();
    await openOrder(page);
    await takeWith(page, 'Foto', await photo('wieder-aus.jpg', '#884ea0'));
    await until('the photo arrived', async () => (await evidenceOf('wieder-aus.jpg')) !== undefined);
    const row = (await evidenceOf('wieder-aus.jpg'))!;
    assert.ok(row.device_taken_at);
    assert.deepEqual([row.device_lat_e7, row.device_lon_e7], [null, null]);
    assert.deepEqual(errors, []);
    await context.close();
  });
});

/** The capture kept with a waiting photo record (by its file name), read from the app's IndexedDB. */
async function captureOf(page: Page, fileName: string): Promise<{ takenAt: string; lat?: number; lon?: number } | undefined> {
  return (await page.evaluate(`new Promise((resolve, reject) => {
    const open = indexedDB.open('fieldreport');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const all = open.result.transaction('outbox').objectStore('outbox').getAll();
      all.onsuccess = () => resolve(all.result.find((r) => r.kind === 'photo' && r.fileName === ${JSON.stringify(fileName)})?.capture);
      all.onerror = () => reject(all.error);
    };
  })`)) as { takenAt: string; lat?: number; lon?: number } | undefined;
}
