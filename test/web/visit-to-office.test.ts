/**
 * From the visit to the office, in Chromium at a phone's viewport, on every database: with no
 * network, the technician scans a part's EAN-13 with the phone's camera (Chromium's fake camera
 * shows it) and finds another part by typing its name; back online the lines reach the service;
 * the customer signs on the glass; the report is finalized. Then, read from the database: the
 * parts out of the technician's van (Dolibarr's stock movements and the van's stock), the draft
 * intervention linked to the order with its lines of time and parts, signed by the customer, and
 * the draft invoice linked to both, with the labour and the parts at Dolibarr's prices and its
 * totals; the app marks the lines out of the van.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import bwipjs from 'bwip-js/node';
import { chromium, type Page } from 'playwright-core';
import { testDialects } from '../helpers/databases.js';
import {
  CHROMIUM,
  CHROMIUM_FLAGS,
  apiToken,
  assertAccessible,
  type AppWorld,
  finger,
  goOffline,
  goOnline,
  logIn,
  phone,
  productsOnPhone,
  screenshot,
  skipReason,
  startWorld,
  until,
  untilOfflineReady,
} from '../helpers/browser.js';
import { y4mOf } from '../helpers/fake-camera.js';

const skip = skipReason();

for (const dialect of testDialects()) {
  describe(`app: from the visit to the office in Chromium [${dialect}]`, { skip }, () => {
    let world: AppWorld;
    before(async () => {
      world = await startWorld({}, dialect);
    });
    after(async () => world?.close());

    async function api<T>(url: string, options: { method?: 'GET' | 'POST'; payload?: unknown } = {}): Promise<T> {
      const res = await world.ctx.app.inject({
        url,
        method: options.method ?? 'GET',
        headers: { authorization: `Bearer ${await apiToken(world)}` },
        ...(options.payload === undefined ? {} : { payload: options.payload as Record<string, unknown> }),
      });
      assert.ok(res.statusCode < 300, `${url}: ${res.statusCode} ${res.body}`);
      return res.json() as T;
    }

    async function signOnPad(page: Page, signer: string) {
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

    test('offline: a part scanned and one searched; signed; finalized online; the stock, the intervention and the draft invoice in Dolibarr', async () => {
      const db = world.ctx.handle.db;
      const mine = await api<{ items: Array<{ id: number; ref: string; status: number }> }>('/api/orders.php?limit=100');
      const order = mine.items.find((o) => o.status === 1)!;
      assert.ok(order, 'the demo has a validated order of the technician');
      const element = { element_type: 'commande', fk_element: order.id };
      // Time on site: 2 h 15, ended 45 minutes ago.
      const arrival = Math.floor(Date.now() / 1000) - 3 * 3600;
      await api('/api/times.php?action=arrive', { method: 'POST', payload: { ...element, at: arrival } });
      await api('/api/times.php?action=leave', { method: 'POST', payload: { ...element, at: arrival + 8100 } });
      const report = await api<{ id: number; ref: string }>('/api/reports.php?action=create', {
        method: 'POST',
        payload: { fk_element: order.id, title: 'Wartung Brenner' },
      });
      await api(`/api/pages.php?action=add&bericht_id=${report.id}`, {
        method: 'POST',
        payload: { layout: 'title_only', title: 'Brenner gereinigt' },
      });
      const van = Number(
        (await db.selectFrom('user').select('fk_warehouse').where('login', '=', 'techniker').executeTakeFirstOrThrow()).fk_warehouse,
      );
      const stockOf = async (ref: string) =>
        Number(
          (
            await db
              .selectFrom('product_stock as s')
              .innerJoin('product as p', 'p.rowid', 's.fk_product')
              .select('s.reel')
              .where('p.ref', '=', ref)
              .where('s.fk_entrepot', '=', van)
              .executeTakeFirst()
          )?.reel ?? 0,
        );
      const before = { seal: await stockOf('DICHT-BR-01'), pipe: await stockOf('CU-15') };

      const dir = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-scan-'));
      const video = path.join(dir, 'ean13.y4m');
      writeFileSync(
        video,
        await y4mOf(await bwipjs.toBuffer({ bcid: 'ean13', text: '4260123450014', scale: 3, height: 18, includetext: true })),
      );
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
        // The whole catalogue on the phone before the cellar (its copy arrives in pages).
        const onSale = (await api<{ ids: number[] }>('/api/products.php?action=ids')).ids.length;
        const kept = () => productsOnPhone(page);
        await until('the catalogue on the phone', async () => (await kept()) === onSale, 45_000, kept);
        await page.goto(`/app/#/order/${order.id}`);
        await page.getByRole('heading', { name: /^Fotos/ }).waitFor();

        // In the cellar: a part scanned, a part searched by name.
        await goOffline(context);
        await page.getByRole('button', { name: 'Material hinzufügen' }).click();
        await page.getByRole('button', { name: 'Barcode scannen' }).click();
        await page.getByText('Artikel DICHT-BR-01 aus dem Katalog.').waitFor();
        await page.getByLabel('Menge').fill('2');
        await page.getByRole('button', { name: 'Hinzufügen', exact: true }).click();
        await page.getByLabel('Bezeichnung').fill('kupferrohr 15');
        await page
          .getByRole('list', { name: /Artikel im Katalog/ })
          .getByRole('button', { name: /Kupferrohr 15 mm/ })
          .click();
        await page.getByText('Artikel CU-15 aus dem Katalog.').waitFor();
        await page.getByLabel('Menge').fill('2,5');
        await page.getByRole('button', { name: 'Hinzufügen', exact: true }).click();
        await page.getByRole('button', { name: 'Warteschlange: 2 Einträge warten' }).waitFor();

        await goOnline(context);
        await page.evaluate('window.dispatchEvent(new Event("online"))');
        const linesAtService = async () =>
          (
            await api<{ items: Array<{ label: string; qty: number; fk_product: number | null; fk_stock_mouvement: number | null }> }>(
              `/api/materials.php?element_type=commande&fk_element=${order.id}`,
            )
          ).items;
        await until('the lines at the service', async () => (await linesAtService()).filter((l) => l.fk_product !== null).length === 2);

        // The customer signs on the glass; the report is finalized.
        await page.goto(`/app/#/report/${report.id}/sign`);
        await signOnPad(page, 'Erika Kundin');
        await page.getByText('Unterschrift gültig').waitFor({ timeout: 60_000 });
        await page.goto(`/app/#/report/${report.id}/pdf`);
        await page.getByRole('button', { name: 'Abschließen' }).click();
        await page
          .getByRole('dialog', { name: 'Bericht endgültig abschließen?' })
          .getByRole('button', { name: 'Endgültig abschließen' })
          .click();
        await page.getByText(/ist abgeschlossen\./).waitFor({ timeout: 90_000 });

        // The lines out of the van, as the app shows them.
        await page.goto(`/app/#/order/${order.id}`);
        await page.reload();
        const outOfVan = page.getByText(/aus dem Fahrzeug gebucht/).first();
        await outOfVan.waitFor();
        await assertAccessible(page, 'material lines out of the van');
        await outOfVan.evaluate((line) => line.scrollIntoView({ block: 'center' }));
        if (dialect === 'sqlite') await screenshot(page, 'visit-parts-out-of-van');
        assert.deepEqual(errors, []);
        await context.close();
      } finally {
        await browser.close();
        rmSync(dir, { recursive: true, force: true });
      }

      // Out of the van: Dolibarr's movements, the van's stock.
      const moves = await db
        .selectFrom('stock_mouvement as m')
        .innerJoin('product as p', 'p.rowid', 'm.fk_product')
        .select(['p.ref', 'm.value', 'm.type_mouvement', 'm.fk_entrepot', 'm.origintype'])
        .where('m.fk_origin', '=', order.id)
        .orderBy('m.rowid')
        .execute();
      assert.deepEqual(
        moves.map((m) => [m.ref, Number(m.value), Number(m.type_mouvement), Number(m.fk_entrepot), m.origintype]),
        [
          ['DICHT-BR-01', -2, 2, van, 'commande'],
          ['CU-15', -2.5, 2, van, 'commande'],
        ],
      );
      assert.deepEqual([await stockOf('DICHT-BR-01'), await stockOf('CU-15')], [before.seal - 2, before.pipe - 2.5]);

      // The intervention: linked to the order, its lines of time and parts, signed by the customer.
      const fi = await db
        .selectFrom('fichinter as f')
        .innerJoin('element_element as ee', 'ee.fk_target', 'f.rowid')
        .select(['f.rowid', 'f.ref', 'f.fk_statut', 'f.signed_status', 'f.duree', 'f.ref_ext'])
        .where('ee.sourcetype', '=', 'commande')
        .where('ee.targettype', '=', 'fichinter')
        .where('ee.fk_source', '=', order.id)
        .execute();
      assert.equal(fi.length, 1);
      assert.deepEqual(
        [fi[0]!.ref, Number(fi[0]!.fk_statut), Number(fi[0]!.signed_status), Number(fi[0]!.duree), fi[0]!.ref_ext],
        [`(PROV${fi[0]!.rowid})`, 0, 2, 8100, `fieldreport:${report.ref}`],
      );
      const fiLines = await db
        .selectFrom('fichinterdet')
        .select(['description', 'duree'])
        .where('fk_fichinter', '=', fi[0]!.rowid)
        .orderBy('rowid')
        .execute();
      assert.equal(fiLines[0]!.duree, 8100);
      assert.match(fiLines[0]!.description ?? '', /: vor Ort \d\d:\d\d–\d\d:\d\d$/);
      assert.deepEqual(
        fiLines.slice(1).map((l) => l.description),
        ['DICHT-BR-01 - Dichtungssatz Brenner<br><br> (Menge: 2 set)', 'CU-15 - Kupferrohr 15 mm<br><br> (Menge: 2.5 m)'],
      );

      // The draft invoice: linked to the order and the intervention; the labour and the parts at Dolibarr's prices; its totals.
      const invoices = await db
        .selectFrom('facture as f')
        .innerJoin('element_element as ee', 'ee.fk_target', 'f.rowid')
        .select(['f.rowid', 'f.ref', 'f.fk_statut', 'f.total_ht', 'f.total_tva', 'f.total_ttc'])
        .where('ee.sourcetype', '=', 'commande')
        .where('ee.targettype', '=', 'facture')
        .where('ee.fk_source', '=', order.id)
        .where('f.ref_ext', '=', `fieldreport:${report.ref}`)
        .execute();
      assert.equal(invoices.length, 1);
      const inv = invoices[0]!;
      const invLines = await db
        .selectFrom('facturedet as d')
        .leftJoin('product as p', 'p.rowid', 'd.fk_product')
        .select(['p.ref', 'd.qty', 'd.subprice', 'd.tva_tx', 'd.total_ht', 'd.total_ttc'])
        .where('d.fk_facture', '=', inv.rowid)
        .orderBy('d.rang')
        .execute();
      assert.deepEqual(
        invLines.map((l) => [l.ref, Number(l.qty), Number(l.subprice), Number(l.tva_tx), Number(l.total_ht), Number(l.total_ttc)]),
        [
          ['ARBEIT-STD', 2.25, 65, 19, 146.25, 174.04],
          ['DICHT-BR-01', 2, 12.5, 19, 25, 29.75],
          ['CU-15', 2.5, 8.4, 19, 21, 24.99],
        ],
      );
      assert.deepEqual(
        [inv.ref, Number(inv.fk_statut), Number(inv.total_ht), Number(inv.total_tva), Number(inv.total_ttc)],
        [`(PROV${inv.rowid})`, 0, 192.25, 36.53, 228.78],
      );
      const invLinks = await db
        .selectFrom('element_element')
        .select(['sourcetype', 'fk_source'])
        .where('fk_target', '=', inv.rowid)
        .where('targettype', '=', 'facture')
        .orderBy('rowid')
        .execute();
      assert.deepEqual(
        invLinks.map((l) => [l.sourcetype, Number(l.fk_source)]),
        [
          ['commande', order.id],
          ['fichinter', Number(fi[0]!.rowid)],
        ],
      );
    });
  });
}
