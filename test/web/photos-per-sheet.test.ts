/**
 * The PDF's page layout in the app, in Chromium at a phone's viewport against the real service on
 * SQLite: the new-report dialog offers "Fotos je Blatt" 1 / 2 / 4 (4 without a template, the
 * template's choice with one); a report made with 2 has 2 at the service; on the report screen a
 * draft's choice changes (through the outbox: offline it waits, marked, and arrives once online);
 * a final report shows its choice and offers none. Every value is checked through the API.
 * axe-core (light and dark) and the phone checks at 390 × 844 and 360 × 640 on the dialog and the
 * report screen; screenshots of both.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import {
  apiToken,
  assertAccessible,
  assertPhoneFriendly,
  goOffline,
  goOnline,
  logIn,
  orderByRef,
  phone,
  screenshot,
  skipReason,
  startWorld,
  until,
  untilOfflineReady,
  type AppWorld,
} from '../helpers/browser.js';

const REF = 'CO2611-0009';
const TEMPLATE = 'Wartung Gasheizung';
const TITLE = 'Kompakter Bericht';

describe('app: photos per sheet in Chromium [sqlite]', { skip: skipReason() }, () => {
  let world: AppWorld;
  before(async () => {
    world = await startWorld();
  });
  after(async () => world?.close());

  async function api(url: string, init: { method?: 'GET' | 'POST'; payload?: unknown; login?: string } = {}) {
    const res = await world.ctx.app.inject({
      url,
      method: init.method ?? 'GET',
      ...(init.payload ? { payload: init.payload as object } : {}),
      headers: { authorization: `Bearer ${await apiToken(world, init.login)}` },
    });
    assert.ok(res.statusCode < 300, `${url}: ${res.statusCode} ${res.body}`);
    return res.json();
  }

  /** The report of that title on the order, as the service has it. */
  async function serviceReport(orderId: number): Promise<{ id: number; photos_per_sheet: number; status: string } | undefined> {
    const list = (await api(`/api/reports.php?element_type=commande&fk_element=${orderId}&limit=500`)) as {
      items: Array<{ id: number; title: string; photos_per_sheet: number; status: string }>;
    };
    return list.items.find((r) => r.title === TITLE);
  }

  const group = (page: Page) => page.getByRole('group', { name: 'Fotos je Blatt' });
  /** The choice is a row of labels around visually hidden radio buttons: the person touches the label. */
  const choose = (page: Page, n: number) =>
    group(page)
      .locator('label')
      .filter({ hasText: new RegExp(`^\\s*${n}\\s*$`) })
      .click();
  async function checked(page: Page): Promise<number[]> {
    const out: number[] = [];
    for (const n of [1, 2, 4])
      if (
        await group(page)
          .getByRole('radio', { name: String(n), exact: true })
          .isChecked()
      )
        out.push(n);
    return out;
  }

  test('a report made with 2 photos per sheet, changed on the report screen (also offline), fixed once final; all through the API', async () => {
    const order = await orderByRef(world, REF);
    // The demo template gets 1, so the dialog's default from a template can be told from the plain default 4.
    const templates = (await api('/api/templates.php')) as { items: Array<{ id: number; template_label: string; page_count: number }> };
    const template = templates.items.find((t) => t.template_label === TEMPLATE);
    assert.ok(template, 'the demo template');
    const option = `${TEMPLATE} (${template.page_count} Seiten)`;
    await api(`/api/reports.php?action=update&id=${template.id}`, { method: 'POST', payload: { photos_per_sheet: 1 }, login: 'admin' });

    const { page, context, errors } = await phone(world);
    await logIn(page);
    await page.getByRole('link', { name: new RegExp(REF) }).click();
    await page.getByRole('heading', { name: /^Fotos/ }).waitFor();
    await page.getByRole('button', { name: 'Neuer Bericht' }).click();
    const dialog = page.getByRole('dialog', { name: 'Neuer Bericht' });
    await group(page).waitFor();
    assert.deepEqual(await checked(page), [4], 'without a template: 4');
    // The cover sheets by their titles, not their file names.
    assert.deepEqual(await dialog.locator('#nr-cover option').allTextContents(), ['Ohne Deckblatt', 'Servicebericht']);
    await dialog.getByLabel('Vorlage').selectOption({ label: option });
    assert.deepEqual(await checked(page), [1], "the template's choice");
    await dialog.getByLabel('Vorlage').selectOption({ label: 'Ohne Vorlage (leer)' });
    assert.deepEqual(await checked(page), [4], 'back to the default without a template');
    await dialog.getByLabel('Vorlage').selectOption({ label: option });
    await choose(page, 2);
    assert.deepEqual(await checked(page), [2]);
    await dialog.getByText(/Kompakt: zwei Fotos je Blatt/).waitFor();
    await dialog.getByLabel('Titel').fill(TITLE);
    await assertAccessible(page, 'new report dialog');
    await assertPhoneFriendly(page, 'new report dialog');
    await screenshot(page, 'new-report-photos-per-sheet', { small: true });
    await dialog.getByRole('button', { name: 'Anlegen' }).click();

    await until('the report at the service with 2 per sheet', async () => (await serviceReport(order.id))?.photos_per_sheet === 2);
    const made = (await serviceReport(order.id))!;
    const detail = (await api(`/api/reports.php?id=${made.id}`)) as { photos_per_sheet: number; pages: unknown[] };
    assert.equal(detail.photos_per_sheet, 2);
    assert.equal(detail.pages.length, template.page_count, "the template's pages");

    // The report screen: the draft's choice, changed.
    await page.getByRole('heading', { name: TITLE, level: 2 }).waitFor();
    await until('the choice shown', async () => (await checked(page)).join() === '2');
    await assertAccessible(page, 'report with the choice');
    await assertPhoneFriendly(page, 'report with the choice');
    await page.evaluate('window.scrollTo(0, 0)');
    await screenshot(page, 'report-photos-per-sheet', { small: true });
    await choose(page, 1);
    await until('1 at the service', async () => (await serviceReport(order.id))?.photos_per_sheet === 1);

    // Offline the change waits in the outbox, shown at once and marked; online again it arrives.
    await untilOfflineReady(page);
    await goOffline(context);
    await choose(page, 4);
    assert.deepEqual(await checked(page), [4]);
    await group(page).getByText('wartet').waitFor();
    assert.equal((await serviceReport(order.id))?.photos_per_sheet, 1, 'not sent while offline');
    await goOnline(context);
    await until('4 at the service after going online', async () => (await serviceReport(order.id))?.photos_per_sheet === 4);
    await group(page).getByText('wartet').waitFor({ state: 'detached' });

    // Dark, on another phone: the same screen read from the service.
    await choose(page, 2);
    await until('2 at the service', async () => (await serviceReport(order.id))?.photos_per_sheet === 2);
    const dark = await phone(world, { colorScheme: 'dark' });
    await logIn(dark.page);
    await dark.page.goto(`/app/#/report/${made.id}`);
    await until(
      'the choice on the dark phone',
      async () => (await group(dark.page).count()) > 0 && (await checked(dark.page)).join() === '2',
    );
    await assertAccessible(dark.page, 'report with the choice, dark');
    await dark.context.close();

    // Final: the choice is shown, not offered.
    await api(`/api/reports.php?id=${made.id}&action=finalize`, { method: 'POST' });
    await page.reload();
    await page.getByText('Fotos je Blatt: 2').waitFor();
    assert.equal(await group(page).count(), 0, 'no choice on a final report');
    assert.deepEqual(errors, []);
    await context.close();
  });
});
