/** The person's choices on this phone, kept in IndexedDB. */
import { db } from './db';

export const settings = $state({
  /** Send photos as taken (for companies that want the originals) instead of reduced to 2,560 px. */
  sendOriginals: false,
});

export async function loadSettings(): Promise<void> {
  const stored = await (await db()).get('settings', 'sendOriginals');
  settings.sendOriginals = stored === true;
}

export async function setSendOriginals(value: boolean): Promise<void> {
  settings.sendOriginals = value;
  await (await db()).put('settings', value, 'sendOriginals');
}
