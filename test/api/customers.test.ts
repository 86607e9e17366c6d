/**
 * GET /api/customers.php (endpoints 20 and 21): who sees which customer, the search, paging,
 * report counts, and the detail's lists with their limits and order.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { toDbDateTime } from '../../src/db/dialect.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';
import { assertError } from '../helpers/assertions.js';

interface ListItem {
  id: number;
  name: string | null;
  name_alias: string | null;
  code_client: string | null;
  town: string | null;
  zip: string | null;
  email: string | null;
  phone: string | null;
  status: number;
  report_count: number;
}

interface Detail {
  id: number;
  name: string;
  orders: { id: number; ref: string; ref_client: string | null; status: number; date: number | null }[];
  invoices: {
    id: number;
    ref: string;
    ref_client: string | null;
    type: number;
    status: number;
    paid: boolean;
    date: number | null;
    total_ttc: number | null;
  }[];
  reports: {
    id: number;
    ref: string;
    title: string;
    status: 'draft' | 'final';
    parent_ref: string;
    element_type: string;
    datec: number | null;
  }[];
  [key: string]: unknown;
}

const tag = () => randomBytes(4).toString('hex');
const DAY = 86_400;
/** Midnight UTC of a day, some way back: the dates orders and invoices are stored with. */
const BASE_DAY = Math.floor(Date.UTC(2024, 5, 1) / 1000);

