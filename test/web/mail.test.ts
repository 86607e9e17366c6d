/**
 * A final report sent to the customer by e-mail from the app ("An Kunden senden"), in Chromium at a
 * phone's viewport with touch, against the real service on SQLite and a real SMTP server inside the
 * test (STARTTLS, AUTH; test/helpers/smtp.ts) that the service's mail queue sends to:
 * 1. the final report seen with signal keeps the proposal on the phone; offline the technician opens
 *    the dialog, keeps the proposed contact, is told at once what is wrong with two typed addresses,
 *    adds a second one and sends: one mail-send record in the outbox. Online again, with the first
 *    answer lost on its way back, the outbox sends it again with the same key: the mail arrives
 *    exactly once (and stays once), to both, with the office's copy, its PDF the final PDF byte for
 *    byte; the report screen then says "Gesendet an … am …";
 * 2. a recipient the mail server refuses: the report screen says why, in words;
 * 3. in English every text of the dialog and of the report's mails is English.
 * axe-core and the phone checks (44 px, 360 px) on the dialog and the report screen with mails,
 * light and dark; screenshots mail-send and mail-sent.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { toDbDateTime } from '../../src/db/dialect.js';
import { ADDRESS_PATTERN as SERVICE_PATTERN } from '../../src/modules/mail/mail.schemas.js';
import { ADDRESS_PATTERN as APP_PATTERN, addressProblem } from '../../web/src/lib/mail/mail-view.js';
import {
  apiToken,
  assertAccessible,
  assertPhoneFriendly,
  cachedRead,
  goOffline,
  logIn,
  logInEnglish,
  outboxPayloads,
  phone,
  screenshot,
  skipReason,
  startWorld,
  type AppWorld,
  until,
} from '../helpers/browser.js';
import { sign } from '../helpers/signature.js';
import { startSmtp, type TestSmtp } from '../helpers/smtp.js';

const skip = skipReason();
const OFFICE = 'buero@heiztechnik.example';
const CONTACT = 'erika@sonnenschein.example';
const SECOND = 'technik@sonnenschein.example';

test('the app checks an address as the service does (the same pattern)', () => {
  assert.equal(APP_PATTERN, SERVICE_PATTERN);
  assert.equal(addressProblem('erika@sonnenschein.example'), undefined);
  assert.equal(addressProblem('Erika <erika@sonnenschein.example>'), 'space');
  assert.equal(addressProblem('erika@sonnenschein'), 'format');
  assert.equal(addressProblem('  '), 'empty');
  assert.equal(addressProblem(`${'a'.repeat(250)}@b.de`), 'long');
  // Plain addresses only, as the service takes them: no source routes, at most 64 characters before the @.
  for (const routed of ['a%b@sonnenschein.example', 'b!a@sonnenschein.example', `${'a'.repeat(65)}@b.de`, '"a"@b.de', 'a..b@b.de'])
    assert.equal(addressProblem(routed), 'format', routed);
  assert.equal(addressProblem(`${'a'.repeat(64)}@b.de`), undefined);
});

describe('app: a final report sent to the customer by e-mail [sqlite]', { skip }, () => {
  let world: AppWorld;
  let smtp: TestSmtp;
  let orders: { id: number; ref: string }[];

  before(async () => {
    smtp = await startSmtp();
    // The service's queue looks for mail due every second (and at once after a send).
    world = await startWorld({ mail: { env: smtp.settings(), retryHours: 48, pollSeconds: 1 } });
    // The office's copy as Dolibarr keeps it (llx_const): a test can do without it.
    await officeCopy(true);
    orders = (await api<{ items: { id: number; ref: string }[] }>('/api/orders.php?limit=500')).items;
  });
  after(async () => {
    await world?.close();
    await smtp?.close();
  });

  async function api<T = unknown>(url: string, init: { method?: 'GET' | 'POST'; payload?: unknown } = {}): Promise<T> {
    const res = await world.ctx.app.inject({
      url,
      method: init.method ?? 'GET',
      ...(init.payload ? { payload: init.payload as object } : {}),
      headers: { authorization: `Bearer ${await apiToken(world)}` },
    });
    assert.ok(res.statusCode < 300, `${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    return (res.headers['content-type']?.toString().startsWith('application/json') ? res.json() : res.rawPayload) as T;
  }

  async function officeCopy(on: boolean): Promise<void> {
    const db = world.ctx.handle.db;
    await db.deleteFrom('const').where('name', '=', 'BERICHT_MAIL_COPY_TO').execute();
    if (on)
      await db.insertInto('const').values({ name: 'BERICHT_MAIL_COPY_TO', entity: 1, value: OFFICE, type: 'chaine', visible: 0 }).execute();
  }

  /** The `n`th order's customer gets a contact (Erika, the order's only CUSTOMER contact); a signed report of it, finalized. */
  async function finalReport(n: number): Promise<{ id: number; ref: string; pdf: Buffer }> {
    const db = world.ctx.handle.db;
    const order = orders[n]!;
    const { fk_soc } = await db.selectFrom('commande').select('fk_soc').where('rowid', '=', order.id).executeTakeFirstOrThrow();
    // The demo's own contact of the order gives way: Erika is the order's one customer contact here.
    await db.deleteFrom('element_contact').where('element_id', '=', order.id).execute();
    const made = await db
      .insertInto('socpeople')
      .values({ fk_soc, entity: 1, firstname: 'Erika', lastname: 'Sonnenschein', email: CONTACT, statut: 1, datec: toDbDateTime() })
      .executeTakeFirst();
    const type = await db
      .selectFrom('c_type_contact')
      .select('rowid')
      .where('element', '=', 'commande')
      .where('code', '=', 'CUSTOMER')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('element_contact')
      .values({
        element_id: order.id,
        fk_c_type_contact: Number(type.rowid),
        fk_socpeople: Number(made.insertId),
        statut: 4,
        datecreate: toDbDateTime(),
      })
      .execute();
    const report = await api<{ id: number }>('/api/reports.php?action=create', {
      method: 'POST',
      payload: { fk_element: order.id, title: 'Wartung Gastherme' },
    });
    await api(`/api/pages.php?action=add&bericht_id=${report.id}`, {
      method: 'POST',
      payload: { layout: 'title_only', title: 'Sichtprüfung', note: 'Keine Mängel' },
    });
    const signed = await sign(world.ctx.app, { authorization: `Bearer ${await apiToken(world)}` }, report.id, 'Erika Sonnenschein');
    assert.equal(signed.statusCode, 201, signed.body);
    const final = await api<{ ref: string }>(`/api/reports.php?id=${report.id}&action=finalize`, { method: 'POST', payload: {} });
    return { id: report.id, ref: final.ref, pdf: await api<Buffer>(`/api/pdf.php?id=${report.id}`) };
  }

  /** The final report's screen with signal: its mails listed, the proposal for a new one kept on the phone. */
  async function openReport(page: Page, id: number, heading = 'E-Mails an den Kunden'): Promise<void> {
    await page.goto(`/app/#/report/${id}`);
    await page.getByRole('heading', { name: heading }).waitFor();
    await until('the proposal kept on the phone', async () => (await cachedRead(page, `mail-proposal:${id}`)) !== undefined);
  }

  const keyOf = (id: string) => createHash('sha256').update(id, 'utf8').digest('hex');

  test('offline: the proposed contact kept, a second address added, sent; online (first answer lost) it arrives once, to both, with the final PDF; the report says "Gesendet an"', async () => {
    const report = await finalReport(0);
    const { page, context, errors } = await phone(world);
    await logIn(page);
    await page.waitForFunction(
      () =>
        (globalThis as unknown as { navigator: { serviceWorker: { controller: unknown } } }).navigator.serviceWorker.controller !== null,
    );
    await openReport(page, report.id);
    await page.getByText('Noch nicht per E-Mail gesendet.').waitFor();

    // In the cellar: no signal.
    await goOffline(context);
    await page.getByRole('button', { name: 'An Kunden senden' }).tap();
    const dialog = page.getByRole('dialog', { name: 'Bericht an Kunden senden' });
    await dialog.waitFor();
    await dialog.getByText('Ohne Netz: Die E-Mail wartet auf dem Gerät').waitFor();
    // The order's contact proposed and chosen; the customer's own address one tap away.
    const contact = dialog.getByRole('checkbox', { name: new RegExp(`Erika Sonnenschein.*${CONTACT}`) });
    await contact.waitFor();
    assert.equal(await contact.isChecked(), true, 'the first proposal is chosen');
    const customer = dialog.getByRole('checkbox', { name: /Adresse des Kunden/ });
    assert.equal(await customer.isChecked(), false, "the customer's own address is not chosen");
    await dialog.getByText(OFFICE).waitFor();
    assert.match(await dialog.getByLabel('Betreff').inputValue(), new RegExp(`Bericht ${report.ref}`));
    assert.match(await dialog.getByLabel('Text').inputValue(), /Die Unterschrift prüfen Sie hier: http/);
    await dialog.getByText(`Anhang: ${report.ref}.pdf`).waitFor();
    await dialog.getByText('Der Text enthält den Link').waitFor();

    // Typed addresses checked at once, as the service checks them.
    const field = dialog.getByLabel('Weitere Adresse');
    await field.fill('Technik <technik@sonnenschein.example>');
    await dialog.getByText('Eine E-Mail-Adresse enthält keine Leerzeichen.').waitFor();
    await field.fill('technik@sonnenschein');
    await dialog.getByRole('button', { name: 'Hinzufügen' }).tap();
    await dialog.getByText('„technik@sonnenschein“ ist keine E-Mail-Adresse.').waitFor();
    assert.equal(await field.getAttribute('aria-invalid'), 'true');
    await field.fill(SECOND);
    await dialog.getByRole('button', { name: 'Hinzufügen' }).tap();
    assert.equal(await dialog.getByRole('checkbox', { name: new RegExp(SECOND) }).isChecked(), true);
    assert.equal(await field.inputValue(), '');

    await assertAccessible(page, 'mail dialog (light)');
    await assertPhoneFriendly(page, 'mail dialog');
    await screenshot(page, 'mail-send', { small: true });
    await page.emulateMedia({ colorScheme: 'dark' });
    await assertAccessible(page, 'mail dialog (dark)');
    await page.emulateMedia({ colorScheme: 'light' });

    await dialog.getByRole('button', { name: 'Senden' }).tap();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText(`Wartet auf dem Gerät: an ${CONTACT}, ${SECOND}`).waitFor();
    const queued = await outboxPayloads(page);
    assert.deepEqual(
      queued.map((r) => r.kind),
      ['mail-send'],
      'exactly one mail-send record',
    );
    const payload = queued[0]!.payload as { bericht_id: number; to: string[]; subject?: string; text?: string };
    assert.equal(payload.bericht_id, report.id);
    assert.deepEqual(payload.to, [CONTACT, SECOND]);
    assert.match(payload.subject ?? '', new RegExp(report.ref));
    assert.equal(smtp.received.length, 0, 'nothing sent offline');

    // Signal again; the answer to the send is lost on its way back: the outbox sends it again, same key.
    // The route before the signal (as goOnline does, but with the route in place): the outbox may send the moment the phone is online again.
    await context.unrouteAll({ behavior: 'wait' });
    let lost = 0;
    await context.route(/\/api\/mails\.php\?.*action=send/, async (route) => {
      if (lost > 0) return route.continue();
      lost++;
      await route.fetch();
      await route.abort('connectionreset');
    });
    await context.setOffline(false);
    await page.evaluate('window.dispatchEvent(new Event("online"))');
    await until('the outbox empty', async () => (await outboxPayloads(page)).length === 0, 60_000);
    assert.equal(lost, 1, 'one answer was lost');
    await context.unrouteAll({ behavior: 'wait' });

    // Exactly one mail, and still one a few queue rounds later.
    const [mail] = await smtp.waitFor(1, 30_000);
    await new Promise((r) => setTimeout(r, 4_000));
    assert.equal(smtp.received.length, 1, 'the mail arrived exactly once');
    const rows = await world.ctx.handle.db
      .selectFrom('bericht_mail')
      .select(['rowid', 'state'])
      .where('fk_bericht', '=', report.id)
      .execute();
    assert.equal(rows.length, 1, 'one mail job');
    const keys = await world.ctx.handle.db
      .selectFrom('bericht_idempotency')
      .select('idem_key')
      .where('idem_key', '=', keyOf(queued[0]!.id))
      .execute();
    assert.equal(keys.length, 1, "the record's key, once");
    const to = (mail!.parsed.to && !Array.isArray(mail!.parsed.to) ? mail!.parsed.to.value : []).map((a) => a.address);
    assert.deepEqual(to, [CONTACT, SECOND]);
    assert.deepEqual(mail!.envelope.to.sort(), [CONTACT, SECOND, OFFICE].sort());
    assert.match(mail!.parsed.subject ?? '', new RegExp(report.ref));
    assert.equal(mail!.parsed.attachments.length, 1);
    assert.equal(mail!.parsed.attachments[0]!.filename, `${report.ref}.pdf`);
    assert.ok(mail!.parsed.attachments[0]!.content.equals(report.pdf), 'the attachment is the final PDF, byte for byte');

    // The report screen follows: sent, to whom, when.
    await page.getByText(new RegExp(`Gesendet an ${CONTACT}, ${SECOND} am \\d`)).waitFor({ timeout: 30_000 });
    await page.getByText(`Kopie an ${OFFICE}`).waitFor();
    await assertAccessible(page, 'report with mails (light)');
    await assertPhoneFriendly(page, 'report with mails');
    await page.getByRole('heading', { name: 'E-Mails an den Kunden' }).scrollIntoViewIfNeeded();
    await screenshot(page, 'mail-sent', { small: true });
    await page.emulateMedia({ colorScheme: 'dark' });
    await assertAccessible(page, 'report with mails (dark)');
    await page.emulateMedia({ colorScheme: 'light' });
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('a recipient the mail server refuses: the report screen says why, in words', async (t) => {
    // Without the office's copy the refused address is the only one: the mail is not sent.
    await officeCopy(false);
    t.after(() => officeCopy(true));
    const report = await finalReport(1);
    const { page, context, errors } = await phone(world);
    await logIn(page);
    await openReport(page, report.id);
    await page.getByRole('button', { name: 'An Kunden senden' }).tap();
    const dialog = page.getByRole('dialog', { name: 'Bericht an Kunden senden' });
    await dialog.getByRole('checkbox', { name: new RegExp(CONTACT) }).uncheck();
    await dialog.getByLabel('Weitere Adresse').fill('refuse@sonnenschein.example');
    await dialog.getByRole('button', { name: 'Senden' }).tap();
    await dialog.waitFor({ state: 'detached' });
    const line = page.getByText(/^Nicht gesendet: Der Mailserver hat .*refuse@sonnenschein\.example/);
    await line.waitFor({ timeout: 30_000 });
    await page.getByText('An refuse@sonnenschein.example', { exact: true }).waitFor();
    await assertAccessible(page, 'report with a refused mail (light)');
    await page.emulateMedia({ colorScheme: 'dark' });
    await assertAccessible(page, 'report with a refused mail (dark)');
    assert.deepEqual(errors, []);
    await context.close();
  });

  test("beyond the report's limit (429 MAIL_LIMIT_REACHED): the mail waits on the phone until its Retry-After, the queue says why in the app's words, and what is queued behind it goes out", async (t) => {
    const db = world.ctx.handle.db;
    await db
      .insertInto('const')
      .values({ name: 'BERICHT_MAIL_MAX_PER_REPORT_DAY', entity: 1, value: '1', type: 'chaine', visible: 0 })
      .execute();
    t.after(() => db.deleteFrom('const').where('name', '=', 'BERICHT_MAIL_MAX_PER_REPORT_DAY').execute());
    const report = await finalReport(3);
    // The one mail of the day, sent before from elsewhere.
    await api('/api/mails.php?action=send', { method: 'POST', payload: { bericht_id: report.id, to: [CONTACT] } });
    const { page, context, errors } = await phone(world);
    let sends = 0;
    page.on('request', (request) => {
      if (/\/api\/mails\.php\?.*action=send/.test(request.url())) sends++;
    });
    await logIn(page);
    await openReport(page, report.id);
    await page.getByRole('button', { name: 'An Kunden senden' }).tap();
    const dialog = page.getByRole('dialog', { name: 'Bericht an Kunden senden' });
    await dialog.getByRole('checkbox', { name: new RegExp(CONTACT) }).waitFor();
    await dialog.getByRole('button', { name: 'Senden' }).tap();
    await dialog.waitFor({ state: 'detached' });
    await until('the send kept on the phone', async () => (await outboxPayloads(page)).some((r) => r.kind === 'mail-send'));
    await page.goto('/app/#/queue');
    await page
      .getByText(/Neuer Versuch um .*\(Zu viele E-Mails in kurzer Zeit\. Die E-Mail wartet und wird später gesendet\.\)/)
      .waitFor({ timeout: 30_000 });
    await assertAccessible(page, 'queue with a mail beyond the limit');
    // The mail waits for its Retry-After (hours here), but what the technician does meanwhile goes out
    // (nothing refers to a mail record): a time tap queued behind it reaches the service.
    await page.goto(`/app/#/order/${orders[3]!.id}`);
    await page.getByRole('heading', { name: 'Zeit vor Ort' }).waitFor();
    await page.getByRole('button', { name: 'Angekommen' }).tap();
    await until(
      'the time tap behind the mail at the service',
      async () => {
        const times = await api<{ items: unknown[] }>(`/api/times.php?element_type=commande&fk_element=${orders[3]!.id}`);
        return times.items.length === 1;
      },
      30_000,
    );
    const left = await outboxPayloads(page);
    assert.deepEqual(
      left.map((r) => r.kind),
      ['mail-send'],
      'only the mail waits on the phone',
    );
    await new Promise((r) => setTimeout(r, 3_000));
    assert.equal(sends, 1, 'the mail is not tried again before its Retry-After');
    const mails = await db.selectFrom('bericht_mail').select('rowid').where('fk_bericht', '=', report.id).execute();
    assert.equal(mails.length, 1, 'nothing queued beyond the limit');
    assert.deepEqual(errors, []);
    await context.close();
  });

  test("in English every text of the dialog and of the report's mails is English", async () => {
    const report = await finalReport(2);
    const { page, context, errors } = await phone(world, { locale: 'en-GB' });
    await logInEnglish(page);
    await openReport(page, report.id, 'Emails to the customer');
    await page.getByText('Not sent by email yet.').waitFor();
    await page.getByRole('button', { name: 'Send to customer' }).tap();
    const dialog = page.getByRole('dialog', { name: 'Send the report to the customer' });
    await dialog.getByRole('checkbox', { name: /Contact for the order/ }).waitFor();
    await dialog.getByLabel('Another address').fill('refuse@sonnenschein');
    await dialog.getByRole('button', { name: 'Add' }).tap();
    await dialog.getByText('“refuse@sonnenschein” is not an email address.').waitFor();
    await dialog.getByLabel('Another address').fill('refuse@sonnenschein.example');
    await dialog.getByRole('button', { name: 'Add' }).tap();
    const dialogText = await dialog.innerText();
    assertEnglish(dialogText, 'the dialog');
    await dialog.getByRole('button', { name: 'Send' }).tap();
    await dialog.waitFor({ state: 'detached' });
    // The contact accepted, the other refused: sent, and the refusal named.
    await page.getByText(new RegExp(`^Sent to ${CONTACT}, refuse@sonnenschein\\.example on `)).waitFor({ timeout: 30_000 });
    await page.getByText('Not every recipient was accepted.').waitFor();
    const list = await page.getByRole('list', { name: 'Emails to the customer' }).innerText();
    assertEnglish(list, 'the mails');
    await assertAccessible(page, 'report with mails (English)');
    assert.deepEqual(errors, []);
    await context.close();
  });
});

/** No German word of the app's mail texts in `text` (the customer's own words, names and addresses aside). */
function assertEnglish(text: string, what: string): void {
  const german =
    /\b(Empfänger|Senden|Hinzufügen|Anhang|Kopie|Betreff|Gesendet|gesendet|Nicht|Wartet|Adresse|Kunden|keine|wird|Abbrechen|Ansprechpartner)\b/;
  assert.doesNotMatch(text, german, `${what} has German: ${text}`);
}
