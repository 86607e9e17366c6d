/**
 * The technician's day, in Chromium at a phone's viewport, with the demo week (orders the office
 * made, given to the technician as contact or by appointments in Dolibarr's agenda): after the login
 * the start screen shows his appointments of today and the next days in time order, as the API
 * gives them, with the customer's address and phone. With no network he opens the order of a later
 * appointment that he never opened (kept on the phone in the background), takes a photo there,
 * and back online the photo arrives exactly once in the order's Dolibarr folder. The same with an
 * intervention of the demo week (Dolibarr's `ficheinter/<ref>/`), listed among his open interventions.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { objectFolder } from '../../src/dolibarr/documents.js';
import { toDolibarrDateTime } from '../../src/dolibarr/time.js';
import {
  apiToken,
  assertAccessible,
  cachedRead,
  assertPhoneFriendly,
  goOffline,
  goOnline,
  logIn,
  outboxRecords,
  phone,
  screenshot,
  skipReason,
  startWorld,
  type AppWorld,
  until,
  untilOfflineReady,
} from '../helpers/browser.js';

const skip = skipReason();

interface Agenda {
  items: {
    id: number;
    label: string;
    start: number;
    object: { id: number; ref: string } | null;
    customer: { name: string | null } | null;
  }[];
}

describe("app: the technician's day in Chromium [sqlite]", { skip }, () => {
  let world: AppWorld;
  let scratch: string;

  before(async () => {
    // The service's days and the phone's in the same zone (the phone is in Berlin).
    world = await startWorld({ timeZone: 'Europe/Berlin' });
    scratch = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-today-'));
  });
  after(async () => {
    await world?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  const files = (dir: string) =>
    existsSync(dir)
      ? readdirSync(dir, { withFileTypes: true })
          .filter((e) => e.isFile() && !e.name.startsWith('.'))
          .map((e) => e.name)
          .sort()
      : [];

  test('opens on the appointments in time order; offline, a later appointment’s order takes a photo that arrives once', async () => {
    const token = await apiToken(world);
    const res = await world.ctx.app.inject({ url: '/api/agenda.php', headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.statusCode, 200, res.body);
    const agenda = res.json() as Agenda;
    const labels = agenda.items.map((i) => i.label);
    assert.deepEqual(labels, [
      'Wartung Gas-Brennwertkessel',
      'Störung: kein Warmwasser',
      'Angebot Wärmepumpe besprechen',
      'Inbetriebnahme Wärmepumpe',
      'Jährliche Wartung Lüftungsanlage',
      'Austausch Umwälzpumpe',
    ]);

    const { page, context, errors } = await phone(world);
    await logIn(page);
    const today = page.getByRole('list', { name: 'Heute' });
    await today.waitFor();
    const shown = async () =>
      (await page.locator('.appointment').allTextContents()).map((text) => labels.find((label) => text.includes(label)) ?? text);
    await until('the six appointments', async () => (await shown()).length === 6, 30_000, shown);
    assert.deepEqual(await shown(), labels, 'in time order, as the service gives them');
    assert.deepEqual(
      (await today.locator('.appointment').allTextContents()).map((text) => labels.find((label) => text.includes(label))),
      labels.slice(0, 3),
      "today's three under Heute",
    );
    await page.getByRole('list', { name: 'Morgen' }).getByText('Inbetriebnahme Wärmepumpe').waitFor();
    const first = today.locator('.appointment').first();
    await first.getByRole('link', { name: /^Karte: Zugspitzstraße 12, 82467 Garmisch-Partenkirchen$/ }).waitFor();
    await first.getByRole('link', { name: /^Anrufen: \+49 89/ }).waitFor();
    // The orders follow, as before.
    await page.getByRole('list', { name: 'Aufträge', exact: true }).waitFor();

    // The office gives him another order while he is logged in: the next refresh shows it, with no new login.
    const office = await world.ctx.handle.db.selectFrom('user').select('rowid').where('login', '=', 'buero').executeTakeFirstOrThrow();
    const technician = await world.ctx.handle.db
      .selectFrom('user')
      .select('rowid')
      .where('login', '=', 'techniker')
      .executeTakeFirstOrThrow();
    const urgent = await world.ctx.make.order({ author: Number(office.rowid), ref: 'CO-EILIG-1' });
    const todayThere = toDolibarrDateTime(new Date(), 'Europe/Berlin').slice(0, 10);
    await world.ctx.make.agendaEvent({
      type: 'commande',
      element: urgent.id,
      owner: Number(technician.rowid),
      datep: `${todayThere} 23:30:00`,
      datep2: `${todayThere} 23:45:00`,
      label: 'Notdienst Rohrbruch',
    });
    await page.getByRole('button', { name: 'Aktualisieren' }).click();
    await today.getByText('Notdienst Rohrbruch').waitFor();
    await page
      .getByRole('list', { name: 'Aufträge', exact: true })
      .getByRole('link', { name: /CO-EILIG-1/ })
      .waitFor();
    labels.splice(3, 0, 'Notdienst Rohrbruch');
    assert.deepEqual(await shown(), labels, 'the new appointment in its place');
    await assertAccessible(page, 'today');
    await assertPhoneFriendly(page, 'today');
    await screenshot(page, 'today');

    // Tomorrow's appointment (he attends the master's): its order was never opened on this phone.
    const visit = agenda.items.find((i) => i.label === 'Inbetriebnahme Wärmepumpe')!;
    const order = visit.object;
    assert.ok(order, 'the appointment names its order');
    const folder = objectFolder(world.ctx.config.dataRoot, world.ctx.config.entity, 'commande', order.ref).dir;
    const before = files(folder);
    await untilOfflineReady(page);
    // The phone keeps the appointments' orders in the background after the list.
    await until(
      'the order of the appointment is kept on the phone',
      async () => (await cachedRead(page, `order-files:${order.id}`)) !== undefined,
    );

    await goOffline(context);
    await page.getByRole('link', { name: `Auftrag ${order.ref}` }).click();
    await page.getByRole('heading', { name: /^Fotos/ }).waitFor();
    await page.getByText('Inbetriebnahme Wärmepumpe').first().waitFor();
    const picture = path.join(scratch, 'waermepumpe.jpg');
    await sharp({ create: { width: 1200, height: 900, channels: 3, background: '#2e86c1' } })
      .jpeg()
      .toFile(picture);
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Foto', exact: true }).click();
    await (await chooser).setFiles([picture]);
    await page.getByRole('button', { name: 'Foto waermepumpe.jpg öffnen (wartet auf das Senden)' }).waitFor();
    await screenshot(page, 'today-order-offline');
    assert.deepEqual(files(folder), before, 'nothing reached the service while offline');

    await goOnline(context);
    await page.evaluate('window.dispatchEvent(new Event("online"))');
    await until('the outbox is empty', async () => (await outboxRecords(page)).length === 0, 45_000);
    await until('the photo is in the order folder', () => files(folder).length === before.length + 1);
    assert.deepEqual(
      files(folder).filter((f) => !before.includes(f)),
      ['waermepumpe.jpg'],
      'the photo exactly once',
    );
    assert.deepEqual(errors, []);
    await context.close();
  });

  test("an intervention's appointment and the open interventions: offline, the intervention takes a photo that arrives once in ficheinter/<ref>/", async () => {
    const token = await apiToken(world);
    const res = await world.ctx.app.inject({ url: '/api/agenda.php', headers: { authorization: `Bearer ${token}` } });
    const agenda = res.json() as Agenda & { items: { object: { element_type: string } | null }[] };
    // In two days: the ventilation's yearly service, which the office keeps as an intervention.
    const visit = agenda.items.find((i) => i.label === 'Jährliche Wartung Lüftungsanlage')!;
    const intervention = visit.object as { id: number; ref: string; element_type: string };
    assert.equal(intervention.element_type, 'fichinter');
    const folder = objectFolder(world.ctx.config.dataRoot, world.ctx.config.entity, 'fichinter', intervention.ref).dir;
    assert.match(folder, /\/ficheinter\//);
    const before = files(folder);

    const { page, context, errors } = await phone(world);
    await logIn(page);
    // Both of his interventions are listed on the start screen, to open without an appointment too.
    const open = page.getByRole('list', { name: 'Serviceaufträge' });
    await open.waitFor();
    await until('his two open interventions', async () => (await open.getByRole('listitem').count()) === 2);
    await untilOfflineReady(page);
    await until(
      'the intervention of the appointment is kept on the phone',
      async () => (await cachedRead(page, `order-files:${-intervention.id}`)) !== undefined,
    );

    await goOffline(context);
    await page
      .locator('.appointment')
      .filter({ hasText: 'Jährliche Wartung Lüftungsanlage' })
      .getByRole('link', { name: `Serviceauftrag ${intervention.ref}` })
      .click();
    await page.getByRole('heading', { name: /^Fotos/ }).waitFor();
    await page.getByText(/Serviceauftrag · Freigegeben/).waitFor();
    await page.getByText('Jährliche Wartung Lüftungsanlage').first().waitFor();
    const picture = path.join(scratch, 'lueftung.jpg');
    await sharp({ create: { width: 1200, height: 900, channels: 3, background: '#1e8449' } })
      .jpeg()
      .toFile(picture);
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Foto', exact: true }).click();
    await (await chooser).setFiles([picture]);
    await page.getByRole('button', { name: 'Foto lueftung.jpg öffnen (wartet auf das Senden)' }).waitFor();
    await assertAccessible(page, 'intervention');
    await assertPhoneFriendly(page, 'intervention');
    await screenshot(page, 'intervention-offline');
    assert.deepEqual(files(folder), before, 'nothing reached the service while offline');

    await goOnline(context);
    await page.evaluate('window.dispatchEvent(new Event("online"))');
    await until('the outbox is empty', async () => (await outboxRecords(page)).length === 0, 45_000);
    await until('the photo is in the intervention folder', () => files(folder).length === before.length + 1);
    assert.deepEqual(
      files(folder).filter((f) => !before.includes(f)),
      ['lueftung.jpg'],
      'the photo exactly once',
    );
    const row = await world.ctx.handle.db
      .selectFrom('ecm_files')
      .select(['src_object_type', 'src_object_id'])
      .where('filepath', '=', `ficheinter/${intervention.ref}`)
      .where('filename', '=', 'lueftung.jpg')
      .executeTakeFirstOrThrow();
    assert.deepEqual([row.src_object_type, Number(row.src_object_id)], ['fichinter', intervention.id]);
    await page.getByRole('button', { name: 'Foto lueftung.jpg öffnen' }).waitFor();
    assert.deepEqual(errors, []);
    await context.close();
  });
});
