/**
 * Installable, and updates that wait for the person, in Chromium:
 * - the web manifest as the service serves it (name, start URL and scope inside /app/,
 *   standalone, theme colour, icons 192 and 512 px and a maskable one, each a real PNG of its size),
 *   and Chromium's own verdict: no installability errors;
 * - a new build (a changed service worker) is announced ("Eine neue Version ist da.") and does not
 *   take the page until "Neu laden" is pressed; then the new version runs.
 */
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { APP_DIR, assertAccessible, phone, screenshot, skipReason, startWorld, type AppWorld, until } from '../helpers/browser.js';

const skip = skipReason();

describe('app: installable, updates announced [sqlite]', { skip }, () => {
  let world: AppWorld;
  let appDir: string;

  before(async () => {
    // A copy of the build, so that a "new version" can be made without touching dist/app.
    appDir = path.join(mkdtempSync(path.join(os.tmpdir(), 'fieldreport-build-')), 'app');
    cpSync(APP_DIR, appDir, { recursive: true });
    world = await startWorld({ appDir });
  });
  after(async () => {
    await world?.close();
    if (appDir) rmSync(path.dirname(appDir), { recursive: true, force: true });
  });

  test('the manifest and its icons; Chromium finds nothing that keeps the app from being installed', async () => {
    const res = await world.ctx.app.inject({ url: '/app/manifest.webmanifest' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/manifest+json');
    const manifest = res.json() as {
      name: string;
      short_name: string;
      start_url: string;
      scope: string;
      display: string;
      theme_color: string;
      icons: { src: string; sizes: string; purpose: string }[];
    };
    assert.equal(manifest.name, 'fieldreport');
    assert.equal(manifest.start_url, '/app/');
    assert.equal(manifest.scope, '/app/');
    assert.equal(manifest.display, 'standalone');
    assert.match(manifest.theme_color, /^#[0-9a-f]{6}$/i);
    const sizes = new Set<string>();
    for (const icon of manifest.icons) {
      const png = await world.ctx.app.inject({ url: `/app/${icon.src}` });
      assert.equal(png.statusCode, 200, icon.src);
      const meta = await sharp(png.rawPayload).metadata();
      assert.equal(meta.format, 'png');
      assert.equal(`${meta.width}x${meta.height}`, icon.sizes, icon.src);
      sizes.add(`${icon.sizes} ${icon.purpose}`);
    }
    assert.ok(sizes.has('192x192 any') && sizes.has('512x512 any') && sizes.has('512x512 maskable'), [...sizes].join(', '));

    const { page, context } = await phone(world);
    await page.goto('/app/');
    await page.getByRole('button', { name: 'Anmelden' }).waitFor();
    await until(
      'the service worker controls the page',
      async () => (await page.evaluate('navigator.serviceWorker.controller !== null')) === true,
    );
    const cdp = await context.newCDPSession(page);
    const { errors } = (await cdp.send('Page.getAppManifest')) as { errors: unknown[] };
    assert.deepEqual(errors, [], 'the manifest parses without errors');
    const { installabilityErrors } = (await cdp.send('Page.getInstallabilityErrors')) as { installabilityErrors: { errorId: string }[] };
    // The one thing Chromium holds against it is the test's own throwaway profile (incognito).
    assert.deepEqual(
      installabilityErrors.map((e) => e.errorId).filter((id) => id !== 'in-incognito'),
      [],
      'Chromium would install the app',
    );
    await context.close();
  });

  test('a new version is announced and runs only after "Neu laden"', async () => {
    const { page, context, errors } = await phone(world);
    await page.goto('/app/');
    await page.getByRole('button', { name: 'Anmelden' }).waitFor();
    await until(
      'the service worker controls the page',
      async () => (await page.evaluate('navigator.serviceWorker.controller !== null')) === true,
    );
    await page.evaluate('window.__sameDocument = true');

    // A new build: its service worker differs by a byte.
    appendFileSync(path.join(appDir, 'sw.js'), '\n// new version\n');
    for (const suffix of ['.br', '.gz']) rmSync(path.join(appDir, `sw.js${suffix}`), { force: true });
    await page.evaluate('navigator.serviceWorker.getRegistration().then((r) => r.update())');
    const banner = page.getByRole('alert').filter({ hasText: 'Eine neue Version ist da.' });
    await banner.waitFor();
    await assertAccessible(page, 'update available');
    await screenshot(page, 'update-available');
    // Still the same page, still the old worker: nothing changed under the person's fingers.
    assert.equal(await page.evaluate('window.__sameDocument === true'), true);
    assert.equal(await page.evaluate('navigator.serviceWorker.getRegistration().then((r) => r.waiting !== null)'), true);

    await banner.getByRole('button', { name: 'Neu laden' }).click();
    await until('the page reloaded with the new version', async () => {
      try {
        return (await page.evaluate('window.__sameDocument !== true && navigator.serviceWorker.controller !== null')) === true;
      } catch {
        return false; // the page is navigating
      }
    });
    await page.getByRole('button', { name: 'Anmelden' }).waitFor();
    assert.equal(
      await page.evaluate('navigator.serviceWorker.getRegistration().then((r) => r.waiting === null && r.active.state === "activated")'),
      true,
    );
    assert.equal(await page.getByText('Eine neue Version ist da.').count(), 0);
    assert.deepEqual(errors, []);
    await context.close();
  });
});
