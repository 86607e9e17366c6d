/**
 * The demo's logins as the start banner prints them, without what writes the demo data (sharp,
 * the cover sheet): the command line and the primary of `serve --workers N` load this only.
 */
import type { Db } from '../db/database.js';

/** Every demo user's password. */
export const DEMO_PASSWORD = 'demo';
/** The constant (llx_const) that names the demo's logins once the demo data is written. */
export const DEMO_MARKER = 'BERICHT_DEMO';

/** Logins of the demo users that can log in, when the database holds the demo. */
export async function demoLogins(db: Db): Promise<string[]> {
  const row = await db.selectFrom('const').select('value').where('name', '=', DEMO_MARKER).executeTakeFirst();
  return row ? row.value.split(',').filter(Boolean) : [];
}
