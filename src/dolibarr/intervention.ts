/**
 * An intervention (module Interventions, `llx_fichinter`) and its lines, written as Dolibarr 22's
 * own PHP writes them (fichinter/class/fichinter.class.php and fichinterligne.class.php; the rows
 * kept in test/fixtures/dolibarr22/intervention.json, docs/dolibarr-writes.md):
 *
 * - `Fichinter::create` from an order (its card's "add" with the origin): a draft (`fk_statut` 0)
 *   of the order's customer and project, `datec` now, the author as author and last modifier,
 *   `model_pdf` the module's FICHEINTER_ADDON_PDF, `signed_status` 0, contract 0, empty texts as
 *   NULL, then `ref` '(PROV<id>)' and the link order → intervention in `llx_element_element`;
 * - `Fichinter::addline`: a line with its date, text and seconds (`rang` 0, as addline leaves it),
 *   then the intervention's `duree` as the sum of its lines and `dateo`/`datee` as their first and
 *   last day (`FichinterLigne::update_total`);
 * - the card's "sign" action: `signed_status`.
 *
 * `tms` is the database's clock, as MariaDB's ON UPDATE and PostgreSQL's trigger set it in Dolibarr.
 */
import { sql } from 'kysely';
import type { Dialect } from '../config.js';
import type { Db } from '../db/database.js';
import { forUpdate, insertId } from '../db/dialect.js';

const NOW = sql<string>`current_timestamp`;

/** Dolibarr's signed states (CommonSignedObject): 2 is the customer's signature (SignedReceiver). */
export const SIGNED_BY_CUSTOMER = 2;

export interface NewIntervention {
  entity: number;
  socId: number;
  projectId: number | null;
  userId: number;
  description: string;
  modelPdf: string;
  /** Dolibarr's wall time of its creation ('YYYY-MM-DD HH:MM:SS'). */
  datec: string;
  /** The key it is found again by (`ref_ext`). */
  refExt: string;
  origin: { type: string; id: number };
}

/** Makes the draft; its id and ref. */
export async function createIntervention(trx: Db, dialect: Dialect, fi: NewIntervention): Promise<{ id: number; ref: string }> {
  const id = await insertId(
    dialect,
    trx.insertInto('fichinter').values({
      fk_soc: fi.socId,
      datec: fi.datec,
      ref: '',
      ref_client: null,
      entity: fi.entity,
      fk_user_author: fi.userId,
      fk_user_modif: fi.userId,
      description: fi.description || null,
      model_pdf: fi.modelPdf,
      fk_projet: fi.projectId && fi.projectId > 0 ? fi.projectId : 0,
      fk_contrat: 0,
      fk_statut: 0,
      signed_status: 0,
      note_private: null,
      note_public: null,
      tms: NOW,
    }),
  );
  const ref = `(PROV${id})`;
  await trx.updateTable('fichinter').set({ ref, ref_ext: fi.refExt }).where('rowid', '=', id).execute();
  await trx
    .insertInto('element_element')
    .values({ fk_source: fi.origin.id, sourcetype: fi.origin.type, fk_target: id, targettype: 'fichinter' })
    .execute();
  return { id, ref };
}

/** Adds lines (date as Dolibarr's wall time, seconds) and sets the intervention's totals as update_total does. */
export async function addInterventionLines(
  trx: Db,
  dialect: Dialect,
  fichinter: number,
  lines: ReadonlyArray<{ date: string; description: string; seconds: number }>,
): Promise<void> {
  for (const line of lines)
    await trx
      .insertInto('fichinterdet')
      .values({ fk_fichinter: fichinter, description: line.description, date: line.date, duree: Math.trunc(line.seconds), rang: 0 })
      .execute();
  // Every line, locked: a locking read sees what committed after the transaction's snapshot (MariaDB).
  const query = trx.selectFrom('fichinterdet').select(['duree', 'date']).where('fk_fichinter', '=', fichinter);
  const all = await forUpdate(dialect, query).execute();
  // dateo and datee are dates: the day of the first and the last line.
  const days = all
    .map((l) => l.date)
    .filter((d): d is string => d !== null)
    .map((d) => (typeof d === 'string' ? d : dayOf(d as unknown as Date)).replace('T', ' ').slice(0, 10))
    .sort();
  await trx
    .updateTable('fichinter')
    .set({
      duree: Math.trunc(all.reduce((n, l) => n + Number(l.duree ?? 0), 0)),
      dateo: days[0] ?? null,
      datee: days.at(-1) ?? null,
      tms: NOW,
    })
    .where('rowid', '=', fichinter)
    .execute();
}

/** A Date read from a timestamp column holding a wall time: its calendar day as written. */
function dayOf(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** Sets the signed state, as the card's "sign" action. */
export async function setInterventionSigned(trx: Db, fichinter: number, status: number): Promise<void> {
  await trx.updateTable('fichinter').set({ signed_status: status, tms: NOW }).where('rowid', '=', fichinter).execute();
}
