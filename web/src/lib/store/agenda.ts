/**
 * The technician's appointments (GET /api/agenda.php: today and the next 6 days where Dolibarr
 * is), through the cache like every read (`agenda`): offline, the last answer is shown. The orders
 * and interventions they are linked to are kept for offline with the open orders (lib/store/offline-orders).
 */
import { api, unwrap } from '../../api/client';
import type { AgendaList, Appointment } from '../../api/types';
import { readCache, readThrough } from './cache';

export function loadAgenda(init: { priority?: RequestPriority; signal?: AbortSignal } = {}): Promise<AgendaList> {
  return unwrap(api.GET('/api/agenda.php', { ...init, params: { query: {} } })) as Promise<AgendaList>;
}

export function readAgenda(show: (list: AgendaList, fromCache: boolean) => void): Promise<void> {
  return readThrough('agenda', () => loadAgenda(), show);
}

export async function cachedAgenda(): Promise<AgendaList | undefined> {
  return (await readCache<AgendaList>('agenda'))?.value;
}

export interface AppointmentDay {
  /** The phone's local day, `YYYY-MM-DD`. */
  day: string;
  items: Appointment[];
}

/** `YYYY-MM-DD` of a moment in the phone's local time. */
export function localDay(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/**
 * The appointments by day, in time order, from today on: one that began before today and lasts
 * into it is today's (the service gives it for the first day). Days without one are left out.
 */
export function byDay(items: readonly Appointment[], now = Date.now()): AppointmentDay[] {
  const today = localDay(now);
  const days = new Map<string, Appointment[]>();
  for (const item of [...items].sort((a, b) => a.start - b.start || a.id - b.id)) {
    // An end at midnight belongs to the day before.
    const end = item.end && item.end > item.start ? item.end - 1 : item.start;
    if (localDay(end * 1000) < today) continue;
    const start = localDay(item.start * 1000);
    const day = start < today ? today : start;
    (days.get(day) ?? days.set(day, []).get(day)!).push(item);
  }
  return [...days].map(([day, list]) => ({ day, items: list }));
}
