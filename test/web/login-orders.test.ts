/**
 * The app's first screens in Chromium at a phone's viewport: the login with the service's refusals
 * shown to the person (wrong password, deactivated, no rights), in German and in English; the order
 * list as the API gives it (newest first), narrowed by search as you type, the next page loaded by
 * scrolling; the login kept over a reload; axe-core on both screens in light and dark mode, and
 * their screenshots.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  apiToken,
  assertAccessible,
  assertPhoneFriendly,
  logIn,
  openApp,
  phone,
  screenshot,
  skipReason,
  startWorld,
  type AppWorld,
} from '../helpers/browser.js';

const skip = skipReason();

describe('app: login and orders in Chromium [sqlite]', { skip }, () => {
  let world: AppWorld;
  let techniker: number;

  before(async () => {
    world = await startWorld();
    const row = await world.ctx.handle.db.selectFrom('user').select('rowid').where('login', '=', 'techniker').executeTakeFirstOrThrow();
    techniker = Number(row.rowid);
    // Enough orders for more than one page (the app loads 30 at a time), older than the demo's.
    const customer = await world.ctx.make.thirdParty({ name: 'Seitenweise GmbH' });
    const day = 24 * 3600;
    for (let i = 0; i < 32; i++) {
      await world.ctx.make.order({
        author: techniker,
        customer: customer.id,
        ref: `CO2001-${String(i + 1).padStart(4, '0')}`,
        date: Date.UTC(2020, 0, 1) / 1000 + i * day,
      });
    }
  });
  after(async () => world?.close());

  /** Polls `count` until `ok` says yes (30 s at most). */
  async function waitForCount(count: () => Promise<number>, ok: (n: number) => boolean) {
    const end = Date.now() + 30_000;
    for (let n = await count(); !ok(n); n = await count()) {
      if (Date.now() > end) assert.fail(`the list kept ${n} entries`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async function apiOrders(q = '') {
    const res = await world.ctx.app.inject({
      url: `/api/orders.php?limit=500${q ? `&q=${encodeURIComponent(q)}` : ''}`,
      headers: { authorization: `Bearer ${await apiToken(world)}` },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { items: { ref: string }[]; total: number };
  }

  test('the login shows the service refusals; a right login opens the order list and stays over a reload', async () => {
    const { page, context, errors } = await phone(world);
    await openApp(page);
    await assertAccessible(page, 'login (light)');
    await assertPhoneFriendly(page, 'login');
    await screenshot(page, 'login');

    const message = async () => (await page.getByRole('alert').textContent())?.trim();
    await page.getByRole('button', { name: 'Anmelden' }).click();
    assert.equal(await message(), 'Bitte Benutzername und Passwort eingeben.');

    await page.getByLabel('Benutzername').fill('techniker');
    await page.getByLabel('Passwort').fill('falsch');
    await page.getByRole('button', { name: 'Anmelden' }).click();
    await page.getByRole('alert').filter({ hasText: 'Login fehlgeschlagen' }).waitFor();
    await screenshot(page, 'login-failed');

    await page.getByLabel('Benutzername').fill('ehemalig');
    await page.getByLabel('Passwort').fill('demo');
    await page.getByRole('button', { name: 'Anmelden' }).click();
    await page.getByRole('alert').filter({ hasText: 'User deaktiviert' }).waitFor();

    await page.getByLabel('Benutzername').fill('gast');
    await page.getByRole('button', { name: 'Anmelden' }).click();
    await page.getByRole('alert').filter({ hasText: 'Keine Bericht-Rechte' }).waitFor();

    await logIn(page);
    await page.reload();
    await page.getByRole('list', { name: 'Aufträge', exact: true }).waitFor();
    assert.equal(await page.getByLabel('Passwort').count(), 0, 'a reload keeps the login');
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('in English when the browser prefers it', async () => {
    const { page, context } = await phone(world, { locale: 'en-US' });
    await openApp(page);
    assert.equal(await page.locator('html').getAttribute('lang'), 'en');
    await page.getByLabel('User name').fill('techniker');
    await page.getByLabel('Password').fill('wrong');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Login failed' }).waitFor();
    await page.getByLabel('Password').fill('demo');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('list', { name: 'Orders' }).waitFor();
    // Amounts and dates in English formats.
    const first = await page.getByRole('list', { name: 'Orders' }).getByRole('link').first().textContent();
    assert.match(first ?? '', /€[\d,]+\.\d\d/);
    await context.close();
  });

  test('the language is chosen in the settings, applies at once, stays over a reload, and goes back to the phone’s', async () => {
    const { page, context, errors } = await phone(world);
    await logIn(page);
    await page.getByRole('button', { name: 'Einstellungen' }).click();
    const choice = page.getByLabel('Sprache der App');
    await choice.waitFor();
    assert.equal(await choice.inputValue(), 'auto');
    assert.equal(await page.locator('option[value="auto"]').textContent(), 'Wie das Telefon (Deutsch)');
    await choice.selectOption('en');
    await page.getByLabel("The app's language").waitFor();
    assert.equal(await page.locator('html').getAttribute('lang'), 'en');
    await assertAccessible(page, 'settings in English');
    await page.reload();
    await page.getByLabel("The app's language").waitFor();
    assert.equal(await page.getByLabel("The app's language").inputValue(), 'en');
    await page.goto('/app/#/orders');
    await page.getByRole('list', { name: 'Orders' }).waitFor();
    await page.goto('/app/#/settings');
    await page.getByLabel("The app's language").selectOption('auto');
    await page.getByLabel('Sprache der App').waitFor();
    assert.equal(await page.locator('html').getAttribute('lang'), 'de');
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('the order list is the API list, newest first; search narrows it; scrolling loads the next page', async () => {
    const { page, context, errors } = await phone(world);
    await logIn(page);
    const list = page.getByRole('list', { name: 'Aufträge', exact: true });
    const shown = (ok: (n: number) => boolean) => waitForCount(() => list.getByRole('listitem').count(), ok);
    const refs = async () => (await list.getByRole('link').locator('strong').allTextContents()).map((s) => s.trim());

    const all = await apiOrders();
    assert.ok(all.total > 30, `more orders than one page (${all.total})`);
    await shown((n) => n >= 30);
    assert.deepEqual(
      await refs(),
      all.items.slice(0, 30).map((o) => o.ref),
    );
    await assertAccessible(page, 'orders (light)');
    await assertPhoneFriendly(page, 'orders');
    await screenshot(page, 'orders');

    // The end of the list scrolled into view: the rest arrives.
    await page.mouse.wheel(0, 20_000);
    await shown((n) => n === all.total);
    assert.deepEqual(
      await refs(),
      all.items.map((o) => o.ref),
    );

    // Search as you type: by customer name, then by order number.
    await page.getByRole('searchbox').fill('Sonnenschein');
    const expected = (await apiOrders('Sonnenschein')).items.map((o) => o.ref);
    assert.ok(expected.length > 0 && expected.length < all.total);
    await shown((n) => n === expected.length);
    assert.deepEqual(await refs(), expected);
    await screenshot(page, 'orders-search');

    await page.getByRole('searchbox').fill('CO2001-0007');
    await shown((n) => n === 1);
    assert.deepEqual(await refs(), ['CO2001-0007']);

    await page.getByRole('searchbox').fill('gibt es nicht');
    await page.getByText('Kein Auftrag passt zur Suche.').waitFor();
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('login and order list have no serious accessibility violation in dark mode', async () => {
    const { page, context } = await phone(world, { colorScheme: 'dark' });
    await openApp(page);
    await assertAccessible(page, 'login (dark)');
    await screenshot(page, 'login-dark');
    await logIn(page);
    const items = page.getByRole('list', { name: 'Aufträge', exact: true }).getByRole('listitem');
    await waitForCount(
      () => items.count(),
      (n) => n >= 30,
    );
    await assertAccessible(page, 'orders (dark)');
    await screenshot(page, 'orders-dark');
    await context.close();
  });
});
