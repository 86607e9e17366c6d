/**
 * Test data written the way Dolibarr writes it: users with bcrypt `$2y$` or legacy hashes,
 * rights granted directly or through a group, constants.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../src/config.js';
import type { DbHandle } from '../../src/db/database.js';
import { addProduct, addWarehouse, setStock, type NewProduct } from '../../src/demo/catalogue.js';
import { insertId, toDbDateTime } from '../../src/db/dialect.js';
import { recordPlannedEvent } from '../../src/dolibarr/agenda.js';
import { hashPassword } from '../../src/dolibarr/password.js';
import { RIGHTS_MODULE, type Right } from '../../src/dolibarr/rights.js';

export type HashKind = 'bcrypt' | 'md5' | 'sha1md5' | 'clear';

export interface NewUserOptions {
  login?: string;
  password?: string;
  /** How the password is stored. @default 'bcrypt' */
  hash?: HashKind;
  /** A pass_crypted value to store as it is (e.g. made by PHP). */
  passCrypted?: string;
  rights?: Right[];
  /** Rights given through a new group the user joins. */
  groupRights?: Right[];
  admin?: boolean;
  statut?: number;
  entity?: number;
  /** Entity of the user_rights / group rows. @default config.entity */
  rightsEntity?: number;
  firstname?: string | null;
  lastname?: string | null;
  email?: string | null;
  validFrom?: Date | null;
  validUntil?: Date | null;
}

export interface CreatedUser {
  id: number;
  login: string;
  password: string;
}

const md5 = (s: string) => createHash('md5').update(s).digest('hex');
const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');