for (const dialect of testDialects()) {
  describe(`customers [${dialect}]`, () => {
    let ctx: TestContext;
    let admin: { id: number; token: string };
    let tech: { id: number; token: string };
    let other: { id: number; token: string };

    async function newUser(isAdmin = false) {
      const u = await ctx.make.user({ admin: isAdmin, rights: ['read'] });
      return { id: u.id, token: await ctx.make.token(u) };
    }

    function get(token: string | undefined, query: string): Promise<LightMyRequestResponse> {
      return ctx.app.inject({
        method: 'GET',
        url: `/api/customers.php${query ? `?${query}` : ''}`,
        headers: token ? { authorization: `Bearer ${token}` } : {},
      });
    }

    async function list(token: string, params: Record<string, string | number>): Promise<{ items: ListItem[]; total: number }> {
      const res = await get(
        token,
        new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString(),
      );
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    }

    async function detail(token: string, id: number): Promise<Detail> {
      const res = await get(token, `id=${id}`);
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    }

    before(async () => {
      ctx = await createTestContext(dialect);
      admin = await newUser(true);
      tech = await newUser();
      other = await newUser();
    });
    after(async () => ctx?.close());

    test('no token is 401, a bad id or paging is 400, an action is 400', async () => {
      assertError(await get(undefined, ''), 401, 'AUTH_TOKEN_MISSING');
      assertError(await get(undefined, 'id=1'), 401, 'AUTH_TOKEN_MISSING');
      assertError(await get(tech.token, 'id=abc'), 400, 'VALIDATION_FAILED');
      assertError(await get(tech.token, 'id=0'), 400, 'VALIDATION_FAILED');
      assertError(await get(tech.token, 'id=-3'), 400, 'VALIDATION_FAILED');
      assertError(await get(tech.token, 'id=1.5'), 400, 'VALIDATION_FAILED');
      assertError(await get(tech.token, 'limit=501'), 400, 'VALIDATION_FAILED');
      assertError(await get(tech.token, 'offset=-1'), 400, 'VALIDATION_FAILED');
      assertError(await get(tech.token, `q=${'x'.repeat(101)}`), 400, 'VALIDATION_FAILED');
      assertError(await get(tech.token, 'action=delete'), 400, 'ACTION_UNKNOWN');
      const ok = await get(tech.token, `q=${'x'.repeat(100)}`);
      assert.equal(ok.statusCode, 200, ok.body);
      assert.deepEqual(ok.json(), { items: [], total: 0 });
    });

    test('many full pages at once are all answered: a page never waits for a second connection while it holds one', async () => {
      // Full pages (limit 1) make the list count; on PostgreSQL the page and its snapshot share one
      // connection, and a page run on another one would wait for the pool behind the others.
      const results = await Promise.all(Array.from({ length: 30 }, () => get(admin.token, 'limit=1')));
      assert.deepEqual([...new Set(results.map((r) => r.statusCode))], [200]);
    });

    test('an unknown customer is 404', async () => {
      assertError(await get(admin.token, 'id=999999'), 404, 'CUSTOMER_NOT_FOUND');
    });

    test('a supplier-only third party is never listed and 404 by id, even for admin', async () => {
      const t = tag();
      const supplier = await ctx.make.thirdParty({ name: `Lieferant ${t}`, client: 0, fournisseur: 1 });
      await ctx.make.order({ customer: supplier.id, author: tech.id });
      await ctx.make.invoice({ customer: supplier.id, author: tech.id });
      for (const u of [admin, tech]) {
        assert.deepEqual(await list(u.token, { q: t }), { items: [], total: 0 });
        assertError(await get(u.token, `id=${supplier.id}`), 404, 'CUSTOMER_NOT_FOUND');
      }
    });

    test('prospects (client 2) and customer-prospects (client 3) are customers', async () => {
      const t = tag();
      const c1 = await ctx.make.thirdParty({ name: `A ${t}`, client: 1 });
      const c2 = await ctx.make.thirdParty({ name: `B ${t}`, client: 2 });
      const c3 = await ctx.make.thirdParty({ name: `C ${t}`, client: 3, fournisseur: 1 });
      for (const c of [c1, c2, c3]) await ctx.make.proposal({ customer: c.id, author: tech.id });
      for (const u of [admin, tech]) {
        const res = await list(u.token, { q: t });
        assert.deepEqual(
          res.items.map((i) => i.id),
          [c1.id, c2.id, c3.id],
        );
        assert.equal(res.total, 3);
        for (const c of [c2, c3]) assert.equal((await detail(u.token, c.id)).id, c.id);
      }
    });

    test('a user sees the customers of their orders, invoices and proposals; admin sees all', async () => {
      const t = tag();
      const viaOrder = await ctx.make.thirdParty({ name: `V1 ${t}` });
      const viaInvoice = await ctx.make.thirdParty({ name: `V2 ${t}` });
      const viaProposal = await ctx.make.thirdParty({ name: `V3 ${t}` });
      const othersOnly = await ctx.make.thirdParty({ name: `V4 ${t}` });
      const nothing = await ctx.make.thirdParty({ name: `V5 ${t}` });
      await ctx.make.order({ customer: viaOrder.id, author: tech.id });
      await ctx.make.invoice({ customer: viaInvoice.id, valid: tech.id });
      await ctx.make.proposal({ customer: viaProposal.id, modif: tech.id });
      await ctx.make.order({ customer: othersOnly.id, author: other.id });
      // An object of the tech's in another entity makes no customer visible.
      await ctx.make.order({ customer: nothing.id, author: tech.id, entity: 2 });

      const mine = await list(tech.token, { q: t });
      assert.deepEqual(
        mine.items.map((i) => i.id),
        [viaOrder.id, viaInvoice.id, viaProposal.id],
      );
      assert.equal(mine.total, 3);
      for (const c of [viaOrder, viaInvoice, viaProposal]) assert.equal((await detail(tech.token, c.id)).id, c.id);
      for (const c of [othersOnly, nothing]) assertError(await get(tech.token, `id=${c.id}`), 404, 'CUSTOMER_NOT_FOUND');

      assert.deepEqual(
        (await list(other.token, { q: t })).items.map((i) => i.id),
        [othersOnly.id],
      );
      assertError(await get(other.token, `id=${viaOrder.id}`), 404, 'CUSTOMER_NOT_FOUND');

      const all = await list(admin.token, { q: t });
      assert.deepEqual(
        all.items.map((i) => i.id),
        [viaOrder.id, viaInvoice.id, viaProposal.id, othersOnly.id, nothing.id],
      );
      assert.equal(all.total, 5);
      assert.equal((await detail(admin.token, nothing.id)).id, nothing.id);
    });

    test('customers of another entity are invisible, even for admin', async () => {
      const t = tag();
      const foreign = await ctx.make.thirdParty({ name: `Fremd ${t}`, entity: 2 });
      await ctx.make.order({ customer: foreign.id, author: tech.id });
      await ctx.make.order({ customer: foreign.id, author: tech.id, entity: 2 });
      for (const u of [admin, tech]) {
        assert.deepEqual(await list(u.token, { q: t }), { items: [], total: 0 });
        assertError(await get(u.token, `id=${foreign.id}`), 404, 'CUSTOMER_NOT_FOUND');
      }
    });

    test('q searches name, alias, customer code, town and e-mail, case-insensitively', async () => {
      const t = tag();
      const c = await ctx.make.thirdParty({
        name: `Name${t}n Gmbh`,
        alias: `Alias${t}a`,
        code: `CU${t}c`,
        town: `Town${t}t`,
        email: `mail${t}e@example.org`,
      });
      const decoy = await ctx.make.thirdParty({ name: `Decoy ${t}` });
      for (const id of [c.id, decoy.id]) await ctx.make.order({ customer: id, author: tech.id });
      for (const q of [`${t}n`, `${t}a`, `${t}c`, `${t}t`, `${t}e`]) {
        for (const variant of [q, q.toUpperCase()]) {
          const res = await list(tech.token, { q: variant });
          assert.deepEqual(
            res.items.map((i) => i.id),
            [c.id],
            `q=${variant}`,
          );
          assert.equal(res.total, 1);
        }
      }
      const item = (await list(tech.token, { q: `NAME${t}` })).items[0]!;
      assert.deepEqual(Object.keys(item).sort(), [
        'code_client',
        'email',
        'id',
        'name',
        'name_alias',
        'phone',
        'report_count',
        'status',
        'town',
        'zip',
      ]);
      assert.equal(item.name, `Name${t}n Gmbh`);
      assert.equal(item.name_alias, `Alias${t}a`);
      assert.equal(item.code_client, `CU${t}c`);
      assert.equal(item.town, `Town${t}t`);
      assert.equal(item.email, `mail${t}e@example.org`);
      assert.equal(item.status, 1);
      assert.equal(item.report_count, 0);
      // Blanks around q are ignored; an empty q lists everything.
      assert.deepEqual(
        (await list(tech.token, { q: `  ${t}c  ` })).items.map((i) => i.id),
        [c.id],
      );
      assert.ok((await list(admin.token, { q: '' })).total >= 2);
    });

    test("'%' and '_' in q match only themselves", async () => {
      const t = tag();
      const percent = await ctx.make.thirdParty({ name: `P${t} 100% sicher` });
      await ctx.make.thirdParty({ name: `P${t} 1000 sicher` });
      const underscore = await ctx.make.thirdParty({ name: `U${t} a_b` });
      await ctx.make.thirdParty({ name: `U${t} axb` });
      const bang = await ctx.make.thirdParty({ name: `B${t} !x` });
      await ctx.make.thirdParty({ name: `B${t} x` });
      assert.deepEqual(
        (await list(admin.token, { q: `P${t} 100%` })).items.map((i) => i.id),
        [percent.id],
      );
      assert.deepEqual(
        (await list(admin.token, { q: `U${t} a_b` })).items.map((i) => i.id),
        [underscore.id],
      );
      assert.deepEqual(
        (await list(admin.token, { q: `B${t} !x` })).items.map((i) => i.id),
        [bang.id],
      );
      assert.deepEqual((await list(admin.token, { q: `%${t}` })).items, []);
    });

    test('the list is ordered by name and paged; total counts every match', async () => {
      const t = tag();
      const names = ['delta', 'Alpha', 'charlie', 'Echo', 'bravo'];
      const made = new Map<string, number>();
      for (const n of names) made.set(n, (await ctx.make.thirdParty({ name: `${n} ${t}` })).id);
      const expected = ['Alpha', 'bravo', 'charlie', 'delta', 'Echo'].map((n) => made.get(n));
      const seen: number[] = [];
      for (const offset of [0, 2, 4]) {
        const page = await list(admin.token, { q: t, limit: 2, offset });
        assert.equal(page.total, 5);
        assert.equal(page.items.length, offset === 4 ? 1 : 2);
        seen.push(...page.items.map((i) => i.id));
      }
      assert.deepEqual(seen, expected);
      const past = await list(admin.token, { q: t, limit: 2, offset: 10 });
      assert.deepEqual(past, { items: [], total: 5 });
      // The default page is 50.
      for (let i = 0; i < 51; i++) await ctx.make.thirdParty({ name: `Viele ${t} ${String(i).padStart(2, '0')}` });
      const full = await list(admin.token, { q: `Viele ${t}` });
      assert.equal(full.items.length, 50);
      assert.equal(full.total, 51);
    });

    test('report_count counts visible reports over orders and invoices, no templates', async () => {
      const t = tag();
      const customer = await ctx.make.thirdParty({ name: `Zaehl ${t}` });
      const elsewhere = await ctx.make.thirdParty({ name: `Woanders ${t}` });
      const order = await ctx.make.order({ customer: customer.id, author: tech.id });
      const invoice = await ctx.make.invoice({ customer: customer.id, author: tech.id });
      const proposal = await ctx.make.proposal({ customer: customer.id, author: tech.id });
      const othersOrder = await ctx.make.order({ customer: customer.id, author: other.id });
      const elsewhereOrder = await ctx.make.order({ customer: elsewhere.id, author: tech.id });

      await ctx.make.report({ creator: tech.id, elementType: 'commande', element: order.id });
      await ctx.make.report({ creator: other.id, elementType: 'commande', element: order.id }); // tech sees the order
      await ctx.make.report({ creator: tech.id, elementType: 'facture', element: invoice.id, status: 1 });
      await ctx.make.report({ creator: tech.id, elementType: 'commande', element: order.id, isTemplate: true });
      await ctx.make.report({ creator: tech.id, elementType: 'propal', element: proposal.id }); // not over orders/invoices
      await ctx.make.report({ creator: other.id, elementType: 'commande', element: othersOrder.id }); // tech may not see it
      await ctx.make.report({ creator: tech.id, elementType: 'commande', element: othersOrder.id }); // tech's own: visible
      await ctx.make.report({ creator: tech.id, elementType: 'commande', element: elsewhereOrder.id });
      await ctx.make.report({ creator: tech.id, elementType: 'commande', element: order.id, entity: 2 });
      // An element_type that disagrees with the parent's table counts nothing.
      await ctx.make.report({ creator: tech.id, elementType: 'facture', element: order.id + 100_000 });

      const count = async (token: string) => (await list(token, { q: `Zaehl ${t}` })).items[0]!.report_count;
      assert.equal(await count(tech.token), 4);
      assert.equal(await count(admin.token), 5);
      assert.equal(await count(other.token), 3); // other's two and tech's on other's order
      assert.equal((await list(tech.token, { q: `Woanders ${t}` })).items[0]!.report_count, 1);
    });

    test('detail: master data, the last 50 orders, 50 invoices and 100 reports, newest first', async () => {
      const t = tag();
      const customer = await ctx.make.thirdParty({
        name: `Gross ${t}`,
        alias: `GA ${t}`,
        town: 'Köln',
        email: `g${t}@example.org`,
        code: `CU-${t}`,
      });
      await ctx.handle.db
        .updateTable('societe')
        .set({
          address: 'Hauptstr. 1',
          zip: '50667',
          phone: '0221 123',
          url: 'https://example.org',
          tva_intra: 'DE123456789',
          note_public: 'Hinterhof',
        })
        .where('rowid', '=', customer.id)
        .execute();

      // Dates in an order other than the ids', so the order by date shows.
      const dayOf = (i: number) => BASE_DAY + ((i * 7) % 55) * DAY;
      const orders: { id: number; ref: string; date: number }[] = [];
      const invoices: { id: number; ref: string; date: number }[] = [];
      for (let i = 0; i < 55; i++) {
        const o = await ctx.make.order({ customer: customer.id, author: tech.id, date: dayOf(i), refClient: `RC${i}` });
        orders.push({ id: o.id, ref: o.ref, date: dayOf(i) });
        const f = await ctx.make.invoice({ customer: customer.id, valid: tech.id, date: dayOf(i) });
        invoices.push({ id: f.id, ref: f.ref, date: dayOf(i) });
      }
      // Two on the same day: the higher id first.
      const sameDay = await ctx.make.order({ customer: customer.id, author: tech.id, date: dayOf(1) });
      orders.push({ id: sameDay.id, ref: sameDay.ref, date: dayOf(1) });
      await ctx.handle.db.updateTable('facture').set({ paye: 1, fk_statut: 2, type: 0 }).where('rowid', '=', invoices[1]!.id).execute();

      const reports: { id: number; ref: string; datec: number; parent: string; type: string }[] = [];
      for (let i = 0; i < 105; i++) {
        const onOrder = i % 2 === 0;
        const parent = onOrder ? orders[i % 55]! : invoices[i % 55]!;
        const r = await ctx.make.report({
          creator: tech.id,
          elementType: onOrder ? 'commande' : 'facture',
          element: parent.id,
          status: i % 3 === 0 ? 1 : 0,
        });
        const datec = BASE_DAY + ((i * 11) % 105) * 3600;
        await ctx.handle.db
          .updateTable('bericht')
          .set({ datec: toDbDateTime(datec) })
          .where('rowid', '=', r.id)
          .execute();
        reports.push({ id: r.id, ref: r.ref, datec, parent: parent.ref, type: onOrder ? 'commande' : 'facture' });
      }
      // Newer than all, but a template: left out.
      const template = await ctx.make.report({ creator: tech.id, elementType: 'commande', element: orders[0]!.id, isTemplate: true });
      await ctx.handle.db
        .updateTable('bericht')
        .set({ datec: toDbDateTime(BASE_DAY + 400 * DAY) })
        .where('rowid', '=', template.id)
        .execute();

      const byDateThenId =
        <T extends { id: number }>(key: (x: T) => number) =>
        (a: T, b: T) =>
          key(b) - key(a) || b.id - a.id;
      const d = await detail(tech.token, customer.id);
      assert.equal(d.id, customer.id);
      assert.equal(d.name, `Gross ${t}`);
      assert.deepEqual(
        {
          name_alias: d.name_alias,
          code_client: d.code_client,
          address: d.address,
          zip: d.zip,
          town: d.town,
          phone: d.phone,
          email: d.email,
          url: d.url,
          tva_intra: d.tva_intra,
          status: d.status,
          note_public: d.note_public,
        },
        {
          name_alias: `GA ${t}`,
          code_client: `CU-${t}`,
          address: 'Hauptstr. 1',
          zip: '50667',
          town: 'Köln',
          phone: '0221 123',
          email: `g${t}@example.org`,
          url: 'https://example.org',
          tva_intra: 'DE123456789',
          status: 1,
          note_public: 'Hinterhof',
        },
      );

      assert.equal(d.orders.length, 50);
      assert.deepEqual(
        d.orders.map((o) => o.id),
        [...orders]
          .sort(byDateThenId((o) => o.date))
          .slice(0, 50)
          .map((o) => o.id),
      );
      const newestOrder = [...orders].sort(byDateThenId((o) => o.date))[0]!;
      assert.deepEqual(d.orders[0], {
        id: newestOrder.id,
        ref: newestOrder.ref,
        ref_client: `RC${orders.indexOf(newestOrder)}`,
        status: 1,
        date: newestOrder.date,
      });
      const sameDayIndex = d.orders.findIndex((o) => o.id === sameDay.id);
      assert.equal(d.orders[sameDayIndex + 1]!.id, orders[1]!.id);

      assert.equal(d.invoices.length, 50);
      assert.deepEqual(
        d.invoices.map((f) => f.id),
        [...invoices]
          .sort(byDateThenId((f) => f.date))
          .slice(0, 50)
          .map((f) => f.id),
      );
      const paid = d.invoices.find((f) => f.id === invoices[1]!.id)!;
      assert.deepEqual(paid, {
        id: invoices[1]!.id,
        ref: invoices[1]!.ref,
        ref_client: paid.ref_client,
        type: 0,
        status: 2,
        paid: true,
        date: invoices[1]!.date,
        total_ttc: 119,
      });
      assert.equal(d.invoices.find((f) => f.id !== invoices[1]!.id)!.paid, false);

      assert.equal(d.reports.length, 100);
      const expectedReports = [...reports].sort(byDateThenId((r) => r.datec)).slice(0, 100);
      assert.deepEqual(
        d.reports.map((r) => r.id),
        expectedReports.map((r) => r.id),
      );
      for (const [i, r] of d.reports.entries()) {
        const want = expectedReports[i]!;
        assert.deepEqual(r, {
          id: want.id,
          ref: want.ref,
          title: `Bericht ${want.ref}`,
          status: reports.indexOf(want) % 3 === 0 ? 'final' : 'draft',
          parent_ref: want.parent,
          element_type: want.type,
          datec: want.datec,
        });
      }
      assert.ok(!d.reports.some((r) => r.id === template.id));
    });

    test("detail lists leave out what the caller may not see, such as another user's orders", async () => {
      const t = tag();
      const customer = await ctx.make.thirdParty({ name: `Geteilt ${t}` });
      const mine = await ctx.make.order({ customer: customer.id, author: tech.id, date: BASE_DAY });
      const theirs = await ctx.make.order({ customer: customer.id, author: other.id, date: BASE_DAY + DAY });
      const theirInvoice = await ctx.make.invoice({ customer: customer.id, author: other.id });
      const myInvoice = await ctx.make.invoice({ customer: customer.id, author: tech.id });
      const foreignEntity = await ctx.make.order({ customer: customer.id, author: tech.id, entity: 2 });
      const rMine = await ctx.make.report({ creator: tech.id, elementType: 'commande', element: mine.id });
      const rTheirs = await ctx.make.report({ creator: other.id, elementType: 'commande', element: theirs.id });
      const rTheirInvoice = await ctx.make.report({ creator: other.id, elementType: 'facture', element: theirInvoice.id });
      const rMineOnTheirs = await ctx.make.report({ creator: tech.id, elementType: 'commande', element: theirs.id });
      const rOnMineByOther = await ctx.make.report({ creator: other.id, elementType: 'commande', element: mine.id });
      await ctx.make.report({ creator: tech.id, elementType: 'commande', element: foreignEntity.id });

      const d = await detail(tech.token, customer.id);
      assert.deepEqual(
        d.orders.map((o) => o.id),
        [mine.id],
      );
      assert.deepEqual(
        d.invoices.map((f) => f.id),
        [myInvoice.id],
      );
      assert.deepEqual(
        d.reports.map((r) => r.id).sort((a, b) => a - b),
        [rMine.id, rMineOnTheirs.id, rOnMineByOther.id].sort((a, b) => a - b),
      );
      const onTheirs = d.reports.find((r) => r.id === rMineOnTheirs.id)!;
      assert.equal(onTheirs.parent_ref, theirs.ref);

      const full = await detail(admin.token, customer.id);
      assert.deepEqual(
        full.orders.map((o) => o.id),
        [theirs.id, mine.id],
      );
      assert.deepEqual(
        full.invoices.map((f) => f.id).sort((a, b) => a - b),
        [theirInvoice.id, myInvoice.id].sort((a, b) => a - b),
      );
      assert.equal(full.reports.length, 5);
      assert.ok(full.reports.some((r) => r.id === rTheirs.id && r.element_type === 'commande'));
      assert.ok(full.reports.some((r) => r.id === rTheirInvoice.id && r.element_type === 'facture' && r.parent_ref === theirInvoice.ref));
    });

    test('an external user sees only their own third party', async () => {
      const t = tag();
      const own = await ctx.make.thirdParty({ name: `Eigen ${t}` });
      const foreign = await ctx.make.thirdParty({ name: `Fremdkunde ${t}` });
      const u = await ctx.make.user({ admin: true, rights: ['read'] });
      await ctx.handle.db.updateTable('user').set({ fk_soc: own.id }).where('rowid', '=', u.id).execute();
      const token = await ctx.make.token(u);
      await ctx.make.order({ customer: foreign.id, author: u.id });
      assert.deepEqual(
        (await list(token, { q: t })).items.map((i) => i.id),
        [own.id],
      );
      assertError(await get(token, `id=${foreign.id}`), 404, 'CUSTOMER_NOT_FOUND');
      assert.equal((await detail(token, own.id)).id, own.id);
    });
  });
}
