/**
 * Every screen's main action is in view when the screen opens, without scrolling, on a tall phone
 * (390 × 844) and a small one (360 × 640), in Debian's Chromium: log in, the order's camera, the
 * report's way to its PDF, time on site's arrival, the sign-off's confirmation, the
 * pad's "Unterschreiben" (below the pad the page scrolls, the button stays), finalizing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { apiToken, logIn, openApp, skipReason, startWorld, type AppWorld } from '../helpers/browser.js';

const skip = skipReason();
const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 360, height: 640 },
];

describe("app: every screen's main action in view without scrolling [sqlite]", { skip }, () => {
  let world: AppWorld;
  let orderId: number;
  let reportId: number;
  /** A report with one page and nothing missing: its sign-off can be confirmed at once. */
  let plainId: number;
  before(async () => {
    world = await startWorld();
    const headers = { authorization: `Bearer ${await apiToken(world)}` };
    const reports = (await world.ctx.app.inject({ url: '/api/reports.php', headers })).json() as {
      items: Array<{ id: number; title: string; fk_element: number; status: string }>;
    };
    const draft = reports.items.find((r) => r.status === 'draft')!;
    assert.ok(draft, 'the demo has a draft report');
    reportId = draft.id;
    orderId = draft.fk_element;
    const other = reports.items.find((r) => r.fk_element !== orderId)?.fk_element ?? orderId;
    const made = await world.ctx.app.inject({
      method: 'POST',
      url: '/api/reports.php?action=create',
      headers,
      payload: { fk_element: other, title: 'Kurz', odt_template: null },
    });
    assert.equal(made.statusCode, 201, made.body);
    plainId = made.json().id;
    const page = await world.ctx.app.inject({
      method: 'POST',
      url: `/api/pages.php?action=add&bericht_id=${plainId}`,
      headers,
      payload: { layout: 'title_only', title: 'Heizraum' },
    });
    assert.equal(page.statusCode, 201, page.body);
  });
  after(async () => world?.close());

  /** `action` is shown whole within the viewport, and the page was not scrolled to show it. */
  async function inView(page: Page, action: Locator, what: string): Promise<void> {
    await action.waitFor();
    const viewport = page.viewportSize()!;
    const box = await action.boundingBox();
    assert.ok(box, `${what}: on the screen`);
    const scrolled = await page.evaluate(() => (globalThis as unknown as { scrollY: number }).scrollY);
    assert.equal(scrolled, 0, `${what}: the screen opened at its top`);
    assert.ok(
      box.y >= 0 && box.y + box.height <= viewport.height + 0.5 && box.x >= 0 && box.x + box.width <= viewport.width + 0.5,
      `${what} at ${viewport.width}×${viewport.height}: its box ${JSON.stringify(box)} lies in view`,
    );
  }

  for (const viewport of VIEWPORTS) {
    test(`${viewport.width} × ${viewport.height}`, async () => {
      const context = await world.browser.newContext({
        viewport,
        hasTouch: true,
        isMobile: true,
        deviceScaleFactor: 1,
        locale: 'de-DE',
        timezoneId: 'Europe/Berlin',
        baseURL: world.origin,
      });
      const page = await context.newPage();
      try {
        await openApp(page);
        await inView(page, page.getByRole('button', { name: 'Anmelden' }), 'log in');
        await logIn(page);

        await page.goto(`/app/#/order/${orderId}`);
        await inView(page, page.getByRole('button', { name: 'Foto', exact: true }), "the order's camera");
        await inView(page, page.getByRole('button', { name: 'Angekommen' }), 'time on site: arrived');

        await page.goto(`/app/#/report/${reportId}`);
        await inView(page, page.getByRole('button', { name: 'PDF & Abschluss' }), "the report's PDF and finishing");

        await page.goto(`/app/#/report/${reportId}/sign`);
        await inView(
          page,
          page.getByRole('button', { name: 'Bestätigen und unterschreiben' }),
          "the sign-off's confirmation (a visit with open items)",
        );
        await page.goto(`/app/#/report/${plainId}/sign`);
        const confirm = page.getByRole('button', { name: 'Bestätigen und unterschreiben' });
        await inView(page, confirm, "the sign-off's confirmation");
        await confirm.click();
        await inView(page, page.getByRole('button', { name: 'Unterschreiben', exact: true }), "the pad's Unterschreiben");

        await page.goto(`/app/#/report/${reportId}/pdf`);
        await inView(page, page.getByRole('button', { name: 'Abschließen', exact: true }), 'finalizing');
      } finally {
        await context.close();
      }
    });
  }
});
