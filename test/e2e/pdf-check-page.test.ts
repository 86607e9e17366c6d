/**
 * The public check of a report PDF in a real browser (Debian's Chromium, playwright-core, at a
 * phone's viewport), against the service listening on 127.0.0.1: a person opens
 * /public/verify_signature.php, chooses a file and presses "PDF prüfen". The original final report
 * is recognised as unaltered with its report and signer; the same file with one changed byte is
 * altered; a report sealed by another instance is not ours; a text file is no PDF. Each page is
 * checked by axe-core and for a thumb at 360 × 640, and kept as a screenshot.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { entityRoot } from '../../src/dolibarr/ecm.js';
import { assertAccessible, assertPhoneFriendly, CHROMIUM, CHROMIUM_FLAGS, screenshot, WAIT } from '../helpers/browser.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { sign } from '../helpers/signature.js';

describe('the public check of a report PDF in Chromium [sqlite]', () => {
  let ctx: TestContext;
  let other: TestContext;
  let origin: string;
  let browser: Browser | undefined;
  let scratch: string;

  before(async () => {
    ctx = await createTestContext('sqlite');
    other = await createTestContext('sqlite');
    origin = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    scratch = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-check-'));
    if (existsSync(CHROMIUM)) browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS, timeout: WAIT });
  });
  after(async () => {
    await browser?.close();
    await ctx?.close();
    await other?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  /** A final report of `world`, signed by `signer`: its PDF as the customer got it. */
  async function finalPdf(world: TestContext, signer: string): Promise<Buffer> {
    const user = await world.make.user({ rights: ['read', 'write'] });
    const headers = { authorization: `Bearer ${await world.make.token(user)}` };
    const order = await world.make.order({ author: user.id });
    const created = await world.app.inject({
      method: 'POST',
      url: '/api/reports.php?action=create',
      headers,
      payload: { fk_element: order.id, title: 'Heizungswartung' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().id as number;
    assert.equal(
      (
        await world.app.inject({
          method: 'POST',
          url: `/api/pages.php?action=add&bericht_id=${id}`,
          headers,
          payload: { title: 'Brenner gereinigt' },
        })
      ).statusCode,
      201,
    );
    assert.equal((await sign(world.app, headers, id, signer)).statusCode, 201);
    const done = await world.app.inject({ method: 'POST', url: `/api/reports.php?id=${id}&action=finalize`, headers });
    assert.equal(done.statusCode, 200, done.body);
    return readFile(path.join(entityRoot(world.config.dataRoot, world.config.entity), done.json().final_pdf_path as string));
  }

  test("the original, one changed byte, another instance's report and a non-PDF are told apart in words", async (t) => {
    if (!browser) {
      t.skip(`chromium not installed (${CHROMIUM} missing)`);
      return;
    }
    const original = await finalPdf(ctx, 'Jürgen Weiß');
    const changed = Buffer.from(original);
    const at = changed.indexOf('stream\n', 0, 'latin1') + 12;
    changed[at] = changed[at]! ^ 0x01;
    const files = {
      original: path.join(scratch, 'Bericht.pdf'),
      changed: path.join(scratch, 'Bericht-bearbeitet.pdf'),
      foreign: path.join(scratch, 'Fremdbericht.pdf'),
      text: path.join(scratch, 'Notiz.pdf'),
    };
    await writeFile(files.original, original);
    await writeFile(files.changed, changed);
    await writeFile(files.foreign, await finalPdf(other, 'Anna Andere'));
    await writeFile(files.text, 'Nur eine Notiz, kein PDF.\n');

    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, locale: 'de-DE' });
    try {
      const page = await context.newPage();
      const expected: Array<[keyof typeof files, string, RegExp]> = [
        ['original', 'unaltered', /Unverändert: dieses PDF wurde von diesem Dienst versiegelt und seitdem nicht verändert/],
        [
          'changed',
          'altered',
          /Verändert: dieses PDF ist ein Bericht dieses Dienstes \(BR\d{4}-\d{4}\), wurde aber nach dem Versiegeln verändert/,
        ],
        ['foreign', 'not_ours', /Nicht von diesem Dienst/],
        ['text', 'not_pdf', /Keine PDF-Datei/],
      ];
      await page.goto(`${origin}/public/verify_signature.php`);
      await assertAccessible(page, 'check form');
      await assertPhoneFriendly(page, 'check form');
      await screenshot(page, 'check-form');
      for (const [which, verdict, words] of expected) {
        await page.getByLabel('PDF-Datei').setInputFiles(files[which]);
        await Promise.all([
          page.waitForURL(`${origin}/public/verify_signature.php`, { waitUntil: 'load' }),
          page.getByRole('button', { name: /prüfen/ }).click(),
        ]);
        const shown = page.locator('#verdict');
        assert.equal(await shown.getAttribute('data-verdict'), verdict, `${which}: ${await page.textContent('body')}`);
        assert.match((await shown.textContent()) ?? '', words);
        if (which === 'original') {
          const body = (await page.textContent('body')) ?? '';
          assert.match(body, /Jürgen Weiß/);
          assert.match(body, /Version1/);
        }
        await assertAccessible(page, `check ${which}`);
        await assertPhoneFriendly(page, `check ${which}`);
        await screenshot(page, `check-${which}`);
      }
    } finally {
      await context.close();
    }
  });
});
