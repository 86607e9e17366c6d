/**
 * Work the office gives a technician the Dolibarr way, on every database: an order (invoice,
 * proposal) made by an office user is the technician's once he is its internal contact of a type
 * in ASSIGNED_CONTACT_TYPES, or owns or attends an agenda event linked to it. Then it is in his
 * list and every endpoint of it answers (detail, attachments, a photo, its reports, a new report,
 * material lines, time on site, the customer); before, and for any other user, each is 404 as for
 * an order that does not exist. What does not assign: an external contact, a contact of another
 * type, an inactive contact, an automatic agenda entry, an event of another entity, and anything
 * once the setting turns it off. The `fk_user_*` rule still holds beside it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { loadConfig } from '../../src/config.js';
import { assertError } from '../helpers/assertions.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { type Caller, SEEN_ALL, SEEN_NONE, testClient } from '../helpers/client.js';
import { testDialects } from '../helpers/databases.js';

const photo = () =>
  sharp({ create: { width: 64, height: 48, channels: 3, background: '#3a6ea5' } })
    .jpeg()
    .toBuffer();

for (const dialect of testDialects()) {
  describe(`assigned work [${dialect}]`, () => {
    let ctx: TestContext;
    let office: Caller;
    before(async () => {
      ctx = await createTestContext(dialect);
      office = await caller();
    });
    after(async () => ctx?.close());

    const { caller, api, json, newReport, uploadPhoto, seen } = testClient(() => ctx);

    /** An order the office made, with a photo and a report of the office's on it. */
    async function officeOrder() {
      const order = await ctx.make.order({ author: office.id });
      const uploaded = await uploadPhoto(office, order.id, 'Anlage.jpg', await photo());
      const report: { id: number } = await newReport(office, order.id);
      return { ...order, photo: String(uploaded.name), report: report.id };
    }

    test('an internal contact of a listed type gives the order: list, detail, photos, reports, materials, times, customer', async () => {
      const tech = await caller();
      const other = await caller();
      const order = await officeOrder();
      assert.deepEqual(await seen(tech, order), SEEN_NONE, 'not assigned yet');

      await ctx.make.internalContact({ type: 'commande', element: order.id, user: tech.id, code: 'TECHNICIAN' });
      assert.deepEqual(await seen(tech, order), SEEN_ALL);
      assert.deepEqual(await seen(other, order), SEEN_NONE, 'someone else still sees nothing');

      // He works on it: a report of his own, a material line, an arrival.
      const mine: { id: number } = await newReport(tech, order.id);
      assert.ok(mine.id > 0);
      await json(
        'POST',
        '/api/materials.php',
        tech,
        { element_type: 'commande', fk_element: order.id, label: 'Dichtung', qty: 2 },
        { status: 201 },
      );
      await json('POST', '/api/times.php?action=arrive', tech, { element_type: 'commande', fk_element: order.id });
      // The other user may not write on it either.
      assertError(await api('POST', '/api/reports.php?action=create', other, { fk_element: order.id, title: 'x' }), 404, 'ORDER_NOT_FOUND');
    });

    test("Dolibarr's own SALESREPFOLL (Responsable suivi) gives the order too; so does it on invoices and proposals", async () => {
      const tech = await caller();
      const order = await officeOrder();
      await ctx.make.internalContact({ type: 'commande', element: order.id, user: tech.id, code: 'SALESREPFOLL' });
      assert.deepEqual(await seen(tech, order), SEEN_ALL);

      const invoice = await ctx.make.invoice({ author: office.id });
      const proposal = await ctx.make.proposal({ author: office.id });
      const materials = (type: string, id: number) => api('GET', `/api/materials.php?element_type=${type}&fk_element=${id}`, tech);
      assert.equal((await materials('facture', invoice.id)).statusCode, 404);
      assert.equal((await materials('propal', proposal.id)).statusCode, 404);
      await ctx.make.internalContact({ type: 'facture', element: invoice.id, user: tech.id, code: 'SALESREPFOLL' });
      await ctx.make.internalContact({ type: 'propal', element: proposal.id, user: tech.id, code: 'SALESREPFOLL' });
      assert.equal((await materials('facture', invoice.id)).statusCode, 200);
      assert.equal((await materials('propal', proposal.id)).statusCode, 200);
    });

    test('what gives nothing: an inactive contact, an external contact, a contact on another object type, another user', async () => {
      const tech = await caller();
      const order = await officeOrder();
      await ctx.make.internalContact({ type: 'commande', element: order.id, user: tech.id, code: 'TECHNICIAN', statut: 5 });
      // An external contact row naming the same number (a socpeople id, not a user).
      await ctx.make.internalContact({ type: 'commande', element: order.id, user: tech.id, code: 'CUSTOMER', source: 'external' });
      // The same id as an invoice's contact does not give the order with that id.
      await ctx.make.internalContact({ type: 'facture', element: order.id, user: tech.id, code: 'SALESREPFOLL' });
      assert.deepEqual(await seen(tech, order), SEEN_NONE);
    });

    test('an agenda event linked to the order gives it to its owner and to each attendee, not to others', async () => {
      const owner = await caller();
      const attendee = await caller();
      const other = await caller();
      const order = await officeOrder();
      await ctx.make.agendaEvent({ type: 'commande', element: order.id, owner: owner.id, attendees: [attendee.id] });
      assert.deepEqual(await seen(owner, order), SEEN_ALL);
      assert.deepEqual(await seen(attendee, order), SEEN_ALL);
      assert.deepEqual(await seen(other, order), SEEN_NONE);
    });

    test('the owner counts without a resource row, an attendee without being the owner', async () => {
      const owner = await caller();
      const attendee = await caller();
      const order = await officeOrder();
      await ctx.make.agendaEvent({ type: 'commande', element: order.id, owner: owner.id, ownerAsResource: false });
      const second = await officeOrder();
      await ctx.make.agendaEvent({ type: 'commande', element: second.id, owner: null, attendees: [attendee.id] });
      assert.equal((await seen(owner, order)).detail, 200);
      assert.equal((await seen(owner, second)).detail, 404);
      assert.equal((await seen(attendee, second)).detail, 200);
      assert.equal((await seen(attendee, order)).detail, 404);
    });

    test("an automatic agenda entry (AC_OTH_AUTO, Dolibarr's and this service's) and an event of another entity give nothing", async () => {
      const tech = await caller();
      const order = await officeOrder();
      await ctx.make.agendaEvent({ type: 'commande', element: order.id, owner: tech.id, code: 'AC_OTH_AUTO' });
      await ctx.make.agendaEvent({ type: 'commande', element: order.id, owner: tech.id, entity: ctx.config.entity + 1 });
      // An event linked to the invoice with the order's id.
      await ctx.make.agendaEvent({ type: 'facture', element: order.id, owner: tech.id });
      assert.deepEqual(await seen(tech, order), SEEN_NONE);
    });

    test('the fk_user_* rule holds beside it: the author, validator and last editor see their orders', async () => {
      const tech = await caller();
      const authored = await ctx.make.order({ author: tech.id });
      const validated = await ctx.make.order({ author: office.id, valid: tech.id });
      const changed = await ctx.make.order({ author: office.id, modif: tech.id });
      for (const order of [authored, validated, changed]) {
        assert.equal((await api('GET', `/api/orders.php?id=${order.id}`, tech)).statusCode, 200);
      }
    });

    test('an external user sees an assigned order only when it is of his own third party', async () => {
      const order = await officeOrder();
      const own = await ctx.make.order({ author: office.id });
      const external = await ctx.make.user({ rights: ['read'] });
      await ctx.handle.db.updateTable('user').set({ fk_soc: own.customer }).where('rowid', '=', external.id).execute();
      const token = await ctx.make.token(external);
      await ctx.make.internalContact({ type: 'commande', element: order.id, user: external.id, code: 'TECHNICIAN' });
      await ctx.make.internalContact({ type: 'commande', element: own.id, user: external.id, code: 'TECHNICIAN' });
      assertError(await api('GET', `/api/orders.php?id=${order.id}`, token), 404, 'ORDER_NOT_FOUND');
      assert.equal((await api('GET', `/api/orders.php?id=${own.id}`, token)).statusCode, 200);
    });

    test("a contact type switched off in Dolibarr's dictionary gives nothing; an event written with the element's own name gives the order", async () => {
      const tech = await caller();
      const order = await officeOrder();
      await ctx.make.internalContact({ type: 'commande', element: order.id, user: tech.id, code: 'SALESREPFOLL' });
      const follower = () =>
        ctx.handle.db
          .updateTable('c_type_contact')
          .where('element', '=', 'commande')
          .where('source', '=', 'internal')
          .where('code', '=', 'SALESREPFOLL');
      await follower().set({ active: 0 }).execute();
      try {
        assert.equal((await seen(tech, order)).detail, 404);
      } finally {
        await follower().set({ active: 1 }).execute();
      }
      assert.equal((await seen(tech, order)).detail, 200);

      const other = await officeOrder();
      const event = await ctx.make.agendaEvent({ type: 'commande', element: other.id, owner: tech.id });
      await ctx.handle.db.updateTable('actioncomm').set({ elementtype: 'commande' }).where('id', '=', event).execute();
      assert.equal((await seen(tech, other)).detail, 200);
    });
  });

  describe(`assigned work, settings [${dialect}]`, () => {
    test('ASSIGNED_CONTACT_TYPES=none and ASSIGNED_BY_AGENDA=false give nothing; another type list gives what it names', async () => {
      const ctx = await createTestContext(dialect, { assignedContactCodes: ['SALESREPFOLL'], assignedByAgenda: false });
      try {
        const { caller, api } = testClient(() => ctx);
        const office = await caller();
        const tech = await caller();
        const byTechnician = await ctx.make.order({ author: office.id });
        const byFollower = await ctx.make.order({ author: office.id });
        const byEvent = await ctx.make.order({ author: office.id });
        await ctx.make.internalContact({ type: 'commande', element: byTechnician.id, user: tech.id, code: 'TECHNICIAN' });
        await ctx.make.internalContact({ type: 'commande', element: byFollower.id, user: tech.id, code: 'SALESREPFOLL' });
        await ctx.make.agendaEvent({ type: 'commande', element: byEvent.id, owner: tech.id });
        const status = async (id: number) => (await api('GET', `/api/orders.php?id=${id}`, tech)).statusCode;
        assert.deepEqual([await status(byTechnician.id), await status(byFollower.id), await status(byEvent.id)], [404, 200, 404]);
      } finally {
        await ctx.close();
      }
    });
  });
}

