/**
 * Offline first, in Chromium at a phone's viewport, checked through the documents folder and the
 * API. "Offline" is Chromium's offline emulation plus routing that aborts every request the
 * browser would send (the emulation does not cover a service worker's own requests), so a test
 * cannot pass by reaching the network by accident.
 * - With no network, two photos and a material line are captured; the outbox shows them; a reload
 *   starts the app from the service worker and the outbox still shows them; the service has
 *   nothing. Back online each arrives exactly once, also when the answer to the first photo is
 *   lost on the way back (the retry carries the same Idempotency-Key).
 * - The shell of /app/ loads with no network after the first visit.
 * - A token that expires while the outbox waits: the app asks for the password, then sends the rest.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { objectFolder } from '../../src/dolibarr/documents.js';
import { createTokenService, TOKEN_LIFETIME_SECONDS } from '../../src/modules/auth/token.js';
import {
  apiToken,
  goOffline,
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

const skip = skipReason();

describe('app: offline first in Chromium [sqlite]', { skip }, () => {
  let world: AppWorld;
  let scratch: string;

  before(async () => {
    world = await startWorld();
    scratch = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-app-'));
  });
  after(async () => {
    await world?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  function folderOf(ref: string) {
    return objectFolder(world.ctx.config.dataRoot, world.ctx.config.entity, 'commande', ref).dir;
  }
  /** The order's files (not the service's temporary ones, which start with a dot). */
  const files = (dir: string) =>
    existsSync(dir)
      ? readdirSync(dir, { withFileTypes: true })
          .filter((e) => e.isFile() && !e.name.startsWith('.'))
          .map((e) => e.name)
          .sort()
      : [];
  async function materials(orderId: number) {
    const res = await world.ctx.app.inject({
      url: `/api/materials.php?element_type=commande&fk_element=${orderId}`,
      headers: { authorization: `Bearer ${await apiToken(world)}` },
    });
    assert.equal(res.statusCode, 200, res.body);
    return (res.json() as { items: { label: string }[] }).items.map((i) => i.label);
  }
  async function photo(name: string, background: string) {
    const file = path.join(scratch, name);
    await sharp({ create: { width: 900, height: 600, channels: 3, background } })
      .jpeg()
      .toFile(file);
    return file;
  }

  /** Waits until the service worker controls the page: the shell is precached and served from there. */
  async function serviceWorkerReady(page: Page) {
    await until(
      'the service worker controls the page',
      async () => (await page.evaluate('navigator.serviceWorker.controller !== null')) === true,
    );
  }

  async function addMaterial(page: Page, label: string) {
    await page.getByRole('button', { name: 'Material hinzufügen' }).click();
    await page.getByLabel('Bezeichnung').fill(label);
    await page.getByLabel('Menge').fill('1');
    await page.getByRole('button', { name: 'Hinzufügen', exact: true }).click();
    await page.getByText(label).waitFor();
  }
  async function choosePhotos(page: Page, paths: string[]) {
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Galerie' }).click();
    await (await chooser).setFiles(paths);
  }

  test('captured offline, kept over a reload, sent exactly once back online (also when an answer is lost)', async () => {
    const order = await orderByRef(world, 'CO2610-0007');
    const folder = folderOf(order.ref);
    const filesBefore = files(folder);
    const linesBefore = await materials(order.id);
    const photos = [await photo('keller-1.jpg', '#7d3c98'), await photo('keller-2.jpg', '#d68910')];

    const { page, context, errors } = await phone(world);
    await logIn(page);
    await serviceWorkerReady(page);
    await page.getByRole('link', { name: /CO2610-0007/ }).click();
    await page.getByRole('heading', { name: /^Fotos/ }).waitFor();

    await goOffline(context);
    await choosePhotos(page, photos);
    await addMaterial(page, 'Dichtung 1/2 Zoll');
    await page.getByRole('button', { name: 'Foto keller-2.jpg öffnen (wartet auf das Senden)' }).waitFor();
    await screenshot(page, 'order-offline');

    const queue = page.getByRole('list', { name: 'Warteschlange' });
    const queued = async () => (await queue.getByRole('listitem').allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim());
    await page.getByRole('button', { name: 'Warteschlange: 3 Einträge warten' }).click();
    await queue.waitFor();
    const shown = await queued();
    assert.equal(shown.length, 3, shown.join('\n'));
    assert.match(shown[0]!, /Foto keller-1\.jpg.*Wartet auf Netz/);
    assert.match(shown[1]!, /Foto keller-2\.jpg.*Wartet auf Netz/);
    assert.match(shown[2]!, /Material: Dichtung 1\/2 Zoll.*Wartet auf Netz/);
    await assertAccessible(page, 'outbox with waiting items');
    await assertPhoneFriendly(page, 'outbox with waiting items');
    await screenshot(page, 'queue');

    // A reload with no network: the shell comes from the service worker, the outbox from IndexedDB.
    await page.reload();
    await queue.waitFor();
    assert.deepEqual(await queued(), shown);
    assert.deepEqual(files(folder), filesBefore, 'nothing reached the service while offline');
    assert.deepEqual(await materials(order.id), linesBefore);

    // Back online, but the first photo's answer is lost on its way back: the service has the
    // photo, the phone does not know and sends it again with the same key.
    let lost = 0;
    await goOnline(context);
    await context.route('**/api/orders.php?*action=upload_photo*', async (route) => {
      if (lost > 0) return route.fallback();
      lost++;
      await route.fetch();
      await route.abort('connectionreset');
    });
    await page.evaluate('window.dispatchEvent(new Event("online"))');
    await page.getByText('Alles gesendet. Nichts wartet.').waitFor({ timeout: 45_000 });
    assert.equal(lost, 1, 'one answer was lost');

    const added = files(folder).filter((f) => !filesBefore.includes(f));
    assert.deepEqual(added, ['keller-1.jpg', 'keller-2.jpg'], 'each photo exactly once');
    const lines = await materials(order.id);
    assert.deepEqual(
      lines.filter((l) => l === 'Dichtung 1/2 Zoll'),
      ['Dichtung 1/2 Zoll'],
      'the line exactly once',
    );
    assert.equal(lines.length, linesBefore.length + 1);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('the shell of /app/ starts with no network after the first visit', async () => {
    const { page, context, errors } = await phone(world);
    await page.goto('/app/');
    await serviceWorkerReady(page);
    await goOffline(context);
    const fresh = await context.newPage();
    await fresh.goto('/app/');
    await fresh.getByRole('button', { name: 'Anmelden' }).waitFor();
    // Not even a request for the shell reached the network.
    assert.equal(await fresh.evaluate('performance.getEntriesByType("navigation")[0].transferSize'), 0);
    await fresh.getByLabel('Benutzername').fill('techniker');
    await fresh.getByLabel('Passwort').fill('demo');
    await fresh.getByRole('button', { name: 'Anmelden' }).click();
    await fresh.getByRole('alert').filter({ hasText: 'Keine Verbindung zum Server' }).waitFor();
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('a token that expires while the outbox waits asks for the password, then the rest is sent', async () => {
    const order = await orderByRef(world, 'CO2610-0006');
    const folder = folderOf(order.ref);
    const filesBefore = files(folder);
    const linesBefore = await materials(order.id);
    const { page, context, errors } = await phone(world);
    await logIn(page);

    // The phone's token is swapped for one that runs out in a few seconds (the app still believes
    // it holds for a week): only the service will say it expired.
    const user = await world.ctx.handle.db
      .selectFrom('user')
      .select(['rowid', 'login', 'firstname', 'lastname'])
      .where('login', '=', 'techniker')
      .executeTakeFirstOrThrow();
    // Long enough for the reload and the order's first load on a busy machine; the wait below is what is left.
    const lifetime = 20;
    const { token, claims } = await createTokenService(world.ctx.config.instanceUniqueId!).sign(
      {
        id: Number(user.rowid),
        login: user.login,
        name: `${user.firstname} ${user.lastname}`,
        perms: { read: true, write: true, delete: true, admin: false },
      },
      Math.floor(Date.now() / 1000) - TOKEN_LIFETIME_SECONDS + lifetime,
    );
    await page.evaluate(`new Promise((resolve, reject) => {
      const open = indexedDB.open('fieldreport');
      open.onerror = () => reject(open.error);
      open.onsuccess = () => {
        const tx = open.result.transaction('session', 'readwrite');
        const store = tx.objectStore('session');
        const get = store.get('current');
        get.onsuccess = () => store.put({ ...get.result, token: ${JSON.stringify(token)} }, 'current');
        tx.oncomplete = () => { open.result.close(); resolve(); };
        tx.onerror = () => reject(tx.error);
      };
    })`);
    await page.goto(`/app/#/order/${order.id}`);
    await page.reload();
    await page.getByRole('heading', { name: /^Fotos/ }).waitFor();

    await goOffline(context);
    await choosePhotos(page, [await photo('nachher.jpg', '#117864')]);
    await addMaterial(page, 'Entlüftungsventil');
    await page.getByRole('button', { name: 'Warteschlange: 2 Einträge warten' }).waitFor();
    const wait = claims.exp * 1000 - Date.now() + 1500;
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));

    await goOnline(context);
    await page.evaluate('window.dispatchEvent(new Event("online"))');
    await page.getByRole('heading', { name: 'Bitte erneut anmelden' }).waitFor();
    await page.getByText('Die Anmeldung ist abgelaufen.').waitFor();
    await page.getByText(/2 Einträge warten auf das Senden/).waitFor();
    await assertAccessible(page, 'login again');
    await screenshot(page, 'login-again');
    assert.deepEqual(files(folder), filesBefore, 'nothing was taken with the expired token');

    assert.equal(await page.getByLabel('Benutzername').inputValue(), 'techniker');
    await page.getByLabel('Passwort').fill('demo');
    await page.getByRole('button', { name: 'Anmelden' }).click();
    await until('the photo in the folder', () => files(folder).includes('nachher.jpg'), 45_000);
    await until('the line at the service', async () => (await materials(order.id)).includes('Entlüftungsventil'));
    assert.deepEqual(
      files(folder).filter((f) => !filesBefore.includes(f)),
      ['nachher.jpg'],
    );
    assert.equal((await materials(order.id)).length, linesBefore.length + 1);
    await page.getByRole('heading', { name: /^Fotos/ }).waitFor();
    assert.deepEqual(errors, []);
    await context.close();
  });
});
