/**
 * Capturing on an order in Chromium at a phone's viewport, checked through the documents folder and
 * the API: three photos taken through the file chooser land in the order's folder with their
 * thumbnails and show in the grid (the 12-megapixel one reduced on the phone to 2,560 px, turned
 * upright, its capture time kept); a photo opens full screen and a swipe shows the next; a voice
 * note recorded in the app (Chromium's fake microphone) lands as WebM; a material line is added and
 * removed; the QR link is shown. axe-core on the order screen, its dialogs and the outbox, light and
 * dark; screenshots of each.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { objectFolder } from '../../src/dolibarr/documents.js';
import {
  apiToken,
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
const REF = 'CO2611-0010';
const TAKEN = '2026:11:20 09:15:00';

describe('app: capture on an order in Chromium [sqlite]', { skip }, () => {
  let world: AppWorld;
  let scratch: string;
  let order: { id: number; ref: string };
  let folder: string;

  before(async () => {
    world = await startWorld();
    scratch = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-app-'));
    order = await orderByRef(world, REF);
    folder = objectFolder(world.ctx.config.dataRoot, world.ctx.config.entity, 'commande', REF).dir;
    // An older photo of the order, so the newest-first grid has one after those taken here.
    mkdirSync(folder, { recursive: true });
    const older = path.join(folder, 'bestand.jpg');
    await sharp({ create: { width: 640, height: 480, channels: 3, background: '#6a8caf' } })
      .jpeg()
      .toFile(older);
    utimesSync(older, new Date('2025-06-01T10:00:00Z'), new Date('2025-06-01T10:00:00Z'));
  });
  after(async () => {
    await world?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  /** The order's files (not the service's temporary ones, which start with a dot). */
  const files = () =>
    existsSync(folder)
      ? readdirSync(folder, { withFileTypes: true })
          .filter((e) => e.isFile() && !e.name.startsWith('.'))
          .map((e) => e.name)
          .sort()
      : [];
  async function api(url: string) {
    const res = await world.ctx.app.inject({ url, headers: { authorization: `Bearer ${await apiToken(world)}` } });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  }
  async function photo(name: string, width: number, height: number, background: string, exif = false) {
    const file = path.join(scratch, name);
    let image = sharp({ create: { width, height, channels: 3, background } });
    // Taken sideways: the camera stored landscape pixels and "turn 90° clockwise" (orientation 6).
    if (exif)
      image = image.withMetadata({ orientation: 6 }).withExifMerge({ IFD0: { DateTime: TAKEN }, IFD2: { DateTimeOriginal: TAKEN } });
    await image.jpeg({ quality: 80 }).toFile(file);
    return file;
  }

  test('three photos through the file chooser land in the folder with thumbnails and show in the grid; the big one is reduced on the phone', async () => {
    const big = await photo('baustelle-1.jpg', 4000, 3000, '#b03a2e', true);
    const second = await photo('baustelle-2.jpg', 1200, 900, '#1f618d');
    const third = await photo('baustelle-3.jpg', 1600, 1200, '#1e8449');
    const before = files();

    const { page, context, errors } = await phone(world);
    await logIn(page);
    await page.getByRole('link', { name: new RegExp(REF) }).click();
    await page.getByRole('heading', { name: /^Fotos/ }).waitFor();
    await assertAccessible(page, 'order (light)');
    await screenshot(page, 'order');

    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Foto', exact: true }).click();
    await (await chooser).setFiles([big, second, third]);

    await until('three new files in the order folder', () => files().length === before.length + 3);
    const added = files().filter((f) => !before.includes(f));
    assert.deepEqual(added, ['baustelle-1.jpg', 'baustelle-2.jpg', 'baustelle-3.jpg']);
    for (const name of added) {
      const base = name.replace(/\.jpg$/, '');
      // A JPEG's thumbnails are written just after its upload's answer.
      await until(
        `${name}: both thumbnails`,
        () => existsSync(path.join(folder, 'thumbs', `${base}_small.jpg`)) && existsSync(path.join(folder, 'thumbs', `${base}_mini.jpg`)),
      );
    }
    // Reduced on the phone: longest side 2,560, upright (portrait), capture time kept.
    const stored = await sharp(path.join(folder, 'baustelle-1.jpg')).metadata();
    assert.deepEqual([stored.width, stored.height], [1920, 2560]);
    assert.ok(!stored.orientation || stored.orientation === 1, `orientation ${stored.orientation}`);
    // The EXIF block is one libvips reads (and so keeps when it re-encodes), not just bytes that look like it.
    const reread = await sharp(await sharp(path.join(folder, 'baustelle-1.jpg')).keepExif().jpeg().toBuffer()).metadata();
    assert.ok(reread.exif?.includes(TAKEN), 'the capture time is in the reduced photo');
    // Small ones go as they are.
    assert.deepEqual(readFileSync(path.join(folder, 'baustelle-2.jpg')), readFileSync(second));

    const listed = (await api(`/api/orders.php?id=${order.id}&action=photos`)) as {
      items: { name: string; thumb_small_url: string | null }[];
    };
    for (const name of added) assert.ok(listed.items.find((i) => i.name === name)?.thumb_small_url, `${name} listed with a thumbnail`);

    // The grid shows them from the service (no waiting mark), each thumbnail really drawn.
    const grid = page.locator('ul.grid');
    await until('the grid without waiting photos', async () => (await grid.locator('.pending').count()) === 0);
    const photos = listed.items.filter((i) => /\.(jpe?g|png|webp)$/i.test(i.name)).length;
    await until(
      'every thumbnail drawn',
      async () =>
        (await grid
          .locator('img')
          .evaluateAll((imgs) => imgs.filter((i) => (i as unknown as { naturalWidth: number }).naturalWidth > 0).length)) === photos,
    );
    for (const name of added) await page.getByRole('button', { name: `Foto ${name} öffnen` }).waitFor();
    await page.getByRole('heading', { name: /^Fotos/ }).scrollIntoViewIfNeeded();
    await screenshot(page, 'order-photos');

    // Full screen, then a swipe to the next (the next in the grid, which is newest first).
    const gridOrder = await grid
      .locator('button.thumb')
      .evaluateAll((els) => els.map((el) => /^Foto (.*) öffnen$/.exec(el.getAttribute('aria-label') ?? '')?.[1] ?? ''));
    const next = gridOrder[gridOrder.indexOf('baustelle-2.jpg') + 1]!;
    assert.ok(next, `a photo after baustelle-2.jpg in ${gridOrder.join(', ')}`);
    await page.getByRole('button', { name: 'Foto baustelle-2.jpg öffnen' }).click();
    const viewer = page.getByRole('dialog');
    await viewer.getByText(/baustelle-2\.jpg · \d+\//).waitFor();
    await until(
      'the whole photo shown',
      async () => (await viewer.locator('img').evaluate((i) => (i as unknown as { naturalWidth: number }).naturalWidth)) === 1200,
    );
    await screenshot(page, 'viewer');
    const box = (await viewer.boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.8, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.2, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    await viewer.getByText(new RegExp(`${next.replace(/[.]/g, '\\.')} · \\d+/`)).waitFor();
    await page.keyboard.press('Escape');
    await viewer.waitFor({ state: 'detached' });
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('a file the service refuses stays in the outbox with the reason until it is removed', async () => {
    const before = files();
    const fake = path.join(scratch, 'kein-bild.jpg');
    writeFileSync(fake, 'Das ist kein Foto, nur Text mit der Endung .jpg\n'.repeat(20));
    const { page, context, errors } = await phone(world);
    await logIn(page);
    await page.goto(`/app/#/order/${order.id}`);
    await page.getByRole('heading', { name: /^Fotos/ }).waitFor();
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Galerie' }).click();
    await (await chooser).setFiles([fake]);
    await page.getByRole('button', { name: 'Warteschlange: 1 Eintrag abgelehnt' }).click();
    const item = page.getByRole('list', { name: 'Warteschlange' }).getByRole('listitem');
    await item.getByText('Abgelehnt: Dieser Dateityp wird nicht unterstützt.').waitFor();
    await screenshot(page, 'queue-refused');
    // Still there after a reload: nothing refused disappears by itself.
    await page.reload();
    await item.getByText(/^Abgelehnt:/).waitFor();
    await item.getByRole('button', { name: 'Foto kein-bild.jpg entfernen' }).click();
    await page.getByText('Alles gesendet. Nichts wartet.').waitFor();
    assert.deepEqual(files(), before);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('a voice note recorded in the app lands in the order folder as WebM', async () => {
    const before = files();
    const { page, context, errors } = await phone(world);
    await logIn(page);
    await page.goto(`/app/#/order/${order.id}`);
    await page.getByRole('button', { name: 'Sprachnotiz', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Sprachnotiz aufnehmen' });
    await assertAccessible(page, 'voice recorder');
    await dialog.getByRole('button', { name: 'Aufnahme starten' }).click();
    await dialog.getByText('0:02').waitFor();
    await screenshot(page, 'voice-recording');
    await dialog.getByRole('button', { name: 'Aufnahme beenden' }).click();
    await dialog.getByRole('button', { name: 'Speichern' }).click();

    await until('a voice note in the folder', () => files().some((f) => !before.includes(f) && /^Sprachnotiz_.*\.webm$/.test(f)));
    const name = files().find((f) => !before.includes(f))!;
    // Named by the phone's local time (the context's Europe/Berlin), as the person reads a clock, not UTC.
    const berlin = (ms: number) =>
      new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Berlin', dateStyle: 'short', timeStyle: 'short' })
        .format(ms)
        .replace(/[-: ]/g, '');
    const stamp = /^Sprachnotiz_(\d{8})-(\d{4})\d{2}\.webm$/.exec(name);
    assert.ok(stamp, name);
    assert.ok(
      [berlin(Date.now()), berlin(Date.now() - 60_000), berlin(Date.now() - 120_000)].includes(`${stamp[1]}${stamp[2]}`),
      `${name} in Berlin's time (${berlin(Date.now())})`,
    );
    const bytes = readFileSync(path.join(folder, name));
    assert.equal(bytes.subarray(0, 4).toString('hex'), '1a45dfa3', 'a WebM (EBML) file');
    assert.ok(bytes.length > 1000, `${bytes.length} bytes of sound`);
    await page.getByRole('button', { name: `${name} abspielen` }).waitFor();
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('a material line is added and removed', async () => {
    const lines = async () =>
      (
        (await api(`/api/materials.php?element_type=commande&fk_element=${order.id}`)) as {
          items: { id: number; label: string; qty: number; unit: string | null }[];
        }
      ).items;
    const before = await lines();
    const { page, context, errors } = await phone(world);
    await logIn(page);
    await page.goto(`/app/#/order/${order.id}`);
    await page.getByRole('button', { name: 'Material hinzufügen' }).click();
    await page.getByLabel('Bezeichnung').fill('Kupferrohr 15 mm');
    await page.getByLabel('Menge').fill('2,5');
    await page.getByLabel('Einheit').selectOption('m');
    await assertAccessible(page, 'material form');
    await assertPhoneFriendly(page, 'material form');
    await page.getByRole('button', { name: 'Hinzufügen', exact: true }).click();

    await until('the line at the service', async () => (await lines()).length === before.length + 1);
    const line = (await lines()).find((l) => !before.some((b) => b.id === l.id))!;
    assert.deepEqual([line.label, line.qty, line.unit], ['Kupferrohr 15 mm', 2.5, 'm']);
    await page.getByRole('button', { name: 'Kupferrohr 15 mm entfernen' }).click();
    await until('the line gone at the service', async () => !(await lines()).some((l) => l.id === line.id));
    await page.getByRole('button', { name: 'Kupferrohr 15 mm entfernen' }).waitFor({ state: 'detached' });
    assert.equal((await lines()).length, before.length);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('the QR link for a second phone; order, dialogs and outbox pass axe-core in light and dark mode', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const { page, context, errors } = await phone(world, { colorScheme });
      await logIn(page);
      await page.goto(`/app/#/order/${order.id}`);
      await page.getByRole('heading', { name: /^Fotos/ }).waitFor();
      await assertAccessible(page, `order (${colorScheme})`);
      if (colorScheme === 'light') await assertPhoneFriendly(page, 'order');
      if (colorScheme === 'dark') await screenshot(page, 'order-dark');

      await page.getByRole('button', { name: 'QR-Code' }).click();
      const qr = page.getByRole('dialog', { name: 'Fotos von einem zweiten Handy' });
      await qr.getByRole('img', { name: 'QR-Code des Upload-Links' }).waitFor();
      const link = await qr.getByRole('link').getAttribute('href');
      assert.match(link ?? '', /\/public\/upload\.php\?token=/);
      await assertAccessible(page, `QR dialog (${colorScheme})`);
      if (colorScheme === 'light') await assertPhoneFriendly(page, 'QR dialog');
      if (colorScheme === 'light') await screenshot(page, 'qr');
      await qr.getByRole('button', { name: 'Schließen' }).click();

      await page.getByRole('button', { name: /^Warteschlange/ }).click();
      await page.getByText('Alles gesendet. Nichts wartet.').waitFor();
      await assertAccessible(page, `outbox (${colorScheme})`);
      if (colorScheme === 'light') await assertPhoneFriendly(page, 'outbox');
      await page.getByRole('button', { name: 'Einstellungen' }).click();
      await page.getByRole('button', { name: 'Abmelden', exact: true }).waitFor();
      await assertAccessible(page, `settings (${colorScheme})`);
      if (colorScheme === 'light') await assertPhoneFriendly(page, 'settings');
      if (colorScheme === 'light') await screenshot(page, 'settings');
      assert.deepEqual(errors, []);
      await context.close();
    }
  });
});
