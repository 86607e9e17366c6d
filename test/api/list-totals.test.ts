/**
 * A list's `total` is the database's, whichever way it is found (db/list-total.ts): from the page
 * where the page tells it, from a count kept while SQLite's data version (PostgreSQL's snapshot)
 * holds, or from a count. Orders added and removed by another connection (as Dolibarr adds them)
 * show in the next answer, on every dialect, also when the transaction that adds them was already
 * running when the total was counted; so do changes through the service's own connection. Pages
 * past the end still give the total. A page answered from memory while nothing changed (kept like
 * the count) shows an order changed in Dolibarr in the very next answer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDb, type DbHandle } from '../../src/db/database.js';
import { toDbDateTime } from '../../src/db/dialect.js';
import { createTestContext, type TestContext } from '../helpers/build-app.js';
import { testDialects } from '../helpers/databases.js';
import { createFactories, type Factories } from '../helpers/factories.js';

for (const dialect of testDialects()) {
  describe(`list totals [${dialect}]`, () => {
    let ctx: TestContext;
    let dolibarr: DbHandle;
    let fromDolibarr: Factories;
    let token: string;
    let me: number;
    before(async () => {
      ctx = await createTestContext(dialect);
      dolibarr = createDb(ctx.config, { poolSize: 1 });
      fromDolibarr = createFactories(dolibarr, ctx.config, ctx.app);
      const user = await ctx.make.user({ rights: ['read'] });
      me = user.id;
      token = await ctx.make.token(user);
      for (let i = 0; i < 3; i++) await ctx.make.order({ author: me });
    });
    after(async () => {
      await dolibarr?.destroy();
      await ctx?.close();
    });

    async function page(query: string): Promise<{ items: unknown[]; total: number }> {
      const res = await ctx.app.inject({ method: 'GET', url: `/api/orders.php?${query}`, headers: { authorization: `Bearer ${token}` } });
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    }

    async function totals(): Promise<number[]> {
      // A full page (counted), a page that is not full (told by the page), a page past the end (counted).
      const [full, part, past] = [await page('limit=2'), await page('limit=50'), await page('limit=5&offset=100')];
      assert.equal(full.items.length, 2);
      assert.equal(past.items.length, 0);
      return [full.total, part.total, part.items.length, past.total];
    }

    test('orders added and removed in Dolibarr show in the next total', async () => {
      assert.deepEqual(await totals(), [3, 3, 3, 3]);
      assert.deepEqual(await totals(), [3, 3, 3, 3], 'asked again');
      const added = await fromDolibarr.order({ author: me });
      assert.deepEqual(await totals(), [4, 4, 4, 4]);
      await dolibarr.db.deleteFrom('commande').where('rowid', '=', added.id).execute();
      assert.deepEqual(await totals(), [3, 3, 3, 3]);
    });

    test('an order added by a transaction that was running when the total was counted shows once it commits', async () => {
      const [counted] = await totals();
      const customer = (await fromDolibarr.order({ author: me })).customer;
      const values = (n: number) => ({
        ref: `CO-OPEN-${Date.now()}-${n}`,
        entity: ctx.config.entity,
        fk_soc: customer,
        fk_statut: 1,
        fk_user_author: me,
        total_ttc: 119,
        date_commande: toDbDateTime().slice(0, 10),
        date_creation: toDbDateTime(),
      });
      const all = (n: number) => [n, n, n, n];
      const first = await dolibarr.db.startTransaction().execute();
      // Another connection's transaction, begun after the first and ended before it (SQLite has one writer at a time: none there).
      const other = dialect === 'sqlite' ? undefined : createDb(ctx.config, { poolSize: 1 });
      try {
        await first.insertInto('commande').values(values(1)).execute();
        if (other) {
          const second = await other.db.startTransaction().execute();
          await second.insertInto('commande').values(values(2)).execute();
          await second.commit().execute();
        }
        const before = counted! + 1 + (other ? 1 : 0);
        // Counted (and kept) without the first transaction's order.
        assert.deepEqual(await totals(), all(before), 'before the commit');
        await first.commit().execute();
        assert.deepEqual(await totals(), all(before + 1), 'after the commit');
      } catch (error) {
        await first
          .rollback()
          .execute()
          .catch(() => undefined);
        throw error;
      } finally {
        await other?.destroy();
      }
    });

    test("an order added through the service's own connection shows at once", async () => {
      const before = (await page('limit=1')).total;
      await ctx.make.order({ author: me });
      assert.equal((await page('limit=1')).total, before + 1);
    });

    test('an order changed in Dolibarr shows in the next page, also one asked for again and again', async () => {
      const changed = await fromDolibarr.order({ author: me, refClient: 'vorher' });
      type Item = { id: number; ref_client: string | null; status: number };
      const mine = async () => (await page('limit=50')).items.find((item) => (item as Item).id === changed.id) as Item | undefined;
      const first = await page('limit=50');
      assert.deepEqual(await page('limit=50'), first, 'the same page, asked again, is the same answer');
      assert.equal((await mine())?.ref_client, 'vorher');
      await dolibarr.db.updateTable('commande').set({ ref_client: 'nachher', fk_statut: 2 }).where('rowid', '=', changed.id).execute();
      const after = await mine();
      assert.equal(after?.ref_client, 'nachher');
      assert.equal(after?.status, 2);
      // Changed inside a transaction: unseen while it runs, seen at once when it commits.
      const open = await dolibarr.db.startTransaction().execute();
      try {
        await open.updateTable('commande').set({ ref_client: 'im Gange' }).where('rowid', '=', changed.id).execute();
        assert.equal((await mine())?.ref_client, 'nachher', 'before the commit');
        await open.commit().execute();
      } catch (error) {
        await open
          .rollback()
          .execute()
          .catch(() => undefined);
        throw error;
      }
      assert.equal((await mine())?.ref_client, 'im Gange', 'after the commit');
      await ctx.make.order({ author: me });
      await dolibarr.db.deleteFrom('commande').where('rowid', '=', changed.id).execute();
      assert.equal(await mine(), undefined, 'removed in Dolibarr');
    });

    test('a search has its own total', async () => {
      const named = await fromDolibarr.order({ author: me, refClient: 'Heizung Keller Süd' });
      const found = await page('limit=1&q=keller%20s%C3%BCd');
      assert.equal(found.total, 1);
      assert.equal((found.items[0] as { id: number }).id, named.id);
      const all = await page('limit=1');
      assert.ok(all.total > 1);
    });
  });
}
