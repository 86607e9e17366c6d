/** The benchmarks' data: users, customers, orders, reports (bench/run.ts, bench/order-list.ts, bench/app.ts). */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/database.js';
import { insertId, toDbDateTime } from '../src/db/dialect.js';
import { migrate } from '../src/db/migrate.js';
import { hashPassword } from '../src/dolibarr/password.js';
import { RIGHTS_MODULE } from '../src/dolibarr/rights.js';
import { INSTANCE_ID, PASSWORD } from './common.js';

export interface Seeded {
  adminLogin: string;
  techLogin: string;
  adminId: number;
  techId: number;
  techOrders: number;
  /** Of the orders not naming the technician: those given to him by contact and by agenda event. */
  techAssigned: { byContact: number; byAgenda: number };
  orderRef: string;
  orderId: number;
}

/**
 * Fills a migrated database (`databaseUrl`, migrated here) with what the benchmarks measure: two
 * users (an administrator and a technician, with every right of the module), 200 customers and
 * `orders` orders over two years (every fifth names the technician as validator), a report of
 * three pages on each of the technician's orders; the way Dolibarr gives work besides: of the other
 * orders, ASSIGNED_EACH_WAY given to the technician as his TECHNICIAN contact and as many by a
 * planned event of his in the agenda, the administrator as SALESREPFOLL contact of every tenth
 * order, and the automatic agenda entry Dolibarr writes when an order is validated
 * (AC_ORDER_VALIDATE, owner the administrator) on every order; then gathers the planner's
 * statistics.
 */
/** Orders given to the technician by contact, and as many by agenda event (200 assignments in all). */
export const ASSIGNED_EACH_WAY = 100;

