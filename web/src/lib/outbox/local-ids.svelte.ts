/**
 * What the service called the things made on the phone: a report, page or photo made offline is
 * known by the id of the outbox record that makes it (records.ts, Ref) until the service answered; then
 * this map gives its id (a page, a report) or its file name (a photo). Records waiting behind it,
 * and screens showing it, look it up here. Kept in IndexedDB (small, never shown, kept over a
 * logout: a record of the last user may still wait for it).
 */
import { db } from '../store/db';
import type { PhotoRef, Ref } from './records';

const KEY = 'local-ids';
/** An entry older than this is of no use: no record waits that long. */
const KEEP_MS = 60 * 24 * 3600_000;

/** Reactive: a screen showing a local ref sees its service id as soon as it is learnt. */
const known: Record<string, { value: number | string; at: number }> = $state({});
let loaded: Promise<void> | undefined;

export function loadLocalIds(): Promise<void> {
  loaded ??= db()
    .then((d) => d.get('settings', KEY))
    .then((stored) => {
      for (const [local, entry] of Object.entries((stored as typeof known | undefined) ?? {})) known[local] ??= entry;
    });
  return loaded;
}

/**
 * Remembers what the service made of local refs (a report and its template pages, a page, a photo).
 * Read, merged and written in one transaction: another tab of the app may have learnt others.
 */
export async function learn(entries: Record<string, number | string>): Promise<void> {
  await loadLocalIds();
  const now = Date.now();
  const tx = (await db()).transaction('settings', 'readwrite');
  const stored = { ...((await tx.store.get(KEY)) as typeof known | undefined) };
  for (const [local, value] of Object.entries(entries)) stored[local] = { value, at: now };
  for (const [local, entry] of Object.entries(stored)) if (now - entry.at > KEEP_MS) delete stored[local];
  await tx.store.put(stored, KEY);
  await tx.done;
  for (const [local, entry] of Object.entries(stored)) known[local] ??= entry;
  for (const [local, value] of Object.entries(entries)) known[local] = { value, at: now };
}

/** Reads again what other tabs of the app learnt (a ref not known here may be known there). */
export async function refreshLocalIds(): Promise<void> {
  const stored = (await (await db()).get('settings', KEY)) as typeof known | undefined;
  for (const [local, entry] of Object.entries(stored ?? {})) known[local] ??= entry;
}

/** The service's id of a ref, if it has one yet. */
export function serverId(ref: Ref): number | undefined {
  if (typeof ref === 'number') return ref;
  const value = known[ref]?.value;
  return typeof value === 'number' ? value : undefined;
}

/** The file name a photo ref has at the service, if it has one yet. */
export function photoName(ref: PhotoRef): string | undefined {
  if ('name' in ref) return ref.name;
  const value = known[ref.record]?.value;
  return typeof value === 'string' ? value : undefined;
}

/** Two refs name the same thing (one may be local, the other the service's id). */
export function sameRef(a: Ref, b: Ref): boolean {
  if (a === b) return true;
  const x = serverId(a);
  return x !== undefined && x === serverId(b);
}
