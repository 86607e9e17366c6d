/**
 * Dolibarr's file index (`llx_ecm_files`) conventions: `ref` is md5(MAIN_SECURITY_SALT + filepath
 * + '/' + filename) (dol_hash type md5 adds the salt), `label` is the md5 of the file's content,
 * `filepath` is relative to the data root, with the entity folder for entities above 1.
 */
import { createHash } from 'node:crypto';

export function ecmFileRef(salt: string, filepath: string, filename: string): string {
  return createHash('md5').update(`${salt}${filepath}/${filename}`, 'utf8').digest('hex');
}

export function md5Hex(data: Buffer | string): string {
  return createHash('md5').update(data).digest('hex');
}

/** The documents root of an entity: DATA_ROOT, or DATA_ROOT/<entity> above entity 1. */
export function entityRoot(dataRoot: string, entity: number): string {
  return entity > 1 ? `${dataRoot.replace(/\/+$/, '')}/${entity}` : dataRoot;
}

/** ecm_files.filepath of an object folder such as `commande/CO2401-0001`. */
export function ecmFilepath(entity: number, relDir: string): string {
  return entity > 1 ? `${entity}/${relDir}` : relDir;
}