export async function seed(databaseUrl: string, dataRoot: string, orders = Number(process.env.BENCH_ORDERS ?? 10_000)): Promise<Seeded> {
  const config = loadConfig({ DATABASE_URL: databaseUrl, DATA_ROOT: dataRoot, INSTANCE_UNIQUE_ID: INSTANCE_ID });
  const handle = createDb(config, { poolSize: 2 });
  try {
    await migrate(handle, config);
    const { db, dialect } = handle;
    const pass = await hashPassword(PASSWORD);
    const rights = await db.selectFrom('rights_def').select(['id']).where('module', '=', RIGHTS_MODULE).where('entity', '=', 1).execute();
    const tag = randomBytes(3).toString('hex');
    const users: number[] = [];
    for (const [login, admin] of [
      [`bench_admin_${tag}`, 1],
      [`bench_tech_${tag}`, 0],
    ] as const) {
      const id = await insertId(
        dialect,
        db.insertInto('user').values({ login, pass_crypted: pass, admin, statut: 1, entity: 1, firstname: 'Bench', lastname: login }),
      );
      for (const r of rights) await db.insertInto('user_rights').values({ entity: 1, fk_user: id, fk_id: r.id }).execute();
      users.push(id);
    }
    const [adminId, techId] = users as [number, number];
    const customers: number[] = [];
    for (let i = 0; i < 200; i++) {
      customers.push(
        await insertId(
          dialect,
          db
            .insertInto('societe')
            .values({ nom: `Kunde ${i} GmbH`, client: 1 + (i % 3), entity: 1, status: 1, town: 'München', code_client: `BCU${tag}-${i}` }),
        ),
      );
    }
    // Orders over two years; every fifth names the technician (as validator), the rest the admin.
    const now = Date.now();
    let techOrders = 0;
    for (let start = 0; start < orders; start += 500) {
      const rows = [];
      for (let i = start; i < Math.min(orders, start + 500); i++) {
        const at = new Date(now - ((i * 63_113) % (730 * 86_400)) * 1000);
        const forTech = i % 5 === 0;
        if (forTech) techOrders++;
        rows.push({
          ref: `CO-B${tag}-${String(i).padStart(5, '0')}`,
          entity: 1,
          ref_client: `Auftrag ${100000 + i}`,
          fk_soc: customers[i % customers.length]!,
          fk_statut: 1 + (i % 3),
          fk_user_author: adminId,
          fk_user_valid: forTech ? techId : adminId,
          total_ht: 100 + i,
          total_tva: 19,
          total_ttc: 119 + i,
          date_creation: toDbDateTime(at),
          date_commande: toDbDateTime(at).slice(0, 10),
          date_valid: toDbDateTime(at),
          tms: toDbDateTime(at),
        });
      }
      await db.insertInto('commande').values(rows).execute();
    }
    // Reports: one on each of the technician's orders, made by the technician, with three pages each.
    const techOrderIds = (await db.selectFrom('commande').select('rowid').where('fk_user_valid', '=', techId).execute()).map((r) =>
      Number(r.rowid),
    );
    for (let start = 0; start < techOrderIds.length; start += 250) {
      const chunk = techOrderIds.slice(start, start + 250);
      await db
        .insertInto('bericht')
        .values(
          chunk.map((orderId, i) => ({
            ref: `BRB${tag}-${String(start + i).padStart(5, '0')}`,
            entity: 1,
            element_type: 'commande',
            fk_element: orderId,
            title: `Wartung ${start + i}`,
            format: 'A4',
            orientation: 'portrait',
            status: (start + i) % 2,
            version: 1,
            is_template: 0,
            fk_user_creat: techId,
            datec: toDbDateTime(new Date(now - (start + i) * 3_600_000)),
            tms: toDbDateTime(new Date(now - (start + i) * 3_600_000)),
          })),
        )
        .execute();
    }
    const reportIds = (await db.selectFrom('bericht').select('rowid').where('fk_user_creat', '=', techId).execute()).map((r) =>
      Number(r.rowid),
    );
    for (let start = 0; start < reportIds.length; start += 150) {
      const pages = reportIds.slice(start, start + 150).flatMap((id) =>
        [1, 2, 3].map((n) => ({
          fk_bericht: id,
          page_order: n,
          title: `Seite ${n}`,
          layout: 'title',
          datec: toDbDateTime(),
          tms: toDbDateTime(),
        })),
      );
      await db.insertInto('bericht_page').values(pages).execute();
    }
    // Work given the Dolibarr way, among the orders that do not name the technician.
    const others = (await db.selectFrom('commande').select('rowid').where('fk_user_valid', '=', adminId).orderBy('rowid').execute()).map(
      (r) => Number(r.rowid),
    );
    const step = Math.max(1, Math.floor(others.length / (2 * ASSIGNED_EACH_WAY)));
    const byContact = others.filter((_, i) => i % step === 0).slice(0, ASSIGNED_EACH_WAY);
    const byAgenda = others.filter((_, i) => i % step === 1).slice(0, ASSIGNED_EACH_WAY);
    const contactType = async (code: string) =>
      (
        await db
          .selectFrom('c_type_contact')
          .select('rowid')
          .where('element', '=', 'commande')
          .where('source', '=', 'internal')
          .where('code', '=', code)
          .executeTakeFirstOrThrow()
      ).rowid;
    const technician = await contactType('TECHNICIAN');
    const follower = await contactType('SALESREPFOLL');
    const contacts = [
      ...byContact.map((id) => ({ element_id: id, fk_c_type_contact: technician, fk_socpeople: techId })),
      ...others.filter((_, i) => i % 10 === 0).map((id) => ({ element_id: id, fk_c_type_contact: follower, fk_socpeople: adminId })),
    ];
    for (let start = 0; start < contacts.length; start += 500) {
      await db
        .insertInto('element_contact')
        .values(contacts.slice(start, start + 500).map((c) => ({ ...c, statut: 4, datecreate: toDbDateTime() })))
        .execute();
    }
    const eventType = async (code: string) =>
      (await db.selectFrom('c_actioncomm').select('id').where('code', '=', code).executeTakeFirstOrThrow()).id;
    const auto = await eventType('AC_OTH_AUTO');
    const meeting = await eventType('AC_RDV');
    const allOrders = (await db.selectFrom('commande').select('rowid').orderBy('rowid').execute()).map((r) => Number(r.rowid));
    const events = [
      ...allOrders.map((id) => ({
        id,
        owner: adminId,
        type: auto,
        code: 'AC_ORDER_VALIDATE',
        percent: -1,
        at: now - (id % 700) * 86_400_000,
      })),
      ...byAgenda.map((id, i) => ({ id, owner: techId, type: meeting, code: 'AC_RDV', percent: 0, at: now + (i % 10) * 86_400_000 })),
    ];
    for (let start = 0; start < events.length; start += 500) {
      const chunk = events.slice(start, start + 500);
      await db
        .insertInto('actioncomm')
        .values(
          chunk.map((e, i) => ({
            ref: `B${tag}-${start + i}`,
            entity: 1,
            datec: toDbDateTime(new Date(e.at)),
            datep: toDbDateTime(new Date(e.at)),
            datep2: toDbDateTime(new Date(e.at + 3_600_000)),
            fk_action: e.type,
            code: e.code,
            fk_soc: null,
            fk_user_author: adminId,
            fk_user_action: e.owner,
            label: e.code === 'AC_RDV' ? 'Wartung vor Ort' : 'Auftrag freigegeben',
            note: null,
            percent: e.percent,
            fk_element: e.id,
            elementtype: 'order',
          })),
        )
        .execute();
    }
    const eventRows = await db.selectFrom('actioncomm').select(['id', 'fk_user_action']).where('ref', 'like', `B${tag}-%`).execute();
    for (let start = 0; start < eventRows.length; start += 500) {
      await db
        .insertInto('actioncomm_resources')
        .values(
          eventRows.slice(start, start + 500).map((e) => ({
            fk_actioncomm: Number(e.id),
            element_type: 'user',
            fk_element: Number(e.fk_user_action),
            mandatory: 0,
            transparency: 0,
            answer_status: '0',
          })),
        )
        .execute();
    }

    const order = await db
      .selectFrom('commande')
      .select(['rowid', 'ref'])
      .where('fk_user_valid', '=', techId)
      .orderBy('rowid', 'desc')
      .executeTakeFirstOrThrow();
    // After a bulk load the planner needs statistics, which a live database has (autovacuum,
    // InnoDB's persistent stats); without them PostgreSQL plans for two rows. SQLite gathers its
    // own when the server opens the file (database.ts).
    if (dialect === 'postgres') await sql`analyze`.execute(db);
    if (dialect === 'mysql')
      await sql`analyze table ${sql.table('commande')}, ${sql.table('societe')}, ${sql.table('user')}, ${sql.table('user_rights')}, ${sql.table('bericht')}, ${sql.table('bericht_page')}, ${sql.table('element_contact')}, ${sql.table('c_type_contact')}, ${sql.table('actioncomm')}, ${sql.table('actioncomm_resources')}, ${sql.table('c_actioncomm')}`.execute(
        db,
      );
    return {
      adminLogin: `bench_admin_${tag}`,
      techLogin: `bench_tech_${tag}`,
      adminId,
      techId,
      techOrders,
      techAssigned: { byContact: byContact.length, byAgenda: byAgenda.length },
      orderRef: order.ref,
      orderId: Number(order.rowid),
    };
  } finally {
    await handle.destroy();
  }
}