export function createFactories(handle: DbHandle, config: Config, app: FastifyInstance) {
  const { db, dialect } = handle;

  async function rightIds(rights: Right[], entity: number): Promise<number[]> {
    const rows = await db
      .selectFrom('rights_def')
      .select(['id', 'perms'])
      .where('module', '=', RIGHTS_MODULE)
      .where('entity', '=', entity)
      .execute();
    return rights.map((r) => {
      const row = rows.find((x) => x.perms === r);
      if (!row) throw new Error(`right ${r} not registered for entity ${entity}`);
      return row.id;
    });
  }

  async function getConst(name: string): Promise<string> {
    const row = await db
      .selectFrom('const')
      .select('value')
      .where('name', '=', name)
      .where('entity', 'in', [0, config.entity])
      .orderBy('entity', 'desc')
      .executeTakeFirst();
    return row?.value ?? '';
  }

  async function setConst(name: string, value: string, entity = 0): Promise<void> {
    await db.deleteFrom('const').where('name', '=', name).where('entity', '=', entity).execute();
    await db.insertInto('const').values({ name, value, entity, type: 'chaine', visible: 0 }).execute();
  }

  async function user(options: NewUserOptions = {}): Promise<CreatedUser> {
    const login = options.login ?? `u_${randomBytes(4).toString('hex')}`;
    const password = options.password ?? `pw-${randomBytes(6).toString('hex')}`;
    const salt = await getConst('MAIN_SECURITY_SALT');
    let passCrypted: string | null = options.passCrypted ?? null;
    let pass: string | null = null;
    if (!options.passCrypted) {
      switch (options.hash ?? 'bcrypt') {
        case 'bcrypt':
          passCrypted = await hashPassword(password);
          break;
        case 'md5':
          passCrypted = md5(salt + password);
          break;
        case 'sha1md5':
          passCrypted = sha1(md5(salt + password));
          break;
        case 'clear':
          pass = password;
          break;
      }
    }
    const entity = options.entity ?? config.entity;
    const id = await insertId(
      dialect,
      db.insertInto('user').values({
        entity,
        login,
        pass,
        pass_crypted: passCrypted,
        admin: options.admin ? 1 : 0,
        statut: options.statut ?? 1,
        firstname: options.firstname === undefined ? 'Test' : options.firstname,
        lastname: options.lastname === undefined ? 'Nutzer' : options.lastname,
        email: options.email ?? null,
        datestartvalidity: options.validFrom ? toDbDateTime(options.validFrom) : null,
        dateendvalidity: options.validUntil ? toDbDateTime(options.validUntil) : null,
        datec: toDbDateTime(),
      }),
    );
    const rightsEntity = options.rightsEntity ?? config.entity;
    for (const fkId of await rightIds(options.rights ?? [], rightsEntity)) {
      await db.insertInto('user_rights').values({ entity: rightsEntity, fk_user: id, fk_id: fkId }).execute();
    }
    if (options.groupRights) {
      const groupId = await insertId(
        dialect,
        db.insertInto('usergroup').values({ nom: `g_${randomBytes(4).toString('hex')}`, entity: rightsEntity }),
      );
      for (const fkId of await rightIds(options.groupRights, rightsEntity)) {
        await db.insertInto('usergroup_rights').values({ entity: rightsEntity, fk_usergroup: groupId, fk_id: fkId }).execute();
      }
      await db.insertInto('usergroup_user').values({ entity: rightsEntity, fk_user: id, fk_usergroup: groupId }).execute();
    }
    return { id, login, password };
  }

  /** Logs in through the API and returns the token; fails the test on any other answer. */
  async function token(u: Pick<CreatedUser, 'login' | 'password'>): Promise<string> {
    const res = await app.inject({ method: 'POST', url: '/api/auth.php', payload: { login: u.login, password: u.password } });
    if (res.statusCode !== 200) throw new Error(`login of ${u.login} failed: ${res.statusCode} ${res.body}`);
    return res.json().token as string;
  }

  let seq = 0;
  const next = () => ++seq;

  /** A third party; a customer (client 1) unless told otherwise. */
  async function thirdParty(
    options: {
      name?: string;
      alias?: string | null;
      client?: number;
      fournisseur?: number;
      town?: string | null;
      email?: string | null;
      code?: string | null;
      entity?: number;
    } = {},
  ) {
    const n = next();
    const name = options.name ?? `Kunde ${n} ${randomBytes(2).toString('hex')}`;
    const id = await insertId(
      dialect,
      db.insertInto('societe').values({
        nom: name,
        name_alias: options.alias ?? null,
        entity: options.entity ?? config.entity,
        client: options.client ?? 1,
        fournisseur: options.fournisseur ?? 0,
        status: 1,
        code_client: options.code === undefined ? `CU-${randomBytes(4).toString('hex')}` : options.code,
        town: options.town ?? 'München',
        email: options.email ?? null,
        datec: toDbDateTime(),
      }),
    );
    return { id, name };
  }

  type Commercial = 'commande' | 'facture' | 'propal';
  /** Every kind of object a report, a contact or an event may hang off. */
  type Element = Commercial | 'fichinter';
  interface ObjectOptions {
    customer?: number;
    ref?: string;
    refClient?: string | null;
    /** fk_user_author */
    author?: number | null;
    valid?: number | null;
    modif?: number | null;
    status?: number;
    /** Unix seconds of the object's date. */
    date?: number;
    entity?: number;
  }
  const PREFIX: Record<Commercial, string> = { commande: 'CO', facture: 'FA', propal: 'PR' };

  /** An order, invoice or proposal, as Dolibarr writes one. */
  async function commercial(type: Commercial, options: ObjectOptions = {}) {
    const customer = options.customer ?? (await thirdParty()).id;
    const at = options.date ?? Math.floor(Date.now() / 1000);
    const ref =
      options.ref ??
      `${PREFIX[type]}${new Date(at * 1000).toISOString().slice(2, 7).replace('-', '')}-${String(next()).padStart(4, '0')}${randomBytes(2).toString('hex')}`;
    const common = {
      ref,
      entity: options.entity ?? config.entity,
      ref_client: options.refClient === undefined ? `Kd-${next()}` : options.refClient,
      fk_soc: customer,
      fk_statut: options.status ?? 1,
      fk_user_author: options.author ?? null,
      fk_user_valid: options.valid ?? null,
      fk_user_modif: options.modif ?? null,
      total_ht: 100,
      total_tva: 19,
      total_ttc: 119,
      tms: toDbDateTime(at),
    };
    const day = toDbDateTime(at).slice(0, 10);
    const query =
      type === 'commande'
        ? db.insertInto('commande').values({ ...common, date_creation: toDbDateTime(at), date_commande: day, date_valid: toDbDateTime(at) })
        : type === 'facture'
          ? db.insertInto('facture').values({ ...common, datec: toDbDateTime(at), datef: day, date_valid: toDbDateTime(at) })
          : db.insertInto('propal').values({ ...common, datec: toDbDateTime(at), datep: day, date_valid: toDbDateTime(at) });
    const id = await insertId(dialect, query);
    return { id, ref, customer, refClient: common.ref_client };
  }

  /**
   * An intervention, as Dolibarr's intervention card writes a validated one (Fichinter::create,
   * setValid): ref FI<yymm>-<n>, the planned days in `dateo`/`datee`, `duree` 0 until lines are added.
   */
  async function intervention(options: ObjectOptions & { description?: string; dateEnd?: number } = {}) {
    const customer = options.customer ?? (await thirdParty()).id;
    const at = options.date ?? Math.floor(Date.now() / 1000);
    const ref =
      options.ref ??
      `FI${new Date(at * 1000).toISOString().slice(2, 7).replace('-', '')}-${String(next()).padStart(4, '0')}${randomBytes(2).toString('hex')}`;
    const status = options.status ?? 1;
    const id = await insertId(
      dialect,
      db.insertInto('fichinter').values({
        ref,
        entity: options.entity ?? config.entity,
        ref_client: options.refClient === undefined ? `Kd-${next()}` : options.refClient,
        fk_soc: customer,
        fk_projet: 0,
        fk_contrat: 0,
        fk_statut: status,
        fk_user_author: options.author ?? null,
        fk_user_valid: status > 0 ? (options.valid ?? options.author ?? null) : null,
        fk_user_modif: options.modif ?? null,
        datec: toDbDateTime(at),
        date_valid: status > 0 ? toDbDateTime(at) : null,
        dateo: toDbDateTime(at).slice(0, 10),
        datee: toDbDateTime(options.dateEnd ?? at).slice(0, 10),
        duree: 0,
        description: options.description ?? 'Wartung der Anlage',
        note_public: null,
        note_private: null,
        model_pdf: 'soleil',
        last_main_doc: null,
        tms: toDbDateTime(at),
      }),
    );
    return { id, ref, customer, refClient: options.refClient ?? null };
  }

  /** A report row on an object (or a template without one). */
  async function report(options: {
    creator: number;
    elementType?: Element | null;
    element?: number | null;
    ref?: string;
    isTemplate?: boolean;
    status?: number;
    entity?: number;
  }) {
    const ref =
      options.ref ??
      `BR${new Date().toISOString().slice(2, 7).replace('-', '')}-${String(next()).padStart(4, '0')}${randomBytes(2).toString('hex')}`;
    const id = await insertId(
      dialect,
      db.insertInto('bericht').values({
        ref,
        entity: options.entity ?? config.entity,
        element_type: options.elementType === undefined ? 'commande' : options.elementType,
        fk_element: options.element ?? null,
        title: `Bericht ${ref}`,
        format: 'A4',
        orientation: 'portrait',
        status: options.status ?? 0,
        version: 1,
        is_template: options.isTemplate ? 1 : 0,
        template_label: options.isTemplate ? `Vorlage ${ref}` : null,
        fk_user_creat: options.creator,
        datec: toDbDateTime(),
      }),
    );
    return { id, ref };
  }

  /**
   * A user as an internal contact of an object, as Dolibarr's "Contacts/addresses" tab adds one
   * (CommonObject::add_contact: `element_contact` with statut 4, active, and the type's rowid).
   */
  async function internalContact(options: {
    type: Element;
    element: number;
    user: number;
    code?: string;
    statut?: number;
    source?: 'internal' | 'external';
  }) {
    const code = options.code ?? 'TECHNICIAN';
    const kind = await db
      .selectFrom('c_type_contact')
      .select('rowid')
      .where('element', '=', options.type)
      .where('source', '=', options.source ?? 'internal')
      .where('code', '=', code)
      .executeTakeFirst();
    if (!kind) throw new Error(`no ${options.source ?? 'internal'} contact type ${code} for ${options.type}`);
    return insertId(
      dialect,
      db.insertInto('element_contact').values({
        datecreate: toDbDateTime(),
        statut: options.statut ?? 4,
        element_id: options.element,
        fk_c_type_contact: kind.rowid,
        fk_socpeople: options.user,
      }),
    );
  }

  /**
   * An event in Dolibarr's agenda linked to an object, as its event card writes a planned one
   * (recordPlannedEvent: type AC_RDV unless told, `ref` its id, `percent` -1 unless told, the owner
   * in `fk_user_action` and as a 'user' resource, each attendee a 'user' resource).
   * `ownerAsResource: false` leaves the owner's resource row out (events written by other tools).
   */
  async function agendaEvent(options: {
    type: Element;
    element: number | null;
    owner: number | null;
    attendees?: number[];
    code?: string;
    ownerAsResource?: boolean;
    entity?: number;
    /** Unix seconds of the start. @default now */
    at?: number;
    /** The start and end as Dolibarr writes them (wall time where it is), instead of `at`. */
    datep?: string;
    datep2?: string | null;
    allDay?: boolean;
    socId?: number | null;
    location?: string;
    percent?: number;
    label?: string;
  }) {
    const at = toDbDateTime(options.at ?? Math.floor(Date.now() / 1000));
    return recordPlannedEvent(db, dialect, {
      entity: options.entity ?? config.entity,
      code: options.code ?? 'AC_RDV',
      label: options.label ?? `Termin ${next()}`,
      location: options.location ?? '',
      datep: options.datep ?? at,
      datep2: options.datep2 === undefined ? (options.datep ?? at) : options.datep2,
      allDay: options.allDay,
      percent: options.percent,
      socId: options.socId ?? null,
      elementType: options.type,
      elementId: options.element,
      authorId: options.owner,
      ownerId: options.owner,
      attendeeIds: options.attendees,
      ownerAsResource: options.ownerAsResource,
      datec: at,
    });
  }

  /** A product (or service) of the catalogue; its id and ref. */
  async function product(options: Partial<NewProduct> = {}) {
    const n = next();
    const ref = options.ref ?? `PRD-${n}-${randomBytes(2).toString('hex')}`;
    const id = await addProduct(db, dialect, { label: `Artikel ${n}`, price: 10, entity: config.entity, ...options, ref });
    return { id, ref };
  }

  /** A warehouse, given to `user` as his van (llx_user.fk_warehouse) when one is named; its id. */
  async function van(
    options: {
      user?: number;
      entity?: number;
      /** Product and quantity; for a product with lots, the quantity of each lot too. */
      stock?: Array<[product: number, qty: number, lots?: Array<[batch: string, qty: number]>]>;
    } = {},
  ) {
    const entity = options.entity ?? config.entity;
    const id = await addWarehouse(db, dialect, { ref: `Fahrzeug ${next()}`, entity });
    if (options.user !== undefined) await db.updateTable('user').set({ fk_warehouse: id }).where('rowid', '=', options.user).execute();
    for (const [p, qty, lots] of options.stock ?? []) await setStock(db, p, id, qty, lots, entity);
    return id;
  }

  return {
    user,
    token,
    product,
    van,
    setConst,
    getConst,
    thirdParty,
    order: (options?: ObjectOptions) => commercial('commande', options),
    invoice: (options?: ObjectOptions) => commercial('facture', options),
    proposal: (options?: ObjectOptions) => commercial('propal', options),
    intervention,
    report,
    internalContact,
    agendaEvent,
  };
}

export type Factories = ReturnType<typeof createFactories>;