describe('assigned work settings', () => {
  const env = (extra: Record<string, string>) => ({ DATABASE_URL: 'sqlite::memory:', INSTANCE_UNIQUE_ID: 'x'.repeat(32), ...extra });
  test('the defaults: SALESREPFOLL, TECHNICIAN, INTERREPFOLL and INTERVENING, and the agenda', () => {
    const config = loadConfig(env({}));
    assert.deepEqual(config.assignedContactCodes, ['SALESREPFOLL', 'TECHNICIAN', 'INTERREPFOLL', 'INTERVENING']);
    assert.equal(config.assignedByAgenda, true);
  });
  test('none, a list with spaces and repeats, false', () => {
    assert.deepEqual(loadConfig(env({ ASSIGNED_CONTACT_TYPES: 'none' })).assignedContactCodes, []);
    assert.deepEqual(loadConfig(env({ ASSIGNED_CONTACT_TYPES: ' INTERVENING , TECHNICIAN,INTERVENING' })).assignedContactCodes, [
      'INTERVENING',
      'TECHNICIAN',
    ]);
    assert.equal(loadConfig(env({ ASSIGNED_BY_AGENDA: 'false' })).assignedByAgenda, false);
    assert.equal(loadConfig(env({ ASSIGNED_BY_AGENDA: '0' })).assignedByAgenda, false);
  });
  test('a code with a quote or an unknown boolean stops the start with the setting named', () => {
    assert.throws(() => loadConfig(env({ ASSIGNED_CONTACT_TYPES: "TECHNICIAN,X' or 1=1" })), /ASSIGNED_CONTACT_TYPES/);
    assert.throws(() => loadConfig(env({ ASSIGNED_BY_AGENDA: 'maybe' })), /ASSIGNED_BY_AGENDA must be true or false/);
  });
});
