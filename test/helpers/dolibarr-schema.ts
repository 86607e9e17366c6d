/**
 * A database as a real Dolibarr install has it before our module comes, made by hand: Dolibarr's
 * own user, rights and const tables with Dolibarr's column names (plus a column of a newer version
 * we do not know). Its llx_user is an older Dolibarr's: it lacks the optional columns
 * datestartvalidity, dateendvalidity and flagdelsessionsbefore, but has every column the user
 * repository always reads.
 */
import { sql } from 'kysely';
import type { DatabaseConfig, Dialect } from '../../src/config.js';
import { createDb, type DbHandle } from '../../src/db/database.js';

/** Columns of the hand-made llx_user that the user repository always selects. */
export const DOLIBARR_USER_REQUIRED_COLUMNS = [
  'rowid',
  'entity',
  'login',
  'pass',
  'pass_crypted',
  'admin',
  'statut',
  'lastname',
  'firstname',
  'email',
  'fk_soc',
] as const;

/** Columns of newer Dolibarr versions the hand-made llx_user leaves out. */
export const DOLIBARR_USER_ABSENT_COLUMNS = ['datestartvalidity', 'dateendvalidity', 'flagdelsessionsbefore'] as const;

/** The tables makeDolibarrTables creates, without prefix. */
export const DOLIBARR_SCHEMA_TABLES = [
  'user',
  'rights_def',
  'const',
  'user_rights',
  'usergroup',
  'usergroup_rights',
  'usergroup_user',
] as const;

/** The column type of an auto-increment primary key in this dialect, for hand-made tables. */
export function autoId(dialect: Dialect): string {
  if (dialect === 'postgres') return 'serial PRIMARY KEY';
  if (dialect === 'mysql') return 'integer AUTO_INCREMENT PRIMARY KEY';
  return 'integer PRIMARY KEY AUTOINCREMENT';
}

export interface DolibarrSchemaOptions {
  /** @default 'llx_' */
  prefix?: string;
  /**
   * Also write what an install holds: another module's right on the id our 'read' right would
   * take, an invoice right, a user 'doliadmin' (extra_col 'keep me') and a constant.
   * @default true
   */
  rows?: boolean;
}

/** Creates Dolibarr's tables (see the file comment) on `handle`'s database. */
export async function makeDolibarrTables(handle: DbHandle, options: DolibarrSchemaOptions = {}): Promise<void> {
  const prefix = options.prefix ?? 'llx_';
  const { dialect } = handle;
  const id = autoId(dialect);
  const tableOptions = dialect === 'mysql' ? ' ENGINE=InnoDB' : ''; // the database's character set, as Dolibarr's installer
  const run = (text: string) => sql.raw(text).execute(handle.db);

  await run(`CREATE TABLE ${prefix}user (
    rowid ${id},
    entity integer NOT NULL DEFAULT 1,
    login varchar(50) NOT NULL,
    pass varchar(128),
    pass_crypted varchar(128),
    pass_temp varchar(128),
    admin smallint DEFAULT 0,
    statut smallint DEFAULT 1,
    lastname varchar(50),
    firstname varchar(50),
    email varchar(255),
    fk_soc integer,
    datec ${dialect === 'postgres' ? 'timestamp' : 'datetime'},
    extra_col varchar(32) DEFAULT 'dolibarr'
  )${tableOptions}`);
  await run(`CREATE UNIQUE INDEX uk_${prefix}user_login ON ${prefix}user (login, entity)`);

  await run(`CREATE TABLE ${prefix}rights_def (
    id integer NOT NULL,
    entity integer NOT NULL DEFAULT 1,
    libelle varchar(255),
    module varchar(64),
    module_position integer NOT NULL DEFAULT 0,
    family_position integer NOT NULL DEFAULT 0,
    perms varchar(50),
    subperms varchar(50),
    type varchar(1),
    bydefault smallint DEFAULT 0,
    PRIMARY KEY (id, entity)
  )${tableOptions}`);

  await run(`CREATE TABLE ${prefix}const (
    rowid ${id},
    name varchar(180) NOT NULL,
    entity integer NOT NULL DEFAULT 1,
    value text NOT NULL,
    type varchar(64) DEFAULT 'string',
    visible smallint NOT NULL DEFAULT 1,
    note text
  )${tableOptions}`);
  await run(`CREATE UNIQUE INDEX uk_${prefix}const ON ${prefix}const (name, entity)`);

  // Rights held by users and groups, as Dolibarr's llx_user_rights, llx_usergroup* tables.
  await run(`CREATE TABLE ${prefix}user_rights (
    rowid ${id},
    entity integer NOT NULL DEFAULT 1,
    fk_user integer NOT NULL,
    fk_id integer NOT NULL
  )${tableOptions}`);
  await run(`CREATE UNIQUE INDEX uk_${prefix}user_rights ON ${prefix}user_rights (entity, fk_user, fk_id)`);
  await run(`CREATE TABLE ${prefix}usergroup (
    rowid ${id},
    nom varchar(180) NOT NULL,
    entity integer NOT NULL DEFAULT 1,
    note text
  )${tableOptions}`);
  await run(`CREATE UNIQUE INDEX uk_${prefix}usergroup_name ON ${prefix}usergroup (nom, entity)`);
  await run(`CREATE TABLE ${prefix}usergroup_rights (
    rowid ${id},
    entity integer NOT NULL DEFAULT 1,
    fk_usergroup integer NOT NULL,
    fk_id integer NOT NULL
  )${tableOptions}`);
  await run(`CREATE UNIQUE INDEX uk_${prefix}usergroup_rights ON ${prefix}usergroup_rights (entity, fk_usergroup, fk_id)`);
  await run(`CREATE TABLE ${prefix}usergroup_user (
    rowid ${id},
    entity integer NOT NULL DEFAULT 1,
    fk_user integer NOT NULL,
    fk_usergroup integer NOT NULL
  )${tableOptions}`);
  await run(`CREATE UNIQUE INDEX uk_${prefix}usergroup_user ON ${prefix}usergroup_user (entity, fk_user, fk_usergroup)`);

  if (options.rows === false) return;
  await run(`INSERT INTO ${prefix}rights_def (id, entity, libelle, module, module_position, family_position, perms, subperms, type, bydefault)
    VALUES (43610001, 1, 'Read the other things', 'othermodule', 100, 0, 'read', NULL, 'r', 0)`);
  await run(`INSERT INTO ${prefix}rights_def (id, entity, libelle, module, module_position, family_position, perms, subperms, type, bydefault)
    VALUES (11, 1, 'Read invoices', 'facture', 10, 0, 'lire', NULL, 'r', 1)`);
  await run(
    `INSERT INTO ${prefix}user (entity, login, pass_crypted, admin, statut, extra_col) VALUES (1, 'doliadmin', NULL, 1, 1, 'keep me')`,
  );
  await run(
    `INSERT INTO ${prefix}const (name, entity, value, type, visible) VALUES ('MAIN_VERSION_LAST_INSTALL', 0, '18.0.4', 'chaine', 0)`,
  );
}

/** makeDolibarrTables on a database given by its settings, through a connection of its own. */
export async function makeDolibarrDatabase(database: DatabaseConfig, options: DolibarrSchemaOptions = {}): Promise<void> {
  const handle = createDb({ database, dbPrefix: options.prefix ?? 'llx_' }, { poolSize: 1 });
  try {
    await makeDolibarrTables(handle, options);
  } finally {
    await handle.destroy();
  }
}
