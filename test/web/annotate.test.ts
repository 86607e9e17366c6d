/**
 * A defect marked on a photo, in Chromium at a phone's viewport with touch, against the real service
 * on SQLite; checked through the documents folder, the API and the pixels of what arrived:
 * 1. offline, a photo of the service seen in full (taken sideways: EXIF orientation 6, with its
 *    capture time) is marked with a finger (arrow, circle, text, a line taken back with undo) and a
 *    stylus (a freehand line, pointerType 'pen'); back online exactly one new photo arrives, at the
 *    original's full upright size (not reduced like a captured photo), without an orientation tag,
 *    naming the original and keeping its capture time; the marks are in their colours where they
 *    were drawn, the rest is the photo; the original's bytes are untouched; the viewer shows the new
 *    photo, waiting, then arrived. The annotator passes axe-core and fits a 360 × 640 phone;
 * 2. offline, a photo whose whole file the phone never had says so in words (no thumbnail is marked);
 * 3. a photo still waiting in the outbox is marked up too (from its Blob) and both arrive once; a
 *    second marked copy of the same photo gets `_2`;
 * 4. dark mode: axe-core on the annotator; cancel asks before marks are dropped, and drops nothing else.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { parseTakenAt } from '../../src/adapters/exif.js';
import { objectFolder } from '../../src/dolibarr/documents.js';
import { asciiTag, exifTags, userComment } from '../helpers/exif-tags.js';
import {
  apiToken,
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
} from '../helpers/browser.js';
import { multipart } from '../helpers/multipart.js';

const skip = skipReason();
const TAKEN = '2026:10:02 14:03:09';
/** The photo as the camera stored it: landscape pixels, "turn 90° clockwise" to view. */
const STORED = { width: 3200, height: 2400 };
const UPRIGHT = { width: 2400, height: 3200 };

type Rgb = [number, number, number];

