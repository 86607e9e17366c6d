/**
 * The QR upload page in a real browser: Debian's Chromium, driven by playwright-core, against the
 * service listening on 127.0.0.1 (SQLite). A link made through the API opens the phone page, two
 * photos chosen in the file input go up one after another, the page says so, and the order lists
 * both with thumbnails and the phone's capture time; a file that is no image is refused on the page; an expired and an unknown
 * link show their German message with 410 and 404.
 * Without /usr/bin/chromium (Debian package `chromium`, which .ci/run installs) the test is skipped.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import sharp from 'sharp';
import { toDbDateTime } from '../../src/db/dialect.js';
import { objectFolder } from '../../src/dolibarr/documents.js';
import { tokenHash } from '../../src/modules/uploads/upload-tokens.service.js';
import { CHROMIUM, CHROMIUM_FLAGS } from '../helpers/browser.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';

const FLAGS = CHROMIUM_FLAGS;
const WAIT = 30_000;

describe('QR upload page in Chromium [sqlite]', () => {
  let ctx: TestContext;
  let origin: string;
  let browser: Browser | undefined;
  let scratch: string;

  before(async () => {
    ctx = await createTestContext('sqlite');
    origin = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    scratch = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-e2e-'));
    if (existsSync(CHROMIUM)) {
      // launch() gives the browser a new, empty profile folder of its own and removes it on close.
      browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, timeout: WAIT });
    }
  });
  after(async () => {
    await browser?.close();
    await ctx?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  async function writer() {
    const user = await ctx.make.user({ rights: ['read', 'write'] });
    return { id: user.id, token: await ctx.make.token(user) };
  }
  /** A link through the API; its address points at the listening service. */
  async function link(token: string, orderId: number) {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/upload_token.php',
      headers: { authorization: `Bearer ${token}` },
      payload: { fk_element: orderId },
    });
    assert.equal(res.statusCode, 201, res.body);
    const made = res.json() as { token: string; upload_url: string };
    const url = new URL(made.upload_url);
    assert.equal(url.pathname, '/public/upload.php');
    assert.equal(url.searchParams.get('token'), made.token);
    return { token: made.token, url: new URL(`${url.pathname}${url.search}`, origin).href };
  }
  async function photo(name: string, width: number, height: number, background: string) {
    const file = path.join(scratch, name);
    await sharp({ create: { width, height, channels: 3, background } })
      .jpeg({ quality: 85 })
      .toFile(file);
    return file;
  }

  test('two photos chosen on the page land in the order folder with thumbnails; a non-image is refused', async (t) => {
    if (!browser) {
      t.skip(`chromium not installed (${CHROMIUM} missing)`);
      return;
    }
    const me = await writer();
    const order = await ctx.make.order({ author: me.id });
    const { url } = await link(me.token, order.id);
    const before = await photo('vorher.jpg', 1200, 900, '#5a7d9a');
    const afterwards = await photo('nachher.jpg', 900, 1200, '#9a5a3c');

    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      locale: 'de-DE',
      timezoneId: 'Europe/Berlin',
    });
    try {
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('console', (message) => {
        if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(`console: ${message.text()}`);
      });

      const response = await page.goto(url, { timeout: WAIT });
      assert.equal(response?.status(), 200);
      assert.equal(await page.title(), `Fotos zu ${order.ref}`);
      await page.getByRole('heading', { name: `Fotos zum Auftrag ${order.ref}` }).waitFor({ state: 'visible', timeout: WAIT });
      const camera = page.locator('label.button', { hasText: 'Fotos aufnehmen oder auswählen' });
      await camera.waitFor({ state: 'visible', timeout: WAIT });
      assert.ok(await camera.isVisible());
      assert.equal(await page.locator('#photos').getAttribute('multiple'), '');

      await page.setInputFiles('#photos', [before, afterwards]);
      const summary = page.locator('#summary');
      await page.locator('#summary', { hasText: /^2 von 2 Fotos hochgeladen$/ }).waitFor({ timeout: WAIT });
      assert.equal(await summary.textContent(), '2 von 2 Fotos hochgeladen');
      const rows = page.locator('#list li');
      assert.equal(await rows.count(), 2);
      assert.deepEqual(await rows.locator('.name').allTextContents(), ['vorher.jpg', 'nachher.jpg']);
      assert.deepEqual(await rows.locator('.state').allTextContents(), ['✔ hochgeladen', '✔ hochgeladen']);
      assert.deepEqual(
        await rows.locator('progress').evaluateAll((bars) => bars.map((b) => (b as unknown as { value: number }).value)),
        [1, 1],
      );
      assert.deepEqual(problems, [], 'the page ran under its CSP without errors');

      // The order lists both photos, with thumbnails; the files and thumbnails are on disk.
      const listed = await ctx.app.inject({
        method: 'GET',
        url: `/api/orders.php?id=${order.id}&action=photos`,
        headers: { authorization: `Bearer ${me.token}` },
      });
      assert.equal(listed.statusCode, 200, listed.body);
      const items = listed.json().items as Array<{
        name: string;
        type: string | null;
        thumb_small_url: string | null;
        thumb_mini_url: string | null;
      }>;
      assert.deepEqual(items.map((i) => i.name).sort(), ['nachher.jpg', 'vorher.jpg']);
      for (const item of items) {
        assert.equal(item.type, 'image/jpeg', item.name);
        assert.notEqual(item.thumb_small_url, null, item.name);
        assert.notEqual(item.thumb_mini_url, null, item.name);
      }
      const folder = objectFolder(ctx.config.dataRoot, ctx.config.entity, 'commande', order.ref);
      for (const [name, width, height] of [
        ['vorher', 1200, 900],
        ['nachher', 900, 1200],
      ] as const) {
        const meta = await sharp(path.join(folder.dir, `${name}.jpg`)).metadata();
        assert.deepEqual([meta.format, meta.width, meta.height], ['jpeg', width, height], name);
        for (const size of ['small', 'mini'])
          assert.ok(existsSync(path.join(folder.dir, 'thumbs', `${name}_${size}.jpg`)), `${name}_${size}.jpg`);
      }

      // Each photo went with the phone's capture time (the file's time), RFC 3339 at the phone's offset; no position.
      const evidence = await ctx.handle.db
        .selectFrom('bericht_photo_evidence')
        .selectAll()
        .where('filepath', '=', `commande/${folder.name}`)
        .orderBy('filename')
        .execute();
      assert.deepEqual(
        evidence.map((e) => e.filename),
        ['nachher.jpg', 'vorher.jpg'],
      );
      for (const row of evidence) {
        assert.match(row.device_taken_at ?? '', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+0[12]:00$/, row.filename);
        assert.ok(Math.abs(Date.parse(row.device_taken_at!) - Date.now()) < 5 * 60_000, `${row.filename}: ${row.device_taken_at}`);
        assert.deepEqual([row.device_lat_e7, row.device_lon_e7], [null, null]);
      }

      // A file that is no image: the page shows the service's refusal, nothing more is stored.
      await page.setInputFiles('#photos', { name: 'notiz.txt', mimeType: 'text/plain', buffer: Buffer.from('Nur Text, kein Foto') });
      await page.locator('#summary', { hasText: /^2 von 3 Fotos hochgeladen, 1 fehlgeschlagen$/ }).waitFor({ timeout: WAIT });
      const refused = rows.nth(2);
      assert.equal(await refused.locator('.name').textContent(), 'notiz.txt');
      assert.equal(await refused.locator('.state').textContent(), '✘ Dieser Dateityp wird nicht unterstützt');
      assert.equal(await refused.locator('.state.bad').count(), 1);
      const again = await ctx.app.inject({
        method: 'GET',
        url: `/api/orders.php?id=${order.id}&action=photos`,
        headers: { authorization: `Bearer ${me.token}` },
      });
      assert.equal(again.json().total, 2);
    } finally {
      await context.close();
    }
  });

  test('an expired link shows "Link abgelaufen" with 410, an unknown one "Link unbekannt" with 404', async (t) => {
    if (!browser) {
      t.skip(`chromium not installed (${CHROMIUM} missing)`);
      return;
    }
    const me = await writer();
    const order = await ctx.make.order({ author: me.id });
    const expired = await link(me.token, order.id);
    await ctx.handle.db
      .updateTable('bericht_upload_token')
      .set({ date_expiry: toDbDateTime(Math.floor(Date.now() / 1000) - 60) })
      .where('token', '=', tokenHash(expired.token))
      .execute();

    const context = await browser.newContext({ locale: 'de-DE' });
    try {
      const page = await context.newPage();
      const gone = await page.goto(expired.url, { timeout: WAIT });
      assert.equal(gone?.status(), 410);
      await page.getByRole('heading', { name: 'Link abgelaufen' }).waitFor({ state: 'visible', timeout: WAIT });
      assert.match((await page.locator('main').textContent()) ?? '', /abgelaufen.*Bitte einen neuen QR-Code erzeugen lassen\./s);
      assert.equal(await page.locator('#photos').count(), 0, 'no file input on an expired link');

      const unknown = await page.goto(new URL(`/public/upload.php?token=${'A'.repeat(43)}`, origin).href, { timeout: WAIT });
      assert.equal(unknown?.status(), 404);
      await page.getByRole('heading', { name: 'Link unbekannt' }).waitFor({ state: 'visible', timeout: WAIT });
      assert.equal(await page.locator('#photos').count(), 0, 'no file input on an unknown link');
    } finally {
      await context.close();
    }
  });
});
