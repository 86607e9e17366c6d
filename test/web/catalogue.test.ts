/**
 * Parts from the catalogue, in Chromium at a phone's viewport, checked through the API: after the
 * login the phone keeps a copy of Dolibarr's catalogue (the demo's products and services on sale,
 * with the stock of the technician's van); with no network at all, a part is found by typing part
 * of its name and picked (its ref, net price and van stock shown), a part that keeps lot numbers
 * asks for one, and a line typed without picking a part is marked as free text. Back online the
 * lines reach the service with their product, the product's unit and the lot number; the free
 * text line without a product.
 * A part is also scanned: Chromium's fake camera shows an EAN-13 barcode (drawn by bwip-js, as a
 * Y4M video) and the app, offline, reads it with its own reader and picks the part.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import bwipjs from 'bwip-js/node';
import { chromium } from 'playwright-core';
import {
  CHROMIUM,
  CHROMIUM_FLAGS,
  apiToken,
  assertAccessible,
  assertPhoneFriendly,
  goOffline,
  goOnline,
  logIn,
  orderByRef,
  phone,
  productsOnPhone,
  screenshot,
  skipReason,
  startWorld,
  type AppWorld,
  until,
  untilOfflineReady,
} from '../helpers/browser.js';
import { y4mOf } from '../helpers/fake-camera.js';

const skip = skipReason();

interface Line {
  label: string;
  qty: number;
  unit: string | null;
  fk_product: number | null;
  batch: string | null;
}

describe('app: parts from the catalogue in Chromium [sqlite]', { skip }, () => {
  let world: AppWorld;

  before(async () => {
    world = await startWorld();
  });
  after(async () => {
    await world?.close();
  });

  async function lines(orderId: number): Promise<Line[]> {
    const res = await world.ctx.app.inject({
      url: `/api/materials.php?element_type=commande&fk_element=${orderId}`,
      headers: { authorization: `Bearer ${await apiToken(world)}` },
    });
    assert.equal(res.statusCode, 200, res.body);
    return (res.json() as { items: Line[] }).items;
  }

  async function product(ref: string) {
    const res = await world.ctx.app.inject({
      url: `/api/products.php?q=${encodeURIComponent(ref)}`,
      headers: { authorization: `Bearer ${await apiToken(world)}` },
    });
    assert.equal(res.statusCode, 200, res.body);
    const found = (res.json() as { items: Array<{ id: number; ref: string; unit: string | null; van_stock: number | null }> }).items.find(
      (p) => p.ref === ref,
    );
    assert.ok(found, `${ref} in the catalogue`);
    return found;
  }

  test('offline: a part found by name and picked, a part with a lot number, a free text line; sent with their products once online', async () => {
    const order = await orderByRef(world, 'CO2610-0006');
    const before = await lines(order.id);
    const fitting = await product('FIT-15-W');
    const pump = await product('PUMPE-UPM3');
    const onSale = await world.ctx.app.inject({
      url: '/api/products.php?action=ids',
      headers: { authorization: `Bearer ${await apiToken(world)}` },
    });
    const expected = (onSale.json() as { ids: number[] }).ids.length;

    const { page, context, errors } = await phone(world);
    await logIn(page);
    // The copy is made in the background after the login, once the open orders are kept.
    const kept = () => productsOnPhone(page);
    await until('the catalogue on the phone', async () => (await kept()) === expected, 45_000, kept);

    await page.goto(`/app/#/order/${order.id}`);
    await page.getByRole('heading', { name: /^Fotos/ }).waitFor();
    await goOffline(context);

    await page.getByRole('button', { name: 'Material hinzufügen' }).click();
    const name = page.getByLabel('Bezeichnung');
    await name.fill('pressfit wink');
    const hits = page.getByRole('list', { name: /Artikel im Katalog/ });
    const hit = hits.getByRole('button', { name: /Pressfitting Winkel 15 mm/ });
    await hit.waitFor();
    const shown = await hit.innerText();
    assert.match(shown, /FIT-15-W/);
    assert.match(shown, /3,20\s€ netto/);
    assert.match(shown, new RegExp(`Im Fahrzeug: ${fitting.van_stock}`));
    await hits.evaluate((list) => list.scrollIntoView({ block: 'center' }));
    await assertAccessible(page, 'catalogue search');
    await assertPhoneFriendly(page, 'catalogue search');
    await screenshot(page, 'catalogue-search');
    await hit.click();
    assert.equal(await name.inputValue(), 'Pressfitting Winkel 15 mm');
    await page.getByText('Artikel FIT-15-W aus dem Katalog.').waitFor();
    await page.getByLabel('Menge').fill('4');
    await page.getByRole('button', { name: 'Hinzufügen', exact: true }).click();
    await page.getByText('Pressfitting Winkel 15 mm').waitFor();

    // A pump keeps its serial numbers: none given is refused on the phone, before anything is queued.
    await name.fill('UPM3');
    await page.getByRole('button', { name: /Hocheffizienzpumpe UPM3/ }).click();
    await page.getByLabel('Menge').fill('1');
    await page.getByRole('button', { name: 'Hinzufügen', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'Bitte Charge oder Seriennummer eingeben.' }).waitFor();
    await page.getByLabel('Charge / Seriennummer').fill('SN-2611-0815');
    await assertAccessible(page, 'catalogue part with a serial number');
    await screenshot(page, 'catalogue-serial');
    await page.getByRole('button', { name: 'Hinzufügen', exact: true }).click();
    await page.getByText('Charge SN-2611-0815').waitFor();

    // The scanner, on a camera that shows no code (Chromium's own test picture): it keeps looking until cancelled.
    await page.getByRole('button', { name: 'Barcode scannen' }).click();
    const scanner = page.getByRole('region', { name: 'Barcode scannen' });
    await scanner.getByText('Den Barcode oder QR-Code des Artikels ins Bild halten.').waitFor();
    await until(
      'the camera playing',
      async () => (await scanner.locator('video').evaluate((v) => (v as unknown as { readyState: number }).readyState)) >= 2,
    );
    await assertAccessible(page, 'scanner');
    await screenshot(page, 'catalogue-scanner');
    await scanner.getByRole('button', { name: 'Abbrechen' }).click();
    await scanner.waitFor({ state: 'detached' });

    // Typed without picking: free text, and said so before and after adding.
    await name.fill('Hanf und Dichtpaste');
    await page.getByText('Freitext: kein Artikel aus dem Katalog gewählt.').waitFor();
    await page.getByLabel('Menge').fill('1');
    await page.getByRole('button', { name: 'Hinzufügen', exact: true }).click();
    await page.getByText(/Hanf und Dichtpaste/).waitFor();
    await page
      .getByText(/· Freitext/)
      .first()
      .waitFor();
    await page.getByRole('button', { name: 'Warteschlange: 3 Einträge warten' }).waitFor();
    assert.deepEqual(await lines(order.id), before, 'nothing reached the service offline');

    await goOnline(context);
    await page.evaluate('window.dispatchEvent(new Event("online"))');
    await until('the three lines at the service', async () => (await lines(order.id)).length === before.length + 3);
    const added = (await lines(order.id)).filter((l) => !before.some((b) => b.label === l.label && b.qty === l.qty));
    const byLabel = new Map(added.map((l) => [l.label, l]));
    const picked = byLabel.get('Pressfitting Winkel 15 mm');
    assert.deepEqual(picked && { qty: picked.qty, fk_product: picked.fk_product, unit: picked.unit, batch: picked.batch }, {
      qty: 4,
      fk_product: fitting.id,
      unit: fitting.unit,
      batch: null,
    });
    assert.equal(byLabel.get('Hocheffizienzpumpe UPM3 25-70')?.fk_product, pump.id);
    assert.equal(byLabel.get('Hocheffizienzpumpe UPM3 25-70')?.batch, 'SN-2611-0815');
    assert.equal(byLabel.get('Hanf und Dichtpaste')?.fk_product, null);

    // The copy holds this technician's van: a logout leaves none of it on the phone.
    await page.goto('/app/#/settings');
    await page.getByText(new RegExp(`${expected} Artikel auf dem Gerät`)).waitFor();
    await page.getByRole('button', { name: 'Abmelden', exact: true }).click();
    await page.getByLabel('Benutzername').waitFor();
    assert.equal(await kept(), 0, 'the catalogue left the phone with the logout');
    assert.deepEqual(errors, []);
    await context.close();
  });

  test("offline: a part scanned from its EAN-13 with the phone's camera is picked and sent with its product", async () => {
    const order = await orderByRef(world, 'CO2610-0005');
    const before = await lines(order.id);
    const seal = await product('DICHT-BR-01');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-scan-'));
    const video = path.join(dir, 'ean13.y4m');
    const code = await bwipjs.toBuffer({ bcid: 'ean13', text: '4260123450014', scale: 3, height: 18, includetext: true });
    writeFileSync(video, await y4mOf(code));
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        ...CHROMIUM_FLAGS,
        '--use-fake-device-for-media-stream',
        '--use-fake-ui-for-media-stream',
        `--use-file-for-fake-video-capture=${video}`,
      ],
    });
    try {
      const { page, context, errors } = await phone({ ...world, browser });
      await context.grantPermissions(['camera', 'microphone'], { origin: world.origin });
      await logIn(page);
      await untilOfflineReady(page);
      const kept = () => productsOnPhone(page);
      await until('the catalogue on the phone', async () => (await kept()) > 0, 45_000, kept);
      await page.goto(`/app/#/order/${order.id}`);
      await page.getByRole('heading', { name: /^Fotos/ }).waitFor();
      await goOffline(context);

      await page.getByRole('button', { name: 'Material hinzufügen' }).click();
      await page.getByRole('button', { name: 'Barcode scannen' }).click();
      await page.getByRole('region', { name: 'Barcode scannen' }).waitFor();
      await page.getByText('Artikel DICHT-BR-01 aus dem Katalog.').waitFor();
      assert.equal(await page.getByRole('region', { name: 'Barcode scannen' }).count(), 0, 'the scanner closed');
      assert.equal(await page.getByLabel('Bezeichnung').inputValue(), 'Dichtungssatz Brenner');
      await assertAccessible(page, 'part scanned');
      await screenshot(page, 'catalogue-scanned');
      await page.getByLabel('Menge').fill('2');
      await page.getByRole('button', { name: 'Hinzufügen', exact: true }).click();
      await page.getByRole('button', { name: 'Warteschlange: 1 Eintrag wartet' }).waitFor();

      await goOnline(context);
      await page.evaluate('window.dispatchEvent(new Event("online"))');
      await until('the line at the service', async () => (await lines(order.id)).length === before.length + 1);
      const added = (await lines(order.id)).find((l) => l.label === 'Dichtungssatz Brenner' && l.qty === 2);
      assert.equal(added?.fk_product, seal.id);
      assert.deepEqual(errors, []);
      await context.close();
    } finally {
      await browser.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
