/**
 * Compiled queries kept by a key that determines them. Building a query with Kysely and compiling
 * it (the table prefix walks the whole tree) costs about as much as SQLite takes to run a short
 * one, and a phone asks for the same list page again and again. Only for queries that are a pure
 * function of their key and of what stays fixed while the process runs (prefix, entity, the
 * columns found at start).
 */

import { BoundedMap } from '../bounded-map.js';

/** Compiled queries kept per cache; the oldest goes first. @default 1024 */
export const KEPT_QUERIES = 1024;

export type CompiledCache<T> = (key: string, compile: () => T) => T;

export function createCompiledCache<T>(size = KEPT_QUERIES): CompiledCache<T> {
  const kept = new BoundedMap<string, T>(size);
  return (key, compile) => {
    let found = kept.get(key);
    if (found === undefined) kept.set(key, (found = compile()));
    return found;
  };
}
