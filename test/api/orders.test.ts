/**
 * Endpoints 2-4, GET /api/orders.php, on every database: who sees which order (fk_user_* columns,
 * admin flag, entity), paging and order, search, the detail with customer and reports, the
 * attachment list from the order's folder, and the errors.
 */
import assert from 'node:assert/strict';
import { mkdir, rename, unlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import sharp from 'sharp';
import { toDbDateTime } from '../../src/db/dialect.js';
import { objectFolder } from '../../src/dolibarr/documents.js';
import { assertError } from '../helpers/assertions.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';

const DAY = 24 * 3600;
/** A fixed moment (2024-03-15 10:20:30 UTC) and its midnight, as the API gives the order date. */
const T0 = Date.UTC(2024, 2, 15, 10, 20, 30) / 1000;
const midnight = (t: number) => t - (t % DAY);

for (const dialect of testDialects()) {
  describe(`orders [${dialect}]`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(async () => ctx?.close());

    /** A user with the read right, and its token. */
    async function reader(options: { admin?: boolean } = {}) {
      const user = await ctx.make.user({ rights: ['read'], admin: options.admin });
      return { id: user.id, token: await ctx.make.token(user) };
    }
    const get = (token: string | null, url: string): Promise<LightMyRequestResponse> =>
      ctx.app.inject({ method: 'GET', url, headers: token ? { authorization: `Bearer ${token}` } : {} });
    const listIds = (res: LightMyRequestResponse) => {
      assert.equal(res.statusCode, 200, res.body);
      return (res.json().items as Array<{ id: number }>).map((o) => o.id);
    };

    describe('visibility', () => {
      test('a user sees only the orders that name them as author, validator or last editor', async () => {
        const me = await reader();
        const other = await reader();
        const byAuthor = await ctx.make.order({ author: me.id, date: T0 });
        const byValid = await ctx.make.order({ author: other.id, valid: me.id, date: T0 - DAY });
        const byModif = await ctx.make.order({ author: other.id, modif: me.id, date: T0 - 2 * DAY });
        await ctx.make.order({ author: other.id, valid: other.id, modif: other.id, date: T0 });
        await ctx.make.order({ author: null, date: T0 });
        const res = await get(me.token, '/api/orders.php');
        assert.deepEqual(listIds(res), [byAuthor.id, byValid.id, byModif.id]);
        assert.equal(res.json().total, 3);
      });

      test('a user with the admin flag sees every order of the entity', async () => {
        const admin = await reader({ admin: true });
        const someone = await reader();
        const a = await ctx.make.order({ author: someone.id });
        const b = await ctx.make.order({ author: null });
        const foreign = await ctx.make.order({ author: admin.id, entity: 2 });
        const res = await get(admin.token, '/api/orders.php?limit=500');
        const ids = listIds(res);
        assert.ok(ids.includes(a.id) && ids.includes(b.id));
        assert.ok(!ids.includes(foreign.id));
        const count = await ctx.handle.db
          .selectFrom('commande')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('entity', '=', ctx.config.entity)
          .executeTakeFirstOrThrow();
        assert.equal(res.json().total, Number(count.n));
        assertError(await get(admin.token, `/api/orders.php?id=${foreign.id}`), 404, 'ORDER_NOT_FOUND');
      });

      test('an order of another entity is invisible even to the user it names', async () => {
        const me = await reader();
        const foreign = await ctx.make.order({ author: me.id, entity: 2 });
        const res = await get(me.token, '/api/orders.php');
        assert.deepEqual(listIds(res), []);
        assert.equal(res.json().total, 0);
        assertError(await get(me.token, `/api/orders.php?id=${foreign.id}`), 404, 'ORDER_NOT_FOUND');
        assertError(await get(me.token, `/api/orders.php?id=${foreign.id}&action=photos`), 404, 'ORDER_NOT_FOUND');
      });

      test("another user's order is 404 for detail and photos, like an unknown id", async () => {
        const me = await reader();
        const other = await reader();
        const theirs = await ctx.make.order({ author: other.id });
        assertError(await get(me.token, `/api/orders.php?id=${theirs.id}`), 404, 'ORDER_NOT_FOUND');
        assertError(await get(me.token, `/api/orders.php?id=${theirs.id}&action=photos`), 404, 'ORDER_NOT_FOUND');
        assertError(await get(me.token, '/api/orders.php?id=2147483647'), 404, 'ORDER_NOT_FOUND');
        assertError(await get(me.token, '/api/orders.php?id=2147483647&action=photos'), 404, 'ORDER_NOT_FOUND');
        // The owner sees it.
        assert.equal((await get(other.token, `/api/orders.php?id=${theirs.id}`)).statusCode, 200);
      });
    });

    describe('list', () => {
      test('amounts are rounded as Dolibarr rounds totals (price2num MT: 2 decimals, half away from zero)', async () => {
        const me = await reader();
        const order = await ctx.make.order({ author: me.id });
        for (const [stored, shown] of [
          [1582.6999999999998, 1582.7],
          [0.125, 0.13],
          [-0.125, -0.13],
          [119, 119],
          [2.675, 2.68],
        ] as const) {
          await ctx.handle.db.updateTable('commande').set({ total_ttc: stored }).where('rowid', '=', order.id).execute();
          const detail = await get(me.token, `/api/orders.php?id=${order.id}`);
          assert.equal((detail.json() as { total_ttc: number }).total_ttc, shown, `${stored}`);
          const list = await get(me.token, '/api/orders.php');
          assert.equal(
            (list.json() as { items: Array<{ id: number; total_ttc: number }> }).items.find((o) => o.id === order.id)!.total_ttc,
            shown,
          );
        }
      });

      test('each entry has the documented fields', async () => {
        const me = await reader();
        const customer = await ctx.make.thirdParty({ name: 'Müller GmbH' });
        const order = await ctx.make.order({ author: me.id, customer: customer.id, refClient: 'PO-4711', date: T0, status: 2 });
        await ctx.handle.db
          .updateTable('commande')
          .set({ date_livraison: toDbDateTime(T0 + 3 * DAY) })
          .where('rowid', '=', order.id)
          .execute();
        const res = await get(me.token, '/api/orders.php');
        assert.equal(res.statusCode, 200);
        assert.match(String(res.headers['content-type']), /^application\/json/);
        assert.deepEqual(res.json(), {
          items: [
            {
              id: order.id,
              ref: order.ref,
              ref_client: 'PO-4711',
              status: 2,
              customer: { id: customer.id, name: 'Müller GmbH' },
              date: midnight(T0),
              date_delivery: T0 + 3 * DAY,
              date_creation: T0,
              total_ttc: 119,
            },
          ],
          total: 1,
        });
      });

      test('ref_client and dates may be null', async () => {
        const me = await reader();
        const order = await ctx.make.order({ author: me.id, refClient: null });
        await ctx.handle.db
          .updateTable('commande')
          .set({ date_commande: null, date_creation: null })
          .where('rowid', '=', order.id)
          .execute();
        const [item] = (await get(me.token, '/api/orders.php')).json().items;
        assert.equal(item.ref_client, null);
        assert.equal(item.date, null);
        assert.equal(item.date_creation, null);
        assert.equal(item.date_delivery, null);
      });

      test('newest first by order date, then by id; undated last; paged with limit and offset', async () => {
        const me = await reader();
        const oldest = await ctx.make.order({ author: me.id, date: T0 - 10 * DAY });
        const newest = await ctx.make.order({ author: me.id, date: T0 });
        const sameDay1 = await ctx.make.order({ author: me.id, date: T0 - DAY });
        const sameDay2 = await ctx.make.order({ author: me.id, date: T0 - DAY + 60 });
        const undated = await ctx.make.order({ author: me.id, date: T0 + 5 * DAY });
        await ctx.handle.db.updateTable('commande').set({ date_commande: null }).where('rowid', '=', undated.id).execute();
        const expected = [newest.id, sameDay2.id, sameDay1.id, oldest.id, undated.id];
        assert.deepEqual(listIds(await get(me.token, '/api/orders.php')), expected);

        const page1 = await get(me.token, '/api/orders.php?limit=2');
        assert.deepEqual(listIds(page1), expected.slice(0, 2));
        assert.equal(page1.json().total, 5);
        const page2 = await get(me.token, '/api/orders.php?limit=2&offset=2');
        assert.deepEqual(listIds(page2), expected.slice(2, 4));
        assert.equal(page2.json().total, 5);
        const page3 = await get(me.token, '/api/orders.php?limit=2&offset=4');
        assert.deepEqual(listIds(page3), expected.slice(4));
        assert.equal(page3.json().total, 5);
        const beyond = await get(me.token, '/api/orders.php?offset=50');
        assert.deepEqual(listIds(beyond), []);
        assert.equal(beyond.json().total, 5);
      });

      test('limit and offset are validated', async () => {
        const me = await reader();
        for (const query of ['limit=0', 'limit=501', 'limit=x', 'offset=-1']) {
          assertError(await get(me.token, `/api/orders.php?${query}`), 400, 'VALIDATION_FAILED');
        }
      });

      test('q searches ref, ref_client and customer name, case-insensitively; total counts the matches', async () => {
        const me = await reader();
        const tag = `zq${Date.now().toString(36)}`;
        const customer = await ctx.make.thirdParty({ name: `Bäckerei ${tag.toUpperCase()} KG` });
        const byRef = await ctx.make.order({ author: me.id, ref: `CO-${tag}-1`, date: T0 });
        const byRefClient = await ctx.make.order({ author: me.id, refClient: `Bestellung ${tag.toUpperCase()}`, date: T0 - DAY });
        const byCustomer = await ctx.make.order({ author: me.id, customer: customer.id, date: T0 - 2 * DAY });
        await ctx.make.order({ author: me.id, refClient: 'nothing', date: T0 });
        const hidden = await reader();
        await ctx.make.order({ author: hidden.id, ref: `CO-${tag}-hidden` });

        const res = await get(me.token, `/api/orders.php?q=${tag.toUpperCase()}`);
        assert.deepEqual(listIds(res), [byRef.id, byRefClient.id, byCustomer.id]);
        assert.equal(res.json().total, 3);
        const paged = await get(me.token, `/api/orders.php?q=${tag}&limit=1&offset=1`);
        assert.deepEqual(listIds(paged), [byRefClient.id]);
        assert.equal(paged.json().total, 3);
        assert.deepEqual(listIds(await get(me.token, `/api/orders.php?q=${encodeURIComponent(`  ${tag}-1 `)}`)), [byRef.id]);
        // An empty q is no filter.
        assert.equal((await get(me.token, '/api/orders.php?q=')).json().total, 4);
      });

      test("'%', '_' and '!' in q are literal characters", async () => {
        const me = await reader();
        const percent = await ctx.make.order({ author: me.id, refClient: 'Rabatt 50% fix', date: T0 });
        const underscore = await ctx.make.order({ author: me.id, refClient: 'A_B', date: T0 - DAY });
        const bang = await ctx.make.order({ author: me.id, refClient: 'Achtung!', date: T0 - 2 * DAY });
        await ctx.make.order({ author: me.id, refClient: 'Rabatt 50 fix AxB', date: T0 - 3 * DAY });
        assert.deepEqual(listIds(await get(me.token, `/api/orders.php?q=${encodeURIComponent('%')}`)), [percent.id]);
        assert.deepEqual(listIds(await get(me.token, `/api/orders.php?q=${encodeURIComponent('50%')}`)), [percent.id]);
        assert.deepEqual(listIds(await get(me.token, '/api/orders.php?q=_')), [underscore.id]);
        assert.deepEqual(listIds(await get(me.token, `/api/orders.php?q=${encodeURIComponent('!')}`)), [bang.id]);
        assert.deepEqual(listIds(await get(me.token, `/api/orders.php?q=${encodeURIComponent('%%')}`)), []);
      });

      test('q of 100 characters searches; longer is 400, as on every list', async () => {
        const me = await reader();
        const long = `L${Date.now().toString(36)}`.padEnd(100, 'y');
        const order = await ctx.make.order({ author: me.id, refClient: `${long}zzz` });
        assert.deepEqual(listIds(await get(me.token, `/api/orders.php?q=${long}`)), [order.id]);
        assertError(await get(me.token, `/api/orders.php?q=${long}D`), 400, 'VALIDATION_FAILED');
      });

      test('status narrows the list to the given fk_statut values; total counts the matches; it combines with q and paging', async () => {
        const me = await reader();
        const tag = `st${Date.now().toString(36)}`;
        const byStatus = new Map<number, number>();
        for (const [index, status] of [-1, 0, 1, 2, 3].entries()) {
          byStatus.set(status, (await ctx.make.order({ author: me.id, status, refClient: `${tag}-${status}`, date: T0 - index * DAY })).id);
        }
        const other = await ctx.make.order({ author: me.id, status: 1, refClient: 'anders', date: T0 - 10 * DAY });
        const hidden = await reader();
        await ctx.make.order({ author: hidden.id, status: 1, refClient: `${tag}-hidden`, date: T0 });
        const ids = (...statuses: number[]) => statuses.map((s) => byStatus.get(s)!);

        // The same caller and page first without, then with a status: kept queries and counts are per status.
        const all = await get(me.token, '/api/orders.php?limit=2');
        assert.equal(all.json().total, 6);
        const open = await get(me.token, '/api/orders.php?status=0,1,2&limit=2');
        assert.deepEqual(listIds(open), ids(0, 1));
        assert.equal(open.json().total, 4, 'three states, the order "anders" included');
        assert.deepEqual(listIds(await get(me.token, '/api/orders.php?status=0,1,2&limit=2&offset=2')), [...ids(2), other.id]);
        // Order and repeats in the list do not matter.
        const reordered = await get(me.token, '/api/orders.php?status=2,1,0,1&limit=2');
        assert.deepEqual(listIds(reordered), ids(0, 1));
        assert.equal(reordered.json().total, 4);
        const closed = await get(me.token, '/api/orders.php?status=-1,3');
        assert.deepEqual(listIds(closed), ids(-1, 3));
        assert.equal(closed.json().total, 2);
        for (const status of [-1, 0, 1, 2, 3]) {
          const one = await get(me.token, `/api/orders.php?status=${status}&q=${tag}`);
          assert.deepEqual(listIds(one), ids(status), `status=${status}`);
          assert.equal(one.json().total, 1);
        }
        const searched = await get(me.token, `/api/orders.php?status=1,2&q=${tag}&limit=1`);
        assert.deepEqual(listIds(searched), ids(1));
        assert.equal(searched.json().total, 2, "q and status together; the other user's order is not counted");
        assert.deepEqual(listIds(await get(me.token, `/api/orders.php?status=1,2&q=${tag}&limit=1&offset=1`)), ids(2));
        assert.equal((await get(me.token, `/api/orders.php?status=1&q=anders`)).json().total, 1);
        assert.equal((await get(me.token, '/api/orders.php?limit=2')).json().total, 6, 'the list without status is as before');
        // The detail ignores the list's filters.
        assert.equal((await get(me.token, `/api/orders.php?id=${byStatus.get(3)}&status=0`)).statusCode, 200);
      });

      test('a status outside -1..3, no integer, an empty item or spaces is 400 VALIDATION_FAILED naming status', async () => {
        const me = await reader();
        for (const value of ['4', '-2', '1,5', 'a', '1.0', '', ',', '1,', ',1', '1,,2', '1, 2', ' 1', '01', '+1', '-0', '0x1', '1;2']) {
          const body = assertError(await get(me.token, `/api/orders.php?status=${encodeURIComponent(value)}`), 400, 'VALIDATION_FAILED');
          assert.match(JSON.stringify(body.details), /status/, `status=${JSON.stringify(value)}: ${JSON.stringify(body.details)}`);
        }
        assertError(await get(me.token, '/api/orders.php?status=1&status=2'), 400, 'VALIDATION_FAILED');
      });

      test('an admin sees every order of the given states; a technician only their own', async () => {
        const admin = await reader({ admin: true });
        const me = await reader();
        const someone = await reader();
        const tag = `sa${Date.now().toString(36)}`;
        const mine = await ctx.make.order({ author: me.id, status: 2, refClient: tag, date: T0 });
        const theirs = await ctx.make.order({ author: someone.id, status: 2, refClient: tag, date: T0 - DAY });
        await ctx.make.order({ author: me.id, status: 3, refClient: tag, date: T0 });
        assert.deepEqual(listIds(await get(admin.token, `/api/orders.php?status=2&q=${tag}`)), [mine.id, theirs.id]);
        assert.deepEqual(listIds(await get(me.token, `/api/orders.php?status=2&q=${tag}`)), [mine.id]);
        assert.equal((await get(me.token, `/api/orders.php?status=2&q=${tag}`)).json().total, 1);
      });
    });

    describe('detail', () => {
      test('gives the order fields, note_public, the customer master data and the reports', async () => {
        const me = await reader();
        const customer = await ctx.make.thirdParty({
          name: 'Huber & Söhne',
          alias: 'Huber',
          code: 'CU2403-0001',
          town: 'Augsburg',
          email: 'info@huber.example',
          client: 1,
        });
        await ctx.handle.db
          .updateTable('societe')
          .set({ address: 'Hauptstr. 1', zip: '86150', phone: '0821 123' })
          .where('rowid', '=', customer.id)
          .execute();
        const order = await ctx.make.order({ valid: me.id, customer: customer.id, refClient: 'PO-1', date: T0 });
        await ctx.handle.db.updateTable('commande').set({ note_public: 'Hintereingang benutzen' }).where('rowid', '=', order.id).execute();

        const res = await get(me.token, `/api/orders.php?id=${order.id}`);
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json(), {
          id: order.id,
          ref: order.ref,
          ref_client: 'PO-1',
          status: 1,
          date: midnight(T0),
          date_delivery: null,
          date_creation: T0,
          total_ttc: 119,
          note_public: 'Hintereingang benutzen',
          customer: {
            id: customer.id,
            name: 'Huber & Söhne',
            name_alias: 'Huber',
            code_client: 'CU2403-0001',
            address: 'Hauptstr. 1',
            zip: '86150',
            town: 'Augsburg',
            phone: '0821 123',
            email: 'info@huber.example',
          },
          reports: [],
        });
      });

      test('the customer is given for client 1, 2 and 3 and is null for a supplier only (client 0)', async () => {
        const me = await reader();
        for (const client of [1, 2, 3]) {
          const party = await ctx.make.thirdParty({ client });
          const order = await ctx.make.order({ author: me.id, customer: party.id });
          const body = (await get(me.token, `/api/orders.php?id=${order.id}`)).json();
          assert.equal(body.customer?.id, party.id, `client ${client}`);
          assert.equal(body.customer.name, party.name);
        }
        const supplier = await ctx.make.thirdParty({ client: 0, fournisseur: 1 });
        const order = await ctx.make.order({ author: me.id, customer: supplier.id });
        const res = await get(me.token, `/api/orders.php?id=${order.id}`);
        assert.equal(res.statusCode, 200);
        assert.equal(res.json().customer, null);
        // The list says the same as the detail: no customer.
        const item = (await get(me.token, '/api/orders.php?limit=500')).json().items.find((o: { id: number }) => o.id === order.id);
        assert.equal(item.customer, null);
      });

      test("reports: the order's own, without templates, newest first, with page_count and status", async () => {
        const me = await reader();
        const other = await reader();
        const order = await ctx.make.order({ author: me.id });
        const otherOrder = await ctx.make.order({ author: me.id });
        const older = await ctx.make.report({ creator: me.id, element: order.id, elementType: 'commande' });
        const newer = await ctx.make.report({ creator: other.id, element: order.id, elementType: 'commande', status: 1 });
        await ctx.make.report({ creator: me.id, element: order.id, elementType: 'commande', isTemplate: true });
        await ctx.make.report({ creator: me.id, element: otherOrder.id, elementType: 'commande' });
        await ctx.make.report({ creator: me.id, element: order.id, elementType: 'facture' });
        await ctx.make.report({ creator: me.id, element: order.id, elementType: 'commande', entity: 2 });
        const db = ctx.handle.db;
        await db
          .updateTable('bericht')
          .set({ datec: toDbDateTime(T0 - DAY) })
          .where('rowid', '=', older.id)
          .execute();
        await db
          .updateTable('bericht')
          .set({ datec: toDbDateTime(T0) })
          .where('rowid', '=', newer.id)
          .execute();
        for (let i = 0; i < 3; i++)
          await db
            .insertInto('bericht_page')
            .values({ fk_bericht: older.id, page_order: i, layout: 'photo', datec: toDbDateTime() })
            .execute();

        const res = await get(me.token, `/api/orders.php?id=${order.id}`);
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json().reports, [
          { id: newer.id, ref: newer.ref, title: `Bericht ${newer.ref}`, status: 'final', version: 1, page_count: 0, datec: T0 },
          { id: older.id, ref: older.ref, title: `Bericht ${older.ref}`, status: 'draft', version: 1, page_count: 3, datec: T0 - DAY },
        ]);
      });
    });

    describe('photos', () => {
      async function folderOf(ref: string) {
        return objectFolder(ctx.config.dataRoot, ctx.config.entity, 'commande', ref);
      }

      test('lists the regular files of the order folder with size, type, time and links', async () => {
        const me = await reader();
        const order = await ctx.make.order({ author: me.id });
        const folder = await folderOf(order.ref);
        await mkdir(path.join(folder.dir, 'thumbs'), { recursive: true });
        await mkdir(path.join(folder.dir, 'sub'), { recursive: true });

        const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#c03020' } })
          .jpeg()
          .toBuffer();
        const png = await sharp({ create: { width: 8, height: 8, channels: 4, background: '#00ff0080' } })
          .png()
          .toBuffer();
        const files: Array<[string, Buffer | string, number]> = [
          ['Baustelle 1 & ü.jpg', jpeg, T0],
          ['plan.png', png, T0 - 60],
          ['notiz.txt', 'Nur Text', T0 - 60],
          ['fake.jpg', 'not really a jpeg', T0 - 120],
          ['upload.tmp', jpeg, T0 + 60],
          ['.hidden.jpg', jpeg, T0 + 60],
          ['.Baustelle.jpg.abc123.tmp', jpeg, T0 + 60],
          // Dolibarr keeps PDF previews and .meta files out of its lists.
          ['Angebot.pdf_preview.png', png, T0 + 60],
          ['Angebot.pdf_preview-2.png', png, T0 + 60],
          ['Bericht.pdf.meta', 'meta', T0 + 60],
          [path.join('thumbs', 'Baustelle 1 & ü_small.jpg'), jpeg, T0 + 60],
          [path.join('sub', 'inner.jpg'), jpeg, T0 + 60],
        ];
        for (const [name, data, mtime] of files) {
          await writeFile(path.join(folder.dir, name), data);
          await utimes(path.join(folder.dir, name), mtime, mtime);
        }

        const res = await get(me.token, `/api/orders.php?id=${order.id}&action=photos`);
        assert.equal(res.statusCode, 200, res.body);
        const base = '/api/photo.php?modulepart=commande&file=';
        const url = (name: string) => `${base}${encodeURIComponent(`${folder.name}/${name}`)}`;
        assert.deepEqual(res.json(), {
          items: [
            {
              name: 'Baustelle 1 & ü.jpg',
              size: jpeg.length,
              type: 'image/jpeg',
              mtime: T0,
              url: url('Baustelle 1 & ü.jpg'),
              thumb_small_url: `${url('Baustelle 1 & ü.jpg')}&size=small`,
              thumb_mini_url: `${url('Baustelle 1 & ü.jpg')}&size=mini`,
            },
            { name: 'notiz.txt', size: 8, type: null, mtime: T0 - 60, url: url('notiz.txt'), thumb_small_url: null, thumb_mini_url: null },
            {
              name: 'plan.png',
              size: png.length,
              type: 'image/png',
              mtime: T0 - 60,
              url: url('plan.png'),
              thumb_small_url: `${url('plan.png')}&size=small`,
              thumb_mini_url: `${url('plan.png')}&size=mini`,
            },
            { name: 'fake.jpg', size: 17, type: null, mtime: T0 - 120, url: url('fake.jpg'), thumb_small_url: null, thumb_mini_url: null },
          ],
          total: 4,
        });
        // The name is encoded as one query value: '/' between folder and name, '&', spaces and umlauts.
        assert.ok(url('Baustelle 1 & ü.jpg').endsWith(`${encodeURIComponent(folder.name)}%2FBaustelle%201%20%26%20%C3%BC.jpg`));

        const page = await get(me.token, `/api/orders.php?id=${order.id}&action=photos&limit=2&offset=1`);
        assert.deepEqual(
          page.json().items.map((p: { name: string }) => p.name),
          ['notiz.txt', 'plan.png'],
        );
        assert.equal(page.json().total, 4);
      });

      test("a file written anew under its name shows its new type (types are kept per file's identity)", async () => {
        const me = await reader();
        const order = await ctx.make.order({ author: me.id });
        const folder = await folderOf(order.ref);
        await mkdir(folder.dir, { recursive: true });
        const file = path.join(folder.dir, 'Foto.jpg');
        const types = async () =>
          (await get(me.token, `/api/orders.php?id=${order.id}&action=photos`)).json().items.map((p: { type: string | null }) => p.type);
        await writeFile(file, 'noch kein Bild');
        await utimes(file, T0, T0);
        assert.deepEqual(await types(), [null]);
        assert.deepEqual(await types(), [null], 'asked again');
        // The same name, size and second: written in place (same inode), only the nanoseconds differ.
        const jpeg = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#123456' } })
          .jpeg()
          .toBuffer();
        await writeFile(file, jpeg);
        await utimes(file, T0 + 0.5, T0 + 0.5);
        assert.deepEqual(await types(), ['image/jpeg']);
        // Replaced by another file (a new inode) with the old one's size and time.
        const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#123456' } })
          .png()
          .toBuffer();
        const padded = Buffer.concat([png, Buffer.alloc(Math.max(0, jpeg.length - png.length))]).subarray(
          0,
          Math.max(png.length, jpeg.length),
        );
        await writeFile(`${file}.new`, padded);
        await utimes(`${file}.new`, T0 + 0.5, T0 + 0.5);
        await rename(`${file}.new`, file);
        assert.deepEqual(await types(), ['image/png']);
        // Deleted and made again with the same size and times (as cp -p does): the file system may
        // give it the old inode; its change time still differs.
        await unlink(file);
        await writeFile(file, Buffer.concat([Buffer.from('kein Bild mehr'), Buffer.alloc(padded.length - 14)]));
        await utimes(file, T0 + 0.5, T0 + 0.5);
        assert.deepEqual(await types(), [null]);
      });

      test('an order without a folder has no attachments', async () => {
        const me = await reader();
        const order = await ctx.make.order({ author: me.id });
        const res = await get(me.token, `/api/orders.php?id=${order.id}&action=photos`);
        assert.equal(res.statusCode, 200);
        assert.deepEqual(res.json(), { items: [], total: 0 });
      });

      test('an admin sees the attachments of any order', async () => {
        const admin = await reader({ admin: true });
        const order = await ctx.make.order({ author: null });
        const folder = await folderOf(order.ref);
        await mkdir(folder.dir, { recursive: true });
        await writeFile(path.join(folder.dir, 'a.txt'), 'x');
        const res = await get(admin.token, `/api/orders.php?id=${order.id}&action=photos`);
        assert.deepEqual(
          res.json().items.map((p: { name: string }) => p.name),
          ['a.txt'],
        );
      });
    });

    describe('errors', () => {
      test('an unknown action is 400 ACTION_UNKNOWN', async () => {
        const me = await reader();
        const order = await ctx.make.order({ author: me.id });
        assertError(await get(me.token, `/api/orders.php?id=${order.id}&action=nope`), 400, 'ACTION_UNKNOWN');
        assertError(await get(me.token, '/api/orders.php?action=nope'), 400, 'ACTION_UNKNOWN');
      });

      test('photos without an id is 400', async () => {
        const me = await reader();
        assertError(await get(me.token, '/api/orders.php?action=photos'), 400, 'VALIDATION_FAILED');
      });

      test('an id that is not a positive integer is 400 VALIDATION_FAILED', async () => {
        const me = await reader();
        for (const id of ['abc', '0', '-3', '1.5', '99999999999']) {
          assertError(await get(me.token, `/api/orders.php?id=${id}`), 400, 'VALIDATION_FAILED');
        }
      });

      test('no token is 401, a bad token 401, a user without the read right 403', async () => {
        assertError(await get(null, '/api/orders.php'), 401, 'AUTH_TOKEN_MISSING');
        assertError(await get(null, '/api/orders.php?id=1'), 401, 'AUTH_TOKEN_MISSING');
        assertError(await get(null, '/api/orders.php?id=1&action=photos'), 401, 'AUTH_TOKEN_MISSING');
        assertError(await get('not-a-token', '/api/orders.php'), 401, 'AUTH_TOKEN_INVALID');
        // The user is reloaded on every request: a read right withdrawn after login counts at once.
        const me = await reader();
        await ctx.make.order({ author: me.id });
        await ctx.handle.db.deleteFrom('user_rights').where('fk_user', '=', me.id).execute();
        const res = await get(me.token, '/api/orders.php');
        assert.equal(res.statusCode, 403, res.body);
        assert.doesNotMatch(res.body, /items/);
      });
    });

    test('the OpenAPI document describes the route and its answers', async () => {
      const res = await ctx.app.inject({ method: 'GET', url: '/api/openapi.json' });
      assert.equal(res.statusCode, 200);
      const op = res.json().paths['/api/orders.php']?.get;
      assert.ok(op, 'GET /api/orders.php documented');
      for (const status of ['200', '400', '401', '403', '404']) assert.ok(op.responses[status], `response ${status}`);
      assert.match(op.description, /ORDER_NOT_FOUND/);
      assert.match(op.description, /thumbs/);
    });
  });
}
