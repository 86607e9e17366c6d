/** The person's choices on this phone, kept in IndexedDB. */
import { db } from '../store/db';

export const settings = $state({
  /** Send photos as taken (for companies that want the originals) instead of reduced to 2,560 px. */
  sendOriginals: false,
  /** How many open orders the phone keeps readable offline (lib/store/offline-orders). */
  keepOrders: 100,
  /** At most this many products and services of the catalogue kept on the phone (lib/store/catalogue). */
  catalogueMax: 20_000,
  /**
   * Send the phone's position with each photo taken with the camera (lib/photos/capture), for the person
   * logged in (`photoPositionUser`): each person decides for themselves, and it is off unless they
   * switch it on (the position is printed in the customer's report).
   * @default false
   */
  photoPosition: false,
  /** Whose choice `photoPosition` is (a user id; 0 before it is read). */
  photoPositionUser: 0,
});

/** The choices for `keepOrders`. */
export const KEEP_ORDERS_CHOICES = [25, 50, 100, 200] as const;

/** The choices for `catalogueMax`. */
export const CATALOGUE_MAX_CHOICES = [5_000, 20_000, 50_000] as const;

export async function loadSettings(): Promise<void> {
  const store = await db();
  const [originals, keep, catalogueMax] = await Promise.all([
    store.get('settings', 'sendOriginals'),
    store.get('settings', 'keepOrders'),
    store.get('settings', 'catalogueMax'),
  ]);
  settings.sendOriginals = originals === true;
  if ((KEEP_ORDERS_CHOICES as readonly unknown[]).includes(keep)) settings.keepOrders = keep as number;
  if ((CATALOGUE_MAX_CHOICES as readonly unknown[]).includes(catalogueMax)) settings.catalogueMax = catalogueMax as number;
}

export async function setCatalogueMax(value: number): Promise<void> {
  settings.catalogueMax = value;
  await (await db()).put('settings', value, 'catalogueMax');
}

export async function setKeepOrders(value: number): Promise<void> {
  settings.keepOrders = value;
  await (await db()).put('settings', value, 'keepOrders');
}

export async function setSendOriginals(value: boolean): Promise<void> {
  settings.sendOriginals = value;
  await (await db()).put('settings', value, 'sendOriginals');
}

/** Whether `userId` switched the position for photos on (read from the phone's store, and kept in `settings`). */
export async function loadPhotoPosition(userId: number): Promise<boolean> {
  const allowed = (await (await db()).get('settings', `photoPosition:${userId}`)) === true;
  settings.photoPosition = allowed;
  settings.photoPositionUser = userId;
  return allowed;
}

export async function setPhotoPosition(userId: number, value: boolean): Promise<void> {
  settings.photoPosition = value;
  settings.photoPositionUser = userId;
  await (await db()).put('settings', value, `photoPosition:${userId}`);
}
