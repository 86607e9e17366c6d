/**
 * The time zone Dolibarr writes its dates in, when TIME_ZONE does not say it: Dolibarr's constant
 * MAIN_SERVER_TZ (Setup, "server time zone"; conf.class.php sets PHP's zone from it unless it is
 * empty or `auto`), this entity's or entity 0's; else the process's zone, as PHP takes the
 * system's when its date.timezone is unset.
 */
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import { isTimeZone } from './time.js';

export const SERVER_TZ_CONST = 'MAIN_SERVER_TZ';

/** MAIN_SERVER_TZ for `entity` (its own row over entity 0's), when it names a zone. */
export async function dolibarrServerTimeZone(db: Db, entity: number): Promise<string | undefined> {
  const rows = await db
    .selectFrom('const')
    .select(['entity', 'value'])
    .where('name', '=', SERVER_TZ_CONST)
    .where('entity', 'in', [0, entity])
    .execute();
  const value = (rows.find((r) => Number(r.entity) === entity) ?? rows[0])?.value?.trim();
  return value && value !== 'auto' && isTimeZone(value) ? value : undefined;
}

/** `config` with the zone Dolibarr uses when TIME_ZONE did not name one. */
export async function withDolibarrTimeZone(config: Config, db: Db): Promise<Config> {
  if (config.timeZoneSet) return config;
  const zone = await dolibarrServerTimeZone(db, config.entity);
  return zone ? { ...config, timeZone: zone } : config;
}