describe('app: a defect marked on a photo [sqlite]', { skip }, () => {
  let world: AppWorld;
  let scratch: string;
  let order: { id: number; ref: string };
  let folder: string;
  let original: string;
  let notSeen: string;

  async function api<T>(url: string): Promise<T> {
    const res = await world.ctx.app.inject({ url, headers: { authorization: `Bearer ${await apiToken(world)}` } });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as T;
  }
  /** The order's files (not the service's temporary ones). */
  const files = () =>
    existsSync(folder)
      ? readdirSync(folder, { withFileTypes: true })
          .filter((e) => e.isFile() && !e.name.startsWith('.'))
          .map((e) => e.name)
          .sort()
      : [];
  const sha256 = (name: string) =>
    createHash('sha256')
      .update(readFileSync(path.join(folder, name)))
      .digest('hex');

  async function upload(file: string): Promise<string> {
    const form = multipart([{ name: 'file', filename: path.basename(file), type: 'image/jpeg', data: readFileSync(file) }]);
    const res = await world.ctx.app.inject({
      method: 'POST',
      url: `/api/orders.php?id=${order.id}&action=upload_photo`,
      payload: form.payload,
      headers: { 'content-type': form.contentType, authorization: `Bearer ${await apiToken(world)}` },
    });
    assert.equal(res.statusCode, 201, res.body);
    return (res.json() as { name: string }).name;
  }

  before(async () => {
    world = await startWorld();
    scratch = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-annotate-'));
    const listed = await api<{ items: { id: number; ref: string; status: number }[] }>('/api/orders.php?limit=500');
    const open = listed.items.find((o) => o.status === 2) ?? listed.items.find((o) => o.status === 1)!;
    order = { id: open.id, ref: open.ref };
    folder = objectFolder(world.ctx.config.dataRoot, world.ctx.config.entity, 'commande', order.ref).dir;

    // Four quadrants of the stored pixels in four muted colours: after turning, each must be where
    // the upright photo has it (the marked copy is compared with the original turned by sharp).
    const sideways = path.join(scratch, 'schaltschrank.jpg');
    const quarter = { width: STORED.width / 2, height: STORED.height / 2 };
    const block = (background: string) =>
      sharp({ create: { ...quarter, channels: 3, background } })
        .png()
        .toBuffer();
    await sharp({ create: { ...STORED, channels: 3, background: '#000000' } })
      .composite([
        { input: await block('#4d6a8a'), left: 0, top: 0 },
        { input: await block('#7a5c3e'), left: quarter.width, top: 0 },
        { input: await block('#3f7355'), left: 0, top: quarter.height },
        { input: await block('#6b4f78'), left: quarter.width, top: quarter.height },
      ])
      .withMetadata({ orientation: 6 })
      .withExifMerge({ IFD2: { DateTimeOriginal: TAKEN, OffsetTimeOriginal: '+02:00' } })
      .jpeg({ quality: 90 })
      .toFile(sideways);
    original = await upload(sideways);
    const plain = path.join(scratch, 'nie-ganz-gesehen.jpg');
    await sharp({ create: { width: 800, height: 600, channels: 3, background: '#556677' } })
      .jpeg()
      .toFile(plain);
    notSeen = await upload(plain);
  });
  after(async () => {
    await world?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  /** The order on a new phone, logged in, its photos drawn, the app ready to work offline. */
  async function openOrder(options: { colorScheme?: 'light' | 'dark' } = {}) {
    const made = await phone(world, options);
    await logIn(made.page);
    // The service worker holds the app's parts (the annotator is loaded when first used, maybe offline).
    await made.page.waitForFunction(
      () =>
        (globalThis as unknown as { navigator: { serviceWorker: { controller: unknown } } }).navigator.serviceWorker.controller !== null,
    );
    await made.page.goto(`/app/#/order/${order.id}`);
    await made.page.getByRole('button', { name: `Foto ${original} öffnen` }).waitFor();
    return made;
  }

  /**
   * The annotator's drawing surface, and page coordinates of a place on the photo (fractions). Asked
   * again after the text tool's row came or went: the photo's box on the screen moves with it.
   */
  async function surface(page: Page) {
    const canvas = page.locator('dialog.annotate canvas.marks');
    let box = await canvas.boundingBox();
    await until('the photo drawn in the annotator, at rest', async () => {
      const previous = box;
      await page.waitForTimeout(150);
      box = await canvas.boundingBox();
      return !!box && box.width > 100 && JSON.stringify(box) === JSON.stringify(previous);
    });
    const { x: left, y: top, width, height } = box!;
    return (x: number, y: number) => ({ x: left + width * x, y: top + height * y });
  }

  /** A stroke along `points` with the given pointer type, dispatched in the page (CDP has no pen). */
  async function stylus(page: Page, points: { x: number; y: number }[]) {
    await page.evaluate(`(() => {
      const canvas = document.querySelector('dialog.annotate canvas.marks');
      const points = ${JSON.stringify(points)};
      const fire = (type, p, buttons) => canvas.dispatchEvent(new PointerEvent(type, { pointerId: 41, pointerType: 'pen', isPrimary: true, pressure: buttons ? 0.5 : 0, button: type === 'pointermove' ? -1 : 0, buttons, clientX: p.x, clientY: p.y, bubbles: true, cancelable: true, composed: true }));
      fire('pointerdown', points[0], 1);
      for (const p of points.slice(1)) fire('pointermove', p, 1);
      fire('pointerup', points[points.length - 1], 0);
    })()`);
  }

  /** `n` points from `a` to `b`. */
  const along = (a: { x: number; y: number }, b: { x: number; y: number }, n = 8) =>
    Array.from({ length: n + 1 }, (_, i) => ({ x: a.x + ((b.x - a.x) * i) / n, y: a.y + ((b.y - a.y) * i) / n }));

  async function pixels(file: string | Buffer, turn: boolean) {
    const { data, info } = await (turn ? sharp(file).rotate() : sharp(file)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    return {
      width: info.width,
      height: info.height,
      at(x: number, y: number): Rgb {
        const i = (Math.round(y * (info.height - 1)) * info.width + Math.round(x * (info.width - 1))) * 3;
        return [data[i]!, data[i + 1]!, data[i + 2]!];
      },
      /** How many pixels in the box around (x, y) (± `r` of the width) pass `test`. */
      count(x: number, y: number, r: number, test: (p: Rgb) => boolean): number {
        let n = 0;
        const cx = Math.round(x * info.width);
        const cy = Math.round(y * info.height);
        const d = Math.round(r * info.width);
        for (let py = Math.max(0, cy - d); py < Math.min(info.height, cy + d); py += 2)
          for (let px = Math.max(0, cx - d); px < Math.min(info.width, cx + d); px += 2) {
            const i = (py * info.width + px) * 3;
            if (test([data[i]!, data[i + 1]!, data[i + 2]!])) n++;
          }
        return n;
      },
    };
  }
  const red = ([r, g, b]: Rgb) => r > 190 && g < 90 && b < 90;
  const yellow = ([r, g, b]: Rgb) => r > 200 && g > 170 && b < 110;
  const white = ([r, g, b]: Rgb) => r > 215 && g > 215 && b > 215;
  const near = (a: Rgb, b: Rgb, by = 24) => a.every((v, i) => Math.abs(v - b[i]!) <= by);

  test('1: offline, a photo seen in full is marked with finger and stylus; one new photo arrives at full upright size, naming the original', async () => {
    const before = files();
    const originalHash = sha256(original);
    const { page, context, errors } = await openOrder();

    // Seen in full once, with signal (the phone keeps the last whole photos it showed).
    await page.getByRole('button', { name: `Foto ${original} öffnen` }).click();
    const viewer = page.locator('dialog.viewer');
    await until(
      'the whole photo shown',
      async () =>
        (await viewer
          .locator('img')
          .evaluate((i) => (i as unknown as { naturalWidth: number }).naturalWidth)
          .catch(() => 0)) === UPRIGHT.width,
    );
    await page.keyboard.press('Escape');
    await viewer.waitFor({ state: 'detached' });

    await goOffline(context);
    await page.getByRole('button', { name: `Foto ${original} öffnen` }).click();
    await viewer.getByRole('button', { name: 'Markieren' }).waitFor();
    await assertPhoneFriendly(page, 'viewer with Markieren');
    await viewer.getByRole('button', { name: 'Markieren' }).click();
    const annotator = page.getByRole('dialog', { name: `Markieren: ${original}` });
    const at = await surface(page);
    // The photo fills the screen's width upright (portrait), not sideways.
    const box = (await page.locator('dialog.annotate canvas.marks').boundingBox())!;
    assert.ok(Math.abs(box.height / box.width - UPRIGHT.height / UPRIGHT.width) < 0.02, `upright on screen: ${box.width} × ${box.height}`);

    // A red arrow (the tool and colour it starts with), a red circle, with a finger.
    assert.equal(await annotator.getByRole('button', { name: 'Pfeil' }).getAttribute('aria-pressed'), 'true');
    await finger(page, along(at(0.15, 0.3), at(0.6, 0.3)));
    await annotator.getByRole('button', { name: 'Kreis' }).click();
    await finger(page, along(at(0.2, 0.45), at(0.5, 0.65)));
    // A yellow freehand line with a stylus.
    await annotator.getByRole('button', { name: 'Gelb' }).click();
    await annotator.getByRole('button', { name: 'Freihand' }).click();
    await stylus(page, along(at(0.65, 0.45), at(0.85, 0.72), 20));
    // A white text, typed, then placed with a tap.
    await annotator.getByRole('button', { name: 'Weiß' }).click();
    await annotator.getByRole('button', { name: 'Text', exact: true }).click();
    const atText = await surface(page);
    await finger(page, [atText(0.5, 0.85)]);
    await annotator.getByText('Erst den Text eingeben, dann auf das Foto tippen.').waitFor();
    await annotator.getByLabel('Text für das Foto (höchstens 60 Zeichen)').fill('RISS');
    assert.equal(await annotator.getByLabel('Text für das Foto (höchstens 60 Zeichen)').getAttribute('maxlength'), '60');
    await finger(page, [atText(0.5, 0.85)]);
    // One more line, taken back.
    await annotator.getByRole('button', { name: 'Rot' }).click();
    await annotator.getByRole('button', { name: 'Freihand' }).click();
    const atLine = await surface(page);
    await finger(page, along(atLine(0.1, 0.72), atLine(0.1, 0.95)));
    await annotator.getByRole('img', { name: `Foto ${original} mit 5 Markierungen` }).waitFor();
    await annotator.getByRole('button', { name: 'Rückgängig' }).click();
    await annotator.getByRole('img', { name: `Foto ${original} mit 4 Markierungen` }).waitFor();

    await assertAccessible(page, 'annotator (light)');
    await assertPhoneFriendly(page, 'annotator');
    await screenshot(page, 'annotate', { small: true });

    await annotator.getByRole('button', { name: 'Speichern' }).click();
    await annotator.waitFor({ state: 'detached' });
    // The viewer shows the new photo, waiting to be sent; nothing reached the service offline.
    const marked = original.replace(/\.jpg$/, '_markiert.jpg');
    await viewer.getByText(new RegExp(`^\\s*${marked.replace(/\./g, '\\.')} · \\d+/\\d+\\s*wartet\\s*$`)).waitFor();
    await page.getByRole('button', { name: 'Warteschlange: 1 Eintrag wartet' }).waitFor();
    assert.deepEqual(files(), before);

    await goOnline(context);
    await page.evaluate('window.dispatchEvent(new Event("online"))');
    await until('the marked photo in the folder', () => files().length > before.length, 45_000);
    await page.getByRole('button', { name: 'Warteschlange: 0 Einträge warten' }).waitFor({ timeout: 30_000 });
    assert.deepEqual(
      files().filter((f) => !before.includes(f)),
      [marked],
      'exactly one new file',
    );
    // The viewer follows it to the service's copy.
    await viewer.getByText(new RegExp(`^\\s*${marked.replace(/\./g, '\\.')} · \\d+/\\d+\\s*$`)).waitFor();
    const listed = await api<{ items: { name: string; thumb_small_url: string | null }[] }>(`/api/orders.php?id=${order.id}&action=photos`);
    assert.equal(listed.items.filter((i) => i.name === marked).length, 1);
    assert.ok(listed.items.find((i) => i.name === marked)?.thumb_small_url, 'with its thumbnail');
    assert.equal(listed.items.filter((i) => i.name === original).length, 1);

    // The original untouched.
    assert.equal(sha256(original), originalHash);
    const originalMeta = await sharp(path.join(folder, original)).metadata();
    assert.deepEqual([originalMeta.width, originalMeta.height, originalMeta.orientation], [STORED.width, STORED.height, 6]);

    // Full upright size, no orientation, the original named, its capture time kept.
    const file = path.join(folder, marked);
    const meta = await sharp(file).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['jpeg', UPRIGHT.width, UPRIGHT.height]);
    assert.equal(meta.orientation, undefined, 'no orientation tag');
    const tags = exifTags(meta.exif!);
    assert.equal(tags.ifd0.get(0x0112), undefined);
    assert.equal(asciiTag(tags.ifd0.get(0x010e)), `Markiert aus ${original}`);
    assert.equal(userComment(tags, meta.exif!), `Markiert aus ${original}`);
    assert.equal(asciiTag(tags.ifd0.get(0x0131)), 'fieldreport');
    assert.equal(asciiTag(tags.exif.get(0x9003)), TAKEN);
    assert.deepEqual(parseTakenAt(meta.exif!), { local: TAKEN.replace(/^(\d+):(\d+):(\d+)/, '$1-$2-$3'), offset: '+02:00' });

    // The marks where they were drawn, in their colours; the rest is the photo, turned upright.
    const now = await pixels(file, false);
    const was = await pixels(path.join(folder, original), true);
    assert.deepEqual([was.width, was.height], [UPRIGHT.width, UPRIGHT.height]);
    for (const [x, y, what] of [
      [0.25, 0.3, 'arrow'],
      [0.45, 0.3, 'arrow'],
      [0.2, 0.55, 'circle, left'],
      [0.35, 0.45, 'circle, top'],
      [0.5, 0.55, 'circle, right'],
    ] as const) {
      assert.ok(now.count(x, y, 0.006, red) > 10, `${what} red at ${x},${y}: ${now.at(x, y).join(',')}`);
    }
    assert.ok(now.count(0.75, 0.585, 0.006, yellow) > 10, `stylus line yellow: ${now.at(0.75, 0.585).join(',')}`);
    assert.ok(now.count(0.5, 0.85, 0.05, white) > 200, 'the text in white');
    for (const [x, y, what] of [
      [0.1, 0.85, 'the line taken back'],
      [0.9, 0.1, 'top right'],
      [0.05, 0.05, 'top left'],
      [0.9, 0.95, 'bottom right'],
      [0.3, 0.98, 'bottom left'],
      [0.35, 0.55, 'inside the circle'],
    ] as const) {
      assert.ok(
        near(now.at(x, y), was.at(x, y)),
        `${what} (${x},${y}) is the photo: ${now.at(x, y).join(',')} vs ${was.at(x, y).join(',')}`,
      );
    }
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('2: offline, a photo the phone never had in full is not marked: the annotator says so in words', async () => {
    const before = files();
    const { page, context, errors } = await openOrder();
    await goOffline(context);
    await page.getByRole('button', { name: `Foto ${notSeen} öffnen` }).click();
    const viewer = page.getByRole('dialog', { name: `Foto ${notSeen}` });
    await viewer.getByRole('button', { name: 'Markieren' }).click();
    const annotator = page.getByRole('dialog', { name: `Markieren: ${notSeen}` });
    await annotator
      .getByRole('alert')
      .filter({ hasText: 'Ohne Netz hat das Telefon von diesem Foto nur die Vorschau, nicht das ganze Foto.' })
      .waitFor();
    assert.equal(await annotator.getByRole('button', { name: 'Speichern' }).count(), 0, 'nothing to save');
    await assertAccessible(page, 'annotator without the whole photo');
    await annotator.getByRole('button', { name: 'Schließen' }).click();
    await annotator.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Warteschlange: 0 Einträge warten' }).waitFor();
    await goOnline(context);
    assert.deepEqual(files(), before);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('3: a photo still waiting in the outbox is marked up from its Blob; both arrive once; a second marked copy of it gets _2', async () => {
    const before = files();
    const { page, context, errors } = await openOrder();
    await goOffline(context);
    const taken = path.join(scratch, 'vor-ort.jpg');
    await sharp({ create: { width: 1200, height: 900, channels: 3, background: '#2e4053' } })
      .jpeg()
      .toFile(taken);
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Galerie' }).click();
    await (await chooser).setFiles([taken]);
    await page.getByRole('button', { name: 'Foto vor-ort.jpg öffnen (wartet auf das Senden)' }).click();
    const viewer = page.locator('dialog.viewer');
    await viewer.getByRole('button', { name: 'Markieren' }).click();
    const annotator = page.getByRole('dialog', { name: 'Markieren: vor-ort.jpg' });
    const at = await surface(page);
    await finger(page, along(at(0.2, 0.5), at(0.8, 0.5)));
    await annotator.getByRole('button', { name: 'Speichern' }).click();
    await annotator.waitFor({ state: 'detached' });
    await viewer.getByText(/^\s*vor-ort_markiert\.jpg · \d+\/\d+\s*wartet\s*$/).waitFor();

    // Online, both arrive; the same photo (the service's now) marked a second time: the name is free with _2.
    await goOnline(context);
    await page.evaluate('window.dispatchEvent(new Event("online"))');
    await until('both in the folder', () => files().filter((f) => !before.includes(f)).length === 2, 45_000);
    await page.getByRole('button', { name: 'Warteschlange: 0 Einträge warten' }).waitFor({ timeout: 30_000 });
    await page.keyboard.press('Escape');
    await viewer.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Foto vor-ort.jpg öffnen', exact: true }).click();
    await viewer.getByRole('button', { name: 'Markieren' }).click();
    const second = page.getByRole('dialog', { name: 'Markieren: vor-ort.jpg' });
    const on = await surface(page);
    await second.getByRole('button', { name: 'Kreis' }).click();
    await finger(page, along(on(0.3, 0.3), on(0.7, 0.6)));
    await second.getByRole('button', { name: 'Speichern' }).click();
    await until('the second marked copy in the folder', () => files().includes('vor-ort_markiert_2.jpg'), 45_000);
    await page.getByRole('button', { name: 'Warteschlange: 0 Einträge warten' }).waitFor({ timeout: 30_000 });

    assert.deepEqual(
      files().filter((f) => !before.includes(f)),
      ['vor-ort.jpg', 'vor-ort_markiert.jpg', 'vor-ort_markiert_2.jpg'],
    );
    assert.deepEqual(readFileSync(path.join(folder, 'vor-ort.jpg')), readFileSync(taken), 'the waiting photo arrived as it was taken');
    const meta = await sharp(path.join(folder, 'vor-ort_markiert.jpg')).metadata();
    assert.deepEqual([meta.width, meta.height], [1200, 900]);
    assert.equal(userComment(exifTags(meta.exif!), meta.exif!), 'Markiert aus vor-ort.jpg');
    const secondMeta = await sharp(path.join(folder, 'vor-ort_markiert_2.jpg')).metadata();
    assert.deepEqual([secondMeta.width, secondMeta.height], [1200, 900]);
    assert.equal(userComment(exifTags(secondMeta.exif!), secondMeta.exif!), 'Markiert aus vor-ort.jpg');
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('4: dark mode passes axe-core; cancel asks before dropping the marks, and drops nothing else', async () => {
    const before = files();
    const { page, context, errors } = await openOrder({ colorScheme: 'dark' });
    await page.getByRole('button', { name: `Foto ${original} öffnen` }).click();
    const viewer = page.locator('dialog.viewer');
    await viewer.getByRole('button', { name: 'Markieren' }).click();
    const annotator = page.getByRole('dialog', { name: `Markieren: ${original}` });
    const at = await surface(page);
    await finger(page, along(at(0.3, 0.2), at(0.6, 0.4)));
    await annotator.getByRole('button', { name: 'Text', exact: true }).click();
    await annotator.getByLabel('Text für das Foto (höchstens 60 Zeichen)').fill('Hier');
    await assertAccessible(page, 'annotator (dark)');
    await annotator.getByRole('button', { name: 'Abbrechen' }).click();
    await annotator.getByText('1 Markierung verwerfen?').waitFor();
    await assertAccessible(page, 'annotator, discard question (dark)');
    await annotator.getByRole('button', { name: 'Weiter markieren' }).click();
    await annotator.getByRole('img', { name: `Foto ${original} mit 1 Markierung` }).waitFor();
    await page.keyboard.press('Escape');
    await annotator.getByRole('button', { name: 'Verwerfen' }).click();
    await annotator.waitFor({ state: 'detached' });
    // Back in the viewer, on the original.
    await viewer.getByText(new RegExp(`^\\s*${original.replace(/\./g, '\\.')} · `)).waitFor();
    await page.getByRole('button', { name: 'Warteschlange: 0 Einträge warten' }).waitFor();
    assert.deepEqual(files(), before);
    assert.deepEqual(errors, []);
    await context.close();
  });
});
