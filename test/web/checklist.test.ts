/**
 * A maintenance visit with a checklist and time on site, in Chromium at a phone's viewport with
 * touch, against the real service on SQLite; each result checked through the API and the database:
 * 1. offline, the technician arrives (the phone's time of the tap), answers a template's checklist:
 *    one item OK by a tap (the next open item takes the focus), a value with a German decimal comma
 *    ("6,8"), a value out of its limits said in words at once, a defect (a note is required, a photo
 *    of the order chosen), "alle übrigen OK" after its confirmation (measurements without a value or
 *    out of limits stay open), and leaves; online again, with one answer lost on its way back, each
 *    answer arrived exactly once (idempotency rows = the outbox's records), values as numbers, the
 *    interval with the phone's tap times; an interval corrected (from/to and a reason) and one added
 *    by hand; the report shows the total time on site;
 * 2. an arrival the service refuses (already on site, tapped on another phone) is said in words and
 *    kept as refused until the person discards it;
 * 3. an admin adds a checklist page with units and limits (decimal comma) to a template, the app's
 *    own check names the item, the service's refusal names it too; a report from the template shows
 *    the limits;
 * 4. in English every text of the checklist and the time card is English;
 * 5. every item has a camera: a photo taken while a defect is open joins the defect, one taken on an
 *    item without a form goes to the item at once; a defect's note, its photos and an "OK trotz
 *    Grenzwert" reason being typed survive leaving the screen (a draft on the phone) and arrive once saved;
 * 6. online, a double tap on "Angekommen" (60 ms apart) opens one interval; "Rückgängig" after the
 *    tap reached the service takes it back there (the arrival goes; a departure opens the interval again).
 * axe-core and the phone checks (44 px, 360 px) on the checklist, the time card, the correction
 * dialog and the template editor; screenshots in docs/screenshots.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import sharp from 'sharp';
import {
  apiToken,
  logInEnglish,
  outboxRecords,
  assertAccessible,
  assertPhoneFriendly,
  goOffline,
  goOnline,
  logIn,
  phone,
  screenshot,
  skipReason,
  startWorld,
  type AppWorld,
  until,
  untilOfflineReady,
} from '../helpers/browser.js';
import { multipart } from '../helpers/multipart.js';

const skip = skipReason();

interface Item {
  id: number;
  label: string;
  unit: string | null;
  lower: number | null;
  upper: number | null;
  state: string;
  value: number | null;
  deviation: string | null;
  note: string | null;
  photos: { name: string }[];
  checked_at: number | null;
}
interface PageRow {
  id: number;
  layout: string;
  title: string | null;
  checklist: Item[] | null;
}
interface Interval {
  id: number;
  fk_user: number;
  arrival: number;
  departure: number | null;
  seconds: number | null;
  arrival_tapped: number | null;
  departure_tapped: number | null;
  manual: boolean;
  corrections: { reason: string; arrival: number | null; departure: number | null }[];
}
interface TimeList {
  items: Interval[];
  total_seconds: number;
  open: Interval | null;
}

/** The checklist every visit of this file answers (a template's page). */
const ITEMS = [
  { label: 'Sichtprüfung Gerät und Abgasleitung' },
  { label: 'Abgasverlust', unit: '%', upper: 10 },
  { label: 'CO-Gehalt unverdünnt', unit: 'ppm', upper: 50 },
  { label: 'Dichtheit Abgasweg' },
  { label: 'Flammenüberwachung' },
  { label: 'Sicherheitsventil' },
  { label: 'Anlagendruck', unit: 'bar', lower: 1, upper: 2 },
];

const berlinClock = new Intl.DateTimeFormat('de-DE', { timeZone: 'Europe/Berlin', hour: '2-digit', minute: '2-digit' });
const berlinDate = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Berlin', year: 'numeric', month: '2-digit', day: '2-digit' });
const clock = (unix: number) => berlinClock.format(unix * 1000);
/** A moment two seconds into its minute, `msAgo` before now: a tap a few seconds after setting the phone's clock to it still shows the same minute. */
const earlyInAMinute = (msAgo: number) => new Date(Math.floor((Date.now() - msAgo) / 60_000) * 60_000 + 2_000);
/** "2 h 35 min" / "35 min", as the app says a duration. */
function span(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  return minutes >= 60 ? `${Math.floor(minutes / 60)} h ${minutes % 60} min` : `${minutes} min`;
}

