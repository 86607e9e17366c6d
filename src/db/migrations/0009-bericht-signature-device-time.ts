/**
 * The moment of signing by the phone's clock, beside the server's (`datec`): a signature made
 * offline reaches the service minutes or hours after the customer signed. The sealed metadata JSON
 * holds the proof; these columns let lists and pages show the device's time without reading
 * files. All nullable: signatures made before (and those sent without a device time) have none.
 * - `signed_at_device`: the instant the phone gave, in UTC like the module's other date-times;
 * - `signed_at_device_zone`: the phone's IANA time zone (Europe/Berlin), when it sent one;
 * - `device_time_plausible`: 1, or 0 when the phone's time was more than 5 minutes after the
 *   server's or more than 30 days before it (kept and marked, never refused).
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../../config.js';
import { columnTypes } from '../dialect.js';

export function berichtSignatureDeviceTime(dialect: Dialect, prefix: string) {
  const ty = columnTypes(dialect);
  return {
    async up(db: Kysely<any>): Promise<void> {
      // Only the columns missing: MariaDB/MySQL's DDL is not transactional, so a run cut short may
      // be repeated. One statement per column, as SQLite adds one column at a time.
      const table = (await db.introspection.getTables()).find((t) => t.name === `${prefix}bericht_signature`);
      const present = new Set(table?.columns.map((c) => c.name) ?? []);
      const columns = [
        ['signed_at_device', ty.datetime],
        ['signed_at_device_zone', 'varchar(64)'],
        ['device_time_plausible', ty.smallint],
      ] as const;
      for (const [name, type] of columns) {
        if (!present.has(name)) await db.schema.alterTable('bericht_signature').addColumn(name, type).execute();
      }
    },
  };
}
