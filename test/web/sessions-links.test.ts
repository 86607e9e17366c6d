/**
 * Ending access from the app, in Chromium at a phone's viewport: "Abmelden" online ends the phone's
 * token on the service, not the person's other logins; "Überall abmelden" in the settings
 * (after a confirmation; dismissed, nothing happens) ends every login of the person, another
 * device's token included, checked through the API; a login afterwards works. The QR dialog of an
 * order lists the order's live links with their expiry and revokes one after a confirmation: the
 * revoked link stops at once (checked through the API and its page), the other goes on working.
 * axe-core on the settings and on the QR dialog with its list.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import {
  apiToken,
  assertAccessible,
  assertPhoneFriendly,
  logIn,
  phone,
  skipReason,
  startWorld,
  type AppWorld,
} from '../helpers/browser.js';
import { multipart } from '../helpers/multipart.js';

const skip = skipReason();

describe('app: log out everywhere and revoke upload links in Chromium [sqlite]', { skip }, () => {
  let world: AppWorld;
  let techniker: number;

  before(async () => {
    world = await startWorld();
    const row = await world.ctx.handle.db.selectFrom('user').select('rowid').where('login', '=', 'techniker').executeTakeFirstOrThrow();
    techniker = Number(row.rowid);
  });
  after(async () => world?.close());

  const orders = (token: string) => world.ctx.app.inject({ url: '/api/orders.php?limit=1', headers: { authorization: `Bearer ${token}` } });

  test('"Überall abmelden" asks first, then ends the login on every device; a new login works', async () => {
    // Another device of the same person: a lost phone, say.
    const lostPhone = await apiToken(world);
    assert.equal((await orders(lostPhone)).statusCode, 200);

    const { page, context, errors } = await phone(world);
    await logIn(page);
    await page.getByRole('button', { name: 'Einstellungen' }).click();
    const everywhere = page.getByRole('button', { name: 'Überall abmelden' });
    await everywhere.waitFor();
    await page.getByText('Beendet Ihre Anmeldung auf allen Geräten').waitFor();
    await assertAccessible(page, 'settings with log out everywhere');
    await assertPhoneFriendly(page, 'settings with log out everywhere');

    // Dismissed: nothing ends.
    let asked = '';
    page.once('dialog', (dialog) => {
      asked = dialog.message();
      void dialog.dismiss();
    });
    await everywhere.click();
    assert.match(asked, /Auf allen Geräten abmelden\?/);
    assert.equal((await orders(lostPhone)).statusCode, 200, 'dismissed: the other device keeps its login');
    await everywhere.waitFor();

    page.once('dialog', (dialog) => void dialog.accept());
    await everywhere.click();
    await page.getByLabel('Benutzername').waitFor();
    const refused = await orders(lostPhone);
    assert.equal(refused.statusCode, 401, refused.body);
    assert.equal(refused.json().code, 'AUTH_TOKEN_INVALID');

    await logIn(page);
    assert.equal((await orders(await apiToken(world))).statusCode, 200, 'a login afterwards works');
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('"Abmelden" online ends this phone\'s token on the service; the other device goes on', async () => {
    const { page, context, errors } = await phone(world);
    await logIn(page);
    await new Promise((r) => setTimeout(r, 1_100)); // another second: another token
    const otherDevice = await apiToken(world);
    const revokedBefore = (
      await world.ctx.handle.db.selectFrom('bericht_token_revoked').select('rowid').where('fk_user', '=', techniker).execute()
    ).length;
    await page.getByRole('button', { name: 'Einstellungen' }).click();
    await page.getByRole('button', { name: 'Abmelden', exact: true }).click();
    await page.getByLabel('Benutzername').waitFor();
    const revokedAfter = (
      await world.ctx.handle.db.selectFrom('bericht_token_revoked').select('rowid').where('fk_user', '=', techniker).execute()
    ).length;
    assert.equal(revokedAfter, revokedBefore + 1, "the phone's token ended on the service");
    assert.equal((await orders(otherDevice)).statusCode, 200, 'the other device keeps its login');
    assert.deepEqual(errors, []);
    await context.close();
  });

  test("the QR dialog lists the order's live links and revokes one after a confirmation", async () => {
    const order = await world.ctx.make.order({ author: techniker });
    // A link made earlier (on another visit), valid for 2 hours.
    const token = await apiToken(world);
    const earlier = await world.ctx.app.inject({
      method: 'POST',
      url: '/api/upload_token.php',
      headers: { authorization: `Bearer ${token}` },
      payload: { fk_element: order.id, hours: 2 },
    });
    assert.equal(earlier.statusCode, 201, earlier.body);
    const earlierLink = earlier.json() as { id: number; token: string };

    const { page, context, errors } = await phone(world);
    await logIn(page);
    await page.goto(`/app/#/order/${order.id}`);
    await page.getByRole('heading', { name: /^Fotos/ }).waitFor();
    await page.getByRole('button', { name: 'QR-Code' }).click();
    const qr = page.getByRole('dialog', { name: 'Fotos von einem zweiten Handy' });
    await qr.getByRole('img', { name: 'QR-Code des Upload-Links' }).waitFor();
    const links = qr.getByRole('list', { name: 'Aktive Links' }).getByRole('listitem');
    await links.nth(1).waitFor();
    assert.equal(await links.count(), 2);
    const shown = links.filter({ hasText: 'dieser Code' });
    assert.equal(await shown.count(), 1, 'the code shown is marked');
    await assertAccessible(page, 'QR dialog with its links');
    await assertPhoneFriendly(page, 'QR dialog with its links');

    let asked = '';
    page.once('dialog', (dialog) => {
      asked = dialog.message();
      void dialog.accept();
    });
    await links.filter({ hasNotText: 'dieser Code' }).getByRole('button', { name: 'widerrufen' }).click();
    await qr
      .getByRole('list', { name: 'Aktive Links' })
      .getByRole('listitem')
      .filter({ hasNotText: 'dieser Code' })
      .waitFor({ state: 'detached' });
    assert.match(asked, /widerrufen\?/);
    assert.equal(await links.count(), 1);

    // Through the API: the revoked link is gone, the one shown works on.
    const listed = await world.ctx.app.inject({
      url: `/api/upload_token.php?fk_element=${order.id}`,
      headers: { authorization: `Bearer ${token}` },
    });
    const ids = (listed.json().items as { id: number }[]).map((l) => l.id);
    assert.equal(ids.length, 1);
    assert.ok(!ids.includes(earlierLink.id), 'the revoked link is not listed');
    const photo = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#48a' } })
      .jpeg()
      .toBuffer();
    const upload = (t: string) => {
      const form = multipart([{ name: 'file', filename: 'zweites-handy.jpg', type: 'image/jpeg', data: photo }]);
      return world.ctx.app.inject({
        method: 'POST',
        url: `/public/upload.php?token=${t}`,
        headers: { 'content-type': form.contentType },
        payload: form.payload,
      });
    };
    const revokedUpload = await upload(earlierLink.token);
    assert.equal(revokedUpload.statusCode, 404, revokedUpload.body);
    assert.equal(revokedUpload.json().code, 'UPLOAD_TOKEN_NOT_FOUND');
    const shownHref = (await qr.getByRole('link').getAttribute('href')) ?? '';
    const shownToken = new URL(shownHref).searchParams.get('token')!;
    assert.equal((await upload(shownToken)).statusCode, 201, 'the link shown still works');
    assert.deepEqual(errors, []);
    await context.close();
  });
});