describe('app: a maintenance visit with a checklist and time on site [sqlite]', { skip }, () => {
  let world: AppWorld;
  let scratch: string;
  let templateId: number;

  before(async () => {
    world = await startWorld();
    scratch = mkdtempSync(path.join(os.tmpdir(), 'fieldreport-checklist-'));
    const template = await api<{ id: number }>('/api/templates.php?action=create', {
      method: 'POST',
      login: 'admin',
      payload: { template_label: 'Wartung Gastherme (Prüfliste)', title: 'Wartungsprotokoll Gastherme' },
    });
    templateId = template.id;
    await api(`/api/pages.php?action=add&bericht_id=${templateId}`, {
      method: 'POST',
      login: 'admin',
      payload: { layout: 'checklist', title: 'Prüfpunkte Gastherme', checklist: ITEMS },
    });
  });
  after(async () => {
    await world?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  async function api<T = unknown>(url: string, init: { method?: 'GET' | 'POST'; payload?: unknown; login?: string } = {}): Promise<T> {
    const res = await world.ctx.app.inject({
      url,
      method: init.method ?? 'GET',
      ...(init.payload ? { payload: init.payload as object } : {}),
      headers: { authorization: `Bearer ${await apiToken(world, init.login)}` },
    });
    assert.ok(res.statusCode < 300, `${url}: ${res.statusCode} ${res.body}`);
    return res.json() as T;
  }
  /** The technician's `n`th open order (validated, in progress, then drafts): each test its own. */
  async function openOrder(n: number): Promise<{ id: number; ref: string }> {
    const rank = [1, 2, 0];
    const open = (await api<{ items: { id: number; ref: string; status: number }[] }>('/api/orders.php?limit=500')).items
      .filter((o) => rank.includes(o.status))
      .sort((a, b) => rank.indexOf(a.status) - rank.indexOf(b.status) || a.id - b.id);
    assert.ok(open.length > n, `demo data: ${open.length} open orders`);
    return open[n]!;
  }
  async function reportFromTemplate(orderId: number, title: string, template = templateId): Promise<{ id: number; pages: PageRow[] }> {
    return api('/api/reports.php?action=create', { method: 'POST', payload: { fk_element: orderId, title, template_id: template } });
  }
  async function report(id: number): Promise<{ id: number; pages: PageRow[] }> {
    return api(`/api/reports.php?id=${id}`);
  }
  const times = (orderId: number) => api<TimeList>(`/api/times.php?element_type=commande&fk_element=${orderId}`);
  async function upload(orderId: number, name: string, background: string): Promise<string> {
    const file = path.join(scratch, name);
    await sharp({ create: { width: 800, height: 600, channels: 3, background } })
      .jpeg({ quality: 80 })
      .toFile(file);
    const form = multipart([{ name: 'file', filename: name, type: 'image/jpeg', data: readFileSync(file) }]);
    const res = await world.ctx.app.inject({
      method: 'POST',
      url: `/api/orders.php?id=${orderId}&action=upload_photo`,
      payload: form.payload,
      headers: { 'content-type': form.contentType, authorization: `Bearer ${await apiToken(world)}` },
    });
    assert.equal(res.statusCode, 201, res.body);
    return (res.json() as { name: string }).name;
  }
  /** The checklist item on screen by its label. */
  const item = (page: Page, label: string): Locator =>
    page.locator('li[data-item]').filter({ has: page.getByRole('heading', { name: label }) });
  /** The key as the service keeps it (a hash of the Idempotency-Key, the outbox record's id). */
  const keyOf = (id: string) => createHash('sha256').update(id, 'utf8').digest('hex');
  /** Whether the focus is in this field. */
  const focused = async (field: Locator) =>
    (await field.getAttribute('id')) === (await field.page().evaluate('document.activeElement && document.activeElement.id'));
  /** axe-core in the light and the dark theme. */
  async function accessibleBoth(page: Page, screen: string): Promise<void> {
    await assertAccessible(page, screen);
    await page.emulateMedia({ colorScheme: 'dark' });
    try {
      await assertAccessible(page, `${screen} (dark)`);
    } finally {
      await page.emulateMedia({ colorScheme: 'light' });
    }
  }
  const waitSent = (page: Page) => page.getByRole('button', { name: 'Warteschlange: 0 Einträge warten' }).waitFor({ timeout: 45_000 });

  // ---- 1 --------------------------------------------------------------------------------------

  test('1: offline: arrive, answer the checklist (OK, "6,8", out of limits, a defect, all remaining OK), leave; online each answer arrives once', async () => {
    const order = await openOrder(0);
    const photo = await upload(order.id, 'abgasrohr.jpg', '#7b241c');
    const made = await reportFromTemplate(order.id, 'Wartung Gastherme');
    const checklistPage = made.pages.find((p) => p.layout === 'checklist')!;
    assert.ok(checklistPage, "the report has the template's checklist page");

    const { page, context, errors } = await phone(world);
    await logIn(page);
    // In the morning, with signal: the order and its report (the phone keeps what it showed).
    await page.goto(`/app/#/order/${order.id}`);
    await page.getByRole('heading', { name: 'Zeit vor Ort' }).waitFor();
    await page.getByText('Noch keine Zeiten erfasst.').waitFor();
    await page.getByRole('link', { name: /Wartung Gastherme/ }).click();
    await page.getByRole('link', { name: /Prüfpunkte Gastherme/ }).waitFor();
    assert.match(
      (await page.locator('ol.pages > li').filter({ hasText: 'Prüfpunkte Gastherme' }).textContent()) ?? '',
      /7 Punkte · 7 offen/,
    );
    await page.getByRole('button', { name: 'Zurück' }).click();
    await page.getByRole('heading', { name: 'Zeit vor Ort' }).waitFor();
    // The app's code is kept for offline (the checklist screen opens first in the cellar).
    await until(
      'the service worker in charge',
      async () => (await page.evaluate('!!navigator.serviceWorker && !!navigator.serviceWorker.controller')) === true,
    );

    // In the cellar: no signal, and the phone's clock says two hours ago.
    await goOffline(context);
    const arrivedAt = earlyInAMinute(2 * 3600_000);
    await page.clock.setSystemTime(arrivedAt);
    await page.getByRole('button', { name: 'Angekommen' }).tap();
    await page.getByText(`vor Ort seit ${clock(arrivedAt.getTime() / 1000)}`).waitFor();
    await page.getByRole('button', { name: 'Abfahrt' }).waitFor();
    // The interval waits; it cannot be corrected before the service has it, and says so.
    const pendingRow = page.getByRole('list', { name: 'Zeiten vor Ort' }).getByRole('button');
    await pendingRow.getByText('wartet auf Übertragung').waitFor();
    await pendingRow.click();
    await page.getByText('korrigieren lässt er sich, sobald der Server ihn hat').waitFor();

    await page.getByRole('link', { name: /Wartung Gastherme/ }).click();
    await page.getByRole('link', { name: /Prüfpunkte Gastherme/ }).click();
    await page.getByText('0 von 7 geprüft').waitFor();

    // One tap: OK, and the next item (a measurement) takes the focus.
    await item(page, 'Sichtprüfung Gerät und Abgasleitung').getByRole('button', { name: 'OK' }).tap();
    await page.getByText('1 von 7 geprüft').waitFor();
    assert.equal(
      await item(page, 'Sichtprüfung Gerät und Abgasleitung').getByRole('button', { name: 'OK' }).getAttribute('aria-pressed'),
      'true',
    );
    const abgas = item(page, 'Abgasverlust');
    await until('the next item has the focus', () => focused(abgas.getByLabel(/Messwert/)));
    assert.match((await abgas.textContent()) ?? '', /≤ 10 %/);
    await page.keyboard.type('6,8');
    assert.equal(
      await abgas
        .locator('.deviation')
        .textContent()
        .then((t) => t?.trim()),
      '',
      'within its limit: nothing said',
    );
    await abgas.getByRole('button', { name: 'OK' }).tap();
    await page.getByText('2 von 7 geprüft').waitFor();

    // Out of its limit: said in words while typing, before anything is sent.
    const co = item(page, 'CO-Gehalt unverdünnt');
    await until('the CO field has the focus', () => focused(co.getByLabel(/Messwert/)));
    await page.keyboard.type('80');
    await co.getByText('über dem Grenzwert 50 ppm').waitFor();
    assert.equal(await co.getByLabel(/Messwert/).getAttribute('aria-invalid'), 'true');
    await page.keyboard.press('Enter');
    await co.getByText('wartet').waitFor();

    // A defect needs a note; a photo of the order goes with it.
    const leak = item(page, 'Dichtheit Abgasweg');
    await leak.getByRole('button', { name: 'Mangel' }).tap();
    await leak.getByRole('button', { name: 'Mangel speichern' }).click();
    await leak.getByText('Ein Mangel braucht eine Notiz.').waitFor();
    await leak.getByLabel(/Was ist mangelhaft/).fill('Abgasrohr an der Muffe undicht, Dichtung erneuern');
    await leak.getByRole('button', { name: `Foto ${photo} zum Mangel` }).click();
    assert.equal(await leak.getByRole('button', { name: `Foto ${photo} zum Mangel` }).getAttribute('aria-pressed'), 'true');
    // The photo editor is offered for the chosen photo (marking it is walked in visit-maintenance.test.ts).
    assert.equal(await leak.getByRole('button', { name: 'Foto markieren' }).count(), 1);
    await leak.evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await accessibleBoth(page, 'checklist, defect');
    await screenshot(page, 'checklist-defect');
    await leak.getByRole('button', { name: 'Mangel speichern' }).click();
    await page.getByText('3 von 7 geprüft, 1 Mangel').waitFor();

    // "Alle übrigen OK": says what it does first.
    await page.getByRole('button', { name: 'Alle übrigen OK' }).click();
    const confirm = page.getByRole('dialog', { name: 'Alle übrigen Punkte OK?' });
    await confirm.getByText('2 offene Punkte werden OK.').waitFor();
    await confirm.getByText('2 Messungen ohne Wert oder außerhalb der Grenzen bleiben offen.').waitFor();
    await confirm.getByRole('button', { name: 'OK setzen' }).click();
    await page.getByText('5 von 7 geprüft, 1 Mangel').waitFor();
    for (const label of ['Flammenüberwachung', 'Sicherheitsventil'])
      assert.equal(await item(page, label).getByRole('button', { name: 'OK' }).getAttribute('aria-pressed'), 'true', label);
    for (const label of ['CO-Gehalt unverdünnt', 'Anlagendruck'])
      assert.equal(await item(page, label).getByRole('button', { name: 'OK' }).getAttribute('aria-pressed'), 'false', label);
    await page.evaluate('window.scrollTo(0, 0)');
    await accessibleBoth(page, 'checklist');
    await assertPhoneFriendly(page, 'checklist');
    await screenshot(page, 'checklist', { small: true });

    // Back at the order, an hour later by the phone: leaving.
    await page.getByRole('button', { name: 'Zum Bericht' }).click();
    assert.match(
      (await page.locator('ol.pages > li').filter({ hasText: 'Prüfpunkte Gastherme' }).textContent()) ?? '',
      /7 Punkte · 1 Mangel · 2 offen/,
    );
    await page.getByRole('link', { name: `Auftrag ${order.ref}` }).click();
    const leftAt = earlyInAMinute(3600_000);
    await page.clock.setSystemTime(leftAt);
    await page.getByRole('button', { name: 'Abfahrt' }).click();
    await page.getByRole('button', { name: 'Angekommen' }).waitFor();
    await page.getByText(`${clock(arrivedAt.getTime() / 1000)}–${clock(leftAt.getTime() / 1000)}`).waitFor();

    const queued = await outboxRecords(page);
    const checks = queued.filter((r) => r.kind === 'check-item');
    assert.deepEqual(
      queued.map((r) => r.kind).filter((k) => !k.startsWith('check-item')),
      ['time-arrive', 'check-all', 'time-leave'],
    );
    assert.ok(checks.length >= 4, `an answer for each item answered: ${checks.length}`);

    // Signal again; the answer to the first checklist request is lost on its way back.
    await page.clock.setSystemTime(new Date());
    await goOnline(context);
    let lost = 0;
    await context.route(/\/api\/pages\.php\?.*action=check/, async (route) => {
      if (lost > 0) return route.continue();
      lost++;
      await route.fetch();
      await route.abort('connectionreset');
    });
    await page.evaluate('window.dispatchEvent(new Event("online"))');
    await waitSent(page);
    assert.equal(lost, 1, 'one answer was lost');
    await context.unrouteAll({ behavior: 'wait' });

    // Each answer arrived exactly once: one idempotency row per outbox record, no more.
    const rows = await world.ctx.handle.db
      .selectFrom('bericht_idempotency')
      .select(['idem_key', 'scope'])
      .where('scope', 'like', `page:check%:${checklistPage.id}`)
      .execute();
    assert.deepEqual(
      rows.map((r) => r.idem_key).sort(),
      [...checks, ...queued.filter((r) => r.kind === 'check-all')].map((r) => keyOf(r.id)).sort(),
    );
    const items = (await report(made.id)).pages.find((p) => p.id === checklistPage.id)!.checklist!;
    const byLabel = (label: string) => items.find((i) => i.label === label)!;
    assert.deepEqual(
      items.map((i) => i.state),
      ['ok', 'ok', 'open', 'defect', 'ok', 'ok', 'open'],
    );
    assert.equal(byLabel('Abgasverlust').value, 6.8);
    assert.equal(byLabel('CO-Gehalt unverdünnt').value, 80);
    assert.equal(byLabel('CO-Gehalt unverdünnt').deviation, 'above');
    assert.equal(byLabel('Anlagendruck').value, null);
    assert.equal(byLabel('Dichtheit Abgasweg').note, 'Abgasrohr an der Muffe undicht, Dichtung erneuern');
    assert.deepEqual(
      byLabel('Dichtheit Abgasweg').photos.map((p) => p.name),
      [photo],
    );
    const stored = await world.ctx.handle.db
      .selectFrom('bericht_page')
      .select('checklist')
      .where('rowid', '=', checklistPage.id)
      .executeTakeFirstOrThrow();
    assert.match(stored.checklist ?? '', /"value":6\.8[,}]/, 'stored as a number');
    // The phone's time of each answer, not the service's.
    assert.ok(Math.abs(byLabel('Abgasverlust').checked_at! - arrivedAt.getTime() / 1000) < 600, "answered by the phone's clock");

    // The interval with the phone's tap times, arrived once each.
    const listed = await times(order.id);
    assert.equal(listed.items.length, 1);
    const interval = listed.items[0]!;
    assert.ok(
      Math.abs(interval.arrival_tapped! - arrivedAt.getTime() / 1000) <= 2,
      `arrival ${interval.arrival_tapped} vs ${arrivedAt.getTime() / 1000}`,
    );
    assert.ok(
      Math.abs(interval.departure_tapped! - leftAt.getTime() / 1000) <= 2,
      `departure ${interval.departure_tapped} vs ${leftAt.getTime() / 1000}`,
    );
    assert.equal(listed.open, null);
    const timeRows = await world.ctx.handle.db
      .selectFrom('bericht_idempotency')
      .select('scope')
      .where('scope', 'in', [`time:arrive:commande:${order.id}`, `time:leave:commande:${order.id}`])
      .execute();
    assert.equal(timeRows.length, 2);

    // A correction: ten minutes more at the end, with a reason.
    const row = page.getByRole('list', { name: 'Zeiten vor Ort' }).getByRole('button').first();
    await until("the interval is the service's", async () => !((await row.textContent()) ?? '').includes('wartet'));
    await row.click();
    const dialog = page.getByRole('dialog', { name: 'Zeit korrigieren' });
    await dialog.getByLabel('Bis').waitFor();
    assert.equal(await dialog.getByLabel('Von').inputValue(), clock(interval.arrival));
    const newDeparture = Math.floor(interval.departure! / 60) * 60 + 600;
    await dialog.getByLabel('Bis').fill(clock(newDeparture));
    await dialog.getByRole('button', { name: 'Speichern' }).click();
    await dialog.getByText('Bitte einen Grund angeben.').waitFor();
    await dialog.getByLabel(/Grund/).fill('Abfahrt zu früh getippt');
    assert.equal(await dialog.getByText('Bitte einen Grund angeben.').count(), 0, 'the note goes once a reason is typed');
    await accessibleBoth(page, 'time correction');
    await assertPhoneFriendly(page, 'time correction');
    await screenshot(page, 'time-correct');
    await dialog.getByRole('button', { name: 'Speichern' }).click();
    await waitSent(page);
    const corrected = (await times(order.id)).items[0]!;
    assert.equal(corrected.departure, newDeparture);
    assert.equal(corrected.arrival, interval.arrival, 'the arrival as tapped, to the second');
    assert.deepEqual(
      corrected.corrections.map((c) => c.reason),
      ['Abfahrt zu früh getippt'],
    );

    // An interval entered by hand (yesterday, 10:00–10:30).
    await page.getByRole('button', { name: 'Zeit nachtragen' }).click();
    const add = page.getByRole('dialog', { name: 'Zeit nachtragen' });
    const yesterday = berlinDate.format(Date.now() - 86_400_000);
    await add.getByLabel('Datum').fill(yesterday);
    await add.getByLabel('Von').fill('10:00');
    await add.getByLabel('Bis').fill('10:30');
    await add.getByText('Dauer 30 min').waitFor();
    await add.getByLabel(/Grund/).fill('Vorabbesichtigung vergessen');
    await add.getByRole('button', { name: 'Speichern' }).click();
    await waitSent(page);
    const all = await times(order.id);
    const manual = all.items.find((i) => i.manual)!;
    assert.equal(manual.seconds, 1800);
    assert.equal(clock(manual.arrival), '10:00');
    assert.equal(berlinDate.format(manual.arrival * 1000), yesterday);
    await page.getByText(`Gesamt ${span(all.total_seconds)}`).waitFor();
    assert.equal(await page.getByText('korrigiert').count(), 2, 'both intervals are marked as set by hand');
    const card = page.locator('section').filter({ has: page.getByRole('heading', { name: 'Zeit vor Ort' }) });
    await card.evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await page.evaluate('window.scrollBy(0, -64)');
    await accessibleBoth(page, 'time on site');
    await assertPhoneFriendly(page, 'time on site');
    await screenshot(page, 'time-on-site');

    // The report says how long the technician was there.
    const reportTimes = await api<TimeList>(`/api/times.php?bericht_id=${made.id}`);
    assert.equal(reportTimes.total_seconds, all.total_seconds);
    await page.getByRole('link', { name: /Wartung Gastherme/ }).click();
    await page.getByText(`Zeit vor Ort: ${span(reportTimes.total_seconds)}`).waitFor();
    assert.deepEqual(errors, []);
    await context.close();
  });

  // ---- 2 --------------------------------------------------------------------------------------

  test('2: an arrival the service refuses (already on site, tapped elsewhere) is said in words and kept until discarded', async () => {
    const order = await openOrder(1);
    const { page, context, errors } = await phone(world);
    await logIn(page);
    await page.goto(`/app/#/order/${order.id}`);
    await page.getByRole('button', { name: 'Angekommen' }).waitFor();
    await untilOfflineReady(page);
    await goOffline(context);
    await page.getByRole('button', { name: 'Angekommen' }).click();
    await page.getByRole('button', { name: 'Abfahrt' }).waitFor();
    // Meanwhile the same technician arrived on another phone.
    await api('/api/times.php?action=arrive', { method: 'POST', payload: { element_type: 'commande', fk_element: order.id } });
    await goOnline(context);
    await page.evaluate('window.dispatchEvent(new Event("online"))');
    const refusal = page.getByRole('alert').filter({ hasText: 'Die Ankunft ist schon erfasst; erst die Abfahrt erfassen.' });
    await refusal.waitFor({ timeout: 30_000 });
    assert.match((await refusal.textContent()) ?? '', /Ankunft .* wurde vom Server abgelehnt/);
    await page.getByRole('button', { name: 'Warteschlange: 1 Eintrag abgelehnt' }).waitFor();
    // The service's open interval (from the other phone) shows; one interval, not two.
    await page.getByRole('button', { name: 'Abfahrt' }).waitFor();
    assert.equal((await times(order.id)).items.length, 1);
    await refusal.getByRole('button').click();
    await page.getByRole('button', { name: 'Warteschlange: 0 Einträge warten' }).waitFor();
    await api('/api/times.php?action=leave', { method: 'POST', payload: { element_type: 'commande', fk_element: order.id } });
    assert.deepEqual(errors, []);
    await context.close();
  });

  // ---- 3 --------------------------------------------------------------------------------------

  test('3: an admin adds a checklist with units and limits to a template; refusals name the item; a report from it shows the limits', async () => {
    const { page, context, errors } = await phone(world);
    await logIn(page, 'meister');
    await page.getByRole('button', { name: 'Einstellungen' }).click();
    await page.getByRole('button', { name: 'Vorlagen bearbeiten' }).click();
    await page.getByRole('link', { name: /Wartung Gasheizung/ }).click();
    await page.getByRole('button', { name: 'Neue Prüfliste' }).click();
    const named = page.getByRole('dialog', { name: 'Neue Prüfliste' });
    await named.getByLabel('Titel der Prüfliste').fill('Elektrische Prüfung');
    await named.getByRole('button', { name: 'Hinzufügen' }).click();
    await page.getByLabel('Titel der Prüfliste').waitFor();

    const fill = async (number: number, fields: { label: string; unit?: string; lower?: string; upper?: string }) => {
      await page.getByRole('button', { name: 'Punkt hinzufügen' }).click();
      const group = page.getByRole('group', { name: `Punkt ${number}` });
      await group.getByLabel('Bezeichnung').fill(fields.label);
      if (fields.unit) await group.getByLabel('Einheit').fill(fields.unit);
      if (fields.lower) await group.getByLabel('Untere Grenze').fill(fields.lower);
      if (fields.upper) await group.getByLabel('Obere Grenze').fill(fields.upper);
    };
    await fill(1, { label: 'Isolationswiderstand', unit: 'MΩ', lower: '0,5' });
    await fill(2, { label: 'Schleifenimpedanz', unit: 'Ω', upper: '1,44' });
    await fill(3, { label: 'RCD Auslösezeit', unit: 'ms', lower: '400', upper: '300' });
    await fill(4, { label: 'Sichtprüfung Verteiler' });
    // The app's own check names the item.
    await page.getByRole('button', { name: 'Speichern' }).click();
    await page.getByText('Punkt 3: die untere Grenze liegt über der oberen.').waitFor();
    await page.getByRole('group', { name: 'Punkt 3' }).getByLabel('Untere Grenze').fill('0');
    await page.getByRole('button', { name: 'Punkt 4 nach oben' }).click();
    assert.equal(await page.getByRole('group', { name: 'Punkt 3' }).getByLabel('Bezeichnung').inputValue(), 'Sichtprüfung Verteiler');
    await page.getByRole('button', { name: 'Punkt 3 nach unten' }).click();
    await page.getByRole('group', { name: 'Punkt 1' }).scrollIntoViewIfNeeded();
    await accessibleBoth(page, 'template checklist editor');
    await assertPhoneFriendly(page, 'template checklist editor');
    await screenshot(page, 'template-checklist');
    await page.getByRole('button', { name: 'Speichern' }).click();
    await page.getByRole('link', { name: /Elektrische Prüfung/ }).waitFor();
    await waitSent(page);

    const templates = await api<{ items: { id: number; template_label: string }[] }>('/api/templates.php');
    const template = templates.items.find((t) => t.template_label === 'Wartung Gasheizung')!;
    const saved = (await report(template.id)).pages.find((p) => p.title === 'Elektrische Prüfung')!;
    assert.deepEqual(
      saved.checklist!.map((i) => [i.label, i.unit, i.lower, i.upper]),
      [
        ['Isolationswiderstand', 'MΩ', 0.5, null],
        ['Schleifenimpedanz', 'Ω', null, 1.44],
        ['RCD Auslösezeit', 'ms', 0, 300],
        ['Sichtprüfung Verteiler', null, null, null],
      ],
    );

    // The service's refusal names the item too (a limit beyond what it keeps).
    await page.getByRole('link', { name: /Elektrische Prüfung/ }).click();
    await page.getByRole('group', { name: 'Punkt 2' }).getByLabel('Obere Grenze').fill('5000000000');
    await page.getByRole('button', { name: 'Speichern' }).click();
    const refused = page.getByRole('alert').filter({ hasText: 'vom Server abgelehnt' });
    await refused.waitFor({ timeout: 30_000 });
    assert.match((await refused.textContent()) ?? '', /Punkt 2 „Schleifenimpedanz“/);
    await refused.getByRole('button', { name: 'Entfernen' }).click();
    await page.getByRole('button', { name: 'Warteschlange: 0 Einträge warten' }).waitFor();

    // A report made from the template has the items with their limits.
    const order = await openOrder(2);
    const made = await reportFromTemplate(order.id, 'Elektroprüfung', template.id);
    const copied = made.pages.find((p) => p.title === 'Elektrische Prüfung')!;
    assert.deepEqual(
      copied.checklist!.map((i) => [i.label, i.lower, i.upper, i.state]),
      [
        ['Isolationswiderstand', 0.5, null, 'open'],
        ['Schleifenimpedanz', null, 1.44, 'open'],
        ['RCD Auslösezeit', 0, 300, 'open'],
        ['Sichtprüfung Verteiler', null, null, 'open'],
      ],
    );
    assert.deepEqual(errors, []);
    await context.close();
    // The technician sees them on the phone, with their limits.
    const technician = await phone(world);
    await logIn(technician.page);
    await technician.page.goto(`/app/#/report/${made.id}/check/${copied.id}`);
    await item(technician.page, 'Isolationswiderstand').getByText('(≥ 0,5 MΩ)').waitFor();
    await item(technician.page, 'Schleifenimpedanz').getByText('(≤ 1,44 Ω)').waitFor();
    await item(technician.page, 'RCD Auslösezeit').getByText('(0 – 300 ms)').waitFor();
    assert.deepEqual(technician.errors, []);
    await technician.context.close();
  });

  // ---- 4 --------------------------------------------------------------------------------------

  test('4: in English, the checklist and the time card are English', async () => {
    const order = await openOrder(3);
    const made = await reportFromTemplate(order.id, 'Service visit');
    const checklistPage = made.pages.find((p) => p.layout === 'checklist')!;
    const { page, context, errors } = await phone(world, { locale: 'en-GB' });
    await logInEnglish(page);
    await page.goto(`/app/#/order/${order.id}`);
    await page.getByRole('heading', { name: 'Time on site' }).waitFor();
    await page.getByRole('button', { name: 'Arrived' }).click();
    await page.getByText(/on site since \d\d:\d\d/).waitFor();
    const timeCard =
      (await page
        .locator('section')
        .filter({ has: page.getByRole('heading', { name: 'Time on site' }) })
        .textContent()) ?? '';
    assert.doesNotMatch(timeCard, /Zeit|Angekommen|Abfahrt|vor Ort|nachtragen|Gesamt/);

    await page.goto(`/app/#/report/${made.id}/check/${checklistPage.id}`);
    await page.getByText('0 of 7 checked').waitFor();
    const first = item(page, 'Sichtprüfung Gerät und Abgasleitung');
    for (const name of ['OK', 'Defect', 'N/A']) await first.getByRole('button', { name }).waitFor();
    await item(page, 'CO-Gehalt unverdünnt').getByLabel('Measured value').fill('80');
    await item(page, 'CO-Gehalt unverdünnt').getByText('above the limit 50 ppm').waitFor();
    await item(page, 'Abgasverlust').getByLabel('Measured value').fill('6.8');
    await first.getByRole('button', { name: 'Defect' }).click();
    await first.getByLabel('What is defective? (required)').waitFor();
    await first.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'All remaining OK' }).waitFor();
    const body = (await page.locator('main').textContent()) ?? '';
    assert.doesNotMatch(body, /geprüft|Mangel|Messwert|Grenzwert|übrigen|wartet/);
    await page.getByRole('button', { name: 'All remaining OK' }).click();
    const confirm = page.getByRole('dialog', { name: 'All remaining items OK?' });
    await confirm.getByText('5 open items become OK.').waitFor();
    await confirm.getByText('2 measurements without a value or outside their limits stay open.').waitFor();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    assert.deepEqual(errors, []);
    await context.close();
  });

  // ---- 5 --------------------------------------------------------------------------------------

  test('5: a camera on every item; what is typed in a defect or a reason survives leaving the screen', async () => {
    const order = await openOrder(4);
    const made = await reportFromTemplate(order.id, 'Wartung mit Kamera');
    const checklistPage = made.pages.find((p) => p.layout === 'checklist')!;
    const shot = (name: string, background: string) => {
      const file = path.join(scratch, name);
      return sharp({ create: { width: 1200, height: 900, channels: 3, background } })
        .jpeg({ quality: 80 })
        .toFile(file)
        .then(() => file);
    };
    const [leak, plate] = await Promise.all([shot('leck.jpg', '#1f618d'), shot('typenschild.jpg', '#b9770e')]);
    const { page, context, errors } = await phone(world);
    await logIn(page);
    const checklist = `/app/#/report/${made.id}/check/${checklistPage.id}`;
    await page.goto(checklist);
    await page.getByText('0 von 7 geprüft').waitFor();
    const NOTE = 'Dichtung am Abgasrohr porös, Kondensat tritt aus';
    const sealing = item(page, 'Dichtheit Abgasweg');
    const cameraOf = (row: Locator, label: string) => row.getByRole('button', { name: `Foto zu „${label}“ aufnehmen` });
    for (const label of ITEMS.map((i) => i.label)) await cameraOf(item(page, label), label).waitFor();
    await accessibleBoth(page, 'checklist with cameras');
    await assertPhoneFriendly(page, 'checklist with cameras');

    // A defect begun: the note typed, then the camera in the defect's form.
    await sealing.getByRole('button', { name: 'Mangel' }).click();
    await sealing.getByLabel('Was ist mangelhaft? (Pflichtangabe)').fill(NOTE);
    let chooser = page.waitForEvent('filechooser');
    await sealing.getByRole('button', { name: 'Foto aufnehmen' }).click();
    await (await chooser).setFiles(leak);
    await until(
      'the photo taken is chosen for the defect',
      async () => (await sealing.locator('button.thumb[aria-pressed="true"]').count()) === 1,
    );
    // An "OK trotz Grenzwert" reason begun on another item.
    const pressure = item(page, 'Anlagendruck');
    await pressure.getByLabel('Messwert').fill('2,6');
    await pressure.getByLabel('Messwert').press('Enter');
    await pressure.getByRole('button', { name: 'OK', exact: true }).click();
    await pressure.getByLabel('OK trotz Grenzwert – Begründung (Pflichtangabe)').fill('Anlage kalt gemessen');

    // Away (to the order, as to take another photo) and back: both forms open as they were left.
    await page.goto(`/app/#/order/${order.id}`);
    await page.getByRole('heading', { name: /^Fotos/ }).waitFor();
    await page.goto(checklist);
    await sealing.getByLabel('Was ist mangelhaft? (Pflichtangabe)').waitFor();
    assert.equal(await sealing.getByLabel('Was ist mangelhaft? (Pflichtangabe)').inputValue(), NOTE);
    assert.equal(await sealing.locator('button.thumb[aria-pressed="true"]').count(), 1, 'the photo taken is still chosen');
    assert.equal(await pressure.getByLabel('OK trotz Grenzwert – Begründung (Pflichtangabe)').inputValue(), 'Anlage kalt gemessen');
    // A reload too (the draft is on the phone, not in the page).
    await page.reload();
    await sealing.getByLabel('Was ist mangelhaft? (Pflichtangabe)').waitFor();
    assert.equal(await sealing.getByLabel('Was ist mangelhaft? (Pflichtangabe)').inputValue(), NOTE);
    await screenshot(page, 'checklist-draft');
    await sealing.getByRole('button', { name: 'Mangel speichern' }).click();
    await pressure.getByRole('button', { name: 'OK trotz Grenzwert speichern' }).click();

    // The camera on an item without a form: the photo goes to the item at once.
    const first = item(page, 'Sichtprüfung Gerät und Abgasleitung');
    chooser = page.waitForEvent('filechooser');
    await cameraOf(first, 'Sichtprüfung Gerät und Abgasleitung').click();
    await (await chooser).setFiles(plate);
    // The photo is made ready on the phone first (reduced in a worker), then it and the answer go to the outbox.
    await until(
      'the photo shows with the item',
      async () => (await first.getByRole('list', { name: 'Fotos zum Mangel' }).getByRole('listitem').count()) === 1,
    );
    await waitSent(page);
    await until('the item points at its photo at the service', async () => {
      const page = (await report(made.id)).pages.find((p) => p.id === checklistPage.id)!;
      return page.checklist!.find((i) => i.label === 'Sichtprüfung Gerät und Abgasleitung')!.photos.length === 1;
    });

    const items = (await report(made.id)).pages.find((p) => p.id === checklistPage.id)!.checklist!;
    const byLabel = (label: string) => items.find((i) => i.label === label)!;
    assert.equal(byLabel('Dichtheit Abgasweg').state, 'defect');
    assert.equal(byLabel('Dichtheit Abgasweg').note, NOTE);
    assert.equal(byLabel('Dichtheit Abgasweg').photos.length, 1);
    assert.equal(byLabel('Anlagendruck').state, 'ok');
    assert.equal(byLabel('Anlagendruck').value, 2.6);
    assert.equal(byLabel('Sichtprüfung Gerät und Abgasleitung').state, 'open', 'a photo alone answers nothing');
    assert.equal(byLabel('Sichtprüfung Gerät und Abgasleitung').photos.length, 1);
    // Both photos are the order's, each once.
    const files = (await api<{ items: { name: string }[] }>(`/api/orders.php?id=${order.id}&action=photos`)).items.map((f) => f.name);
    for (const photo of [byLabel('Dichtheit Abgasweg').photos[0]!, byLabel('Sichtprüfung Gerät und Abgasleitung').photos[0]!])
      assert.equal(files.filter((f) => f === path.basename(photo.name)).length, 1, `${photo.name} in ${files.join(', ')}`);

    // Saved, the drafts are gone: back on the screen no form is open.
    await page.reload();
    await page.getByText(/von 7 geprüft/).waitFor();
    await page.waitForTimeout(300);
    assert.equal(await page.getByLabel('Was ist mangelhaft? (Pflichtangabe)').count(), 0);
    assert.equal(await page.getByLabel('OK trotz Grenzwert – Begründung (Pflichtangabe)').count(), 0);
    assert.deepEqual(errors, []);
    await context.close();
  });

  // ---- 6 --------------------------------------------------------------------------------------

  test('6: online, a double tap arrives once; "Rückgängig" takes an arrival and a departure back at the service', async () => {
    const order = await openOrder(5);
    const { page, context, errors } = await phone(world);
    await logIn(page);
    await page.goto(`/app/#/order/${order.id}`);
    await page.getByRole('heading', { name: 'Zeit vor Ort' }).waitFor();
    const bigButton = page.getByRole('button', { name: /^(Angekommen|Abfahrt)$/ });
    await bigButton.tap();
    await page.waitForTimeout(60);
    // A finger that bounces: it does not wait until the button may be tapped again (Playwright
    // would, and on a busy machine tap after the double-tap window).
    await bigButton.tap({ force: true });
    await waitSent(page);
    let list = await times(order.id);
    assert.equal(list.items.length, 1, 'one interval for a double tap');
    assert.equal(list.items[0]!.departure, null, 'still on site');
    const arrival = list.items[0]!;
    // On site with nothing closed yet: "vor Ort seit", no "Gesamt 0 min".
    await page.getByText(/vor Ort seit \d\d:\d\d/).waitFor();
    assert.equal(await page.getByText(/Gesamt 0 min/).count(), 0, 'no total of nothing while on site');

    // Sent already: taking it back goes to the service.
    await page.getByRole('button', { name: /^Rückgängig: Ankunft/ }).click();
    await waitSent(page);
    await page.getByRole('button', { name: 'Angekommen' }).waitFor();
    list = await times(order.id);
    assert.deepEqual(list.items, [], `the arrival ${arrival.id} went`);

    await page.waitForTimeout(1600);
    await page.getByRole('button', { name: 'Angekommen' }).tap();
    await waitSent(page);
    await page.waitForTimeout(1600);
    await page.getByRole('button', { name: 'Abfahrt' }).tap();
    await waitSent(page);
    list = await times(order.id);
    assert.equal(list.items.length, 1);
    assert.notEqual(list.items[0]!.departure, null, 'left');
    await page.getByRole('button', { name: /^Rückgängig: Abfahrt/ }).click();
    await waitSent(page);
    list = await times(order.id);
    assert.equal(list.items.length, 1);
    assert.equal(list.items[0]!.departure, null, 'on site again');
    assert.equal(list.open?.id, list.items[0]!.id);
    await page.getByRole('button', { name: 'Abfahrt' }).waitFor();
    await page.getByText(/vor Ort seit \d\d:\d\d/).waitFor();
    assert.equal(await page.getByRole('button', { name: /^Rückgängig/ }).count(), 0, 'taken back once');
    await accessibleBoth(page, 'time on site after an undo');
    assert.deepEqual(errors, []);
    await context.close();
  });
});
