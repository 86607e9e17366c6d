/**
 * Reads Dolibarr constants (`llx_const`) as Dolibarr loads them: entity 0 and the served entity,
 * the entity's own value winning, every value passed through dolDecrypt.
 */
import type { Db } from '../db/database.js';
import { dolDecrypt } from './crypto.js';

export interface ConstRepository {
  /** Values of the named constants; names without a row are absent from the map. */
  getMany(names: readonly string[]): Promise<Map<string, string>>;
}

export function createConstRepository(db: Db, options: { entity: number; instanceUniqueId: string }): ConstRepository {
  return {
    async getMany(names) {
      if (names.length === 0) return new Map();
      const rows = await db
        .selectFrom('const')
        .select(['name', 'value', 'entity'])
        .where('name', 'in', names)
        .where('entity', 'in', [0, options.entity])
        .orderBy('entity', 'asc')
        .execute();
      const out = new Map<string, string>();
      for (const row of rows) out.set(row.name, dolDecrypt(row.value ?? '', options.instanceUniqueId));
      return out;
    },
  };
}

/** A Dolibarr on/off constant is on: set, not empty, not '0' (as getDolGlobalString(...) is truthy in PHP). */
export const constOn = (value: string | undefined): boolean => value !== undefined && value.trim() !== '' && value.trim() !== '0';
