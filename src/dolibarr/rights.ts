/**
 * The module's rights as Dolibarr knows them: rows of `rights_def` with module 'bericht', and how
 * Dolibarr's perms names map to ours (hasRight() treats lire≡read, creer/create≡write,
 * supprimer≡delete). Ids follow the ModuleBuilder rule: module number, then a two-digit counter.
 */
export const RIGHTS_MODULE = 'bericht';
export const MODULE_NUMBER = 436100;

export type Right = 'read' | 'write' | 'delete' | 'admin';
export const RIGHTS: readonly Right[] = ['read', 'write', 'delete', 'admin'];

export const RIGHT_DEFINITIONS: ReadonlyArray<{ right: Right; id: number; label: string; type: string }> = [
  { right: 'read', id: MODULE_NUMBER * 100 + 1, label: 'Berichte lesen', type: 'r' },
  { right: 'write', id: MODULE_NUMBER * 100 + 2, label: 'Berichte erstellen und ändern', type: 'w' },
  { right: 'delete', id: MODULE_NUMBER * 100 + 3, label: 'Berichte löschen', type: 'd' },
  { right: 'admin', id: MODULE_NUMBER * 100 + 4, label: 'Berichte verwalten (Vorlagen, finale Berichte löschen)', type: 'a' },
];

const ALIASES: Readonly<Record<string, Right>> = {
  read: 'read',
  lire: 'read',
  write: 'write',
  creer: 'write',
  create: 'write',
  delete: 'delete',
  supprimer: 'delete',
  admin: 'admin',
};

/** Our right for a Dolibarr `perms` value, or undefined for perms we do not use. */
export function rightFromPerms(perms: string | null): Right | undefined {
  return perms ? ALIASES[perms.toLowerCase()] : undefined;
}

export type Perms = Record<Right, boolean>;

export function permsFrom(rights: Iterable<Right>): Perms {
  const set = new Set(rights);
  return { read: set.has('read'), write: set.has('write'), delete: set.has('delete'), admin: set.has('admin') };
}
