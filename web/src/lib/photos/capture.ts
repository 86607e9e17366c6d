/**
 * When and where a photo was taken, by the phone, kept with the photo in the outbox and sent with it
 * (the service's photo evidence: `taken_at_device`, `gps_lat`/`gps_lon`), so a photo taken offline
 * tells it hours later.
 * - The time always goes: for a photo from the camera the moment it came back from the camera,
 *   for one from the gallery the file's own time where the phone gives one (the moment it was
 *   chosen says nothing about when it was taken).
 * - The position only when the person switched it on in the settings (off unless they do), and
 *   only for the camera (where the phone is now is not where an older photo was taken). It is
 *   asked for when the camera button is pressed, so it is there when the photo comes back; a
 *   position that is refused, fails or takes longer than a short wait is left out, and the photo is
 *   kept without it: the capture never waits on it.
 */
import { auth } from '../app/auth.svelte';
import type { PhotoCapture } from '../outbox/records';
import { deviceMoment } from '../reports/reports.svelte';
import { loadPhotoPosition } from '../app/settings.svelte';

/** How long the phone may look for its position (it starts when the camera opens). */
const POSITION_TIMEOUT_MS = 10_000;
/** A position this old is good enough (the technician is still on the site). */
const POSITION_MAX_AGE_MS = 60_000;
/** How long a photo back from the camera waits at most for a position still on its way. */
const POSITION_WAIT_MS = 3_000;

export type Source = 'camera' | 'gallery';

type Position = { lat: number; lon: number } | undefined;

/** The position asked for when the camera button was pressed, if the person allows it. */
let pending: Promise<Position> | undefined;

/** Asks the browser for the position; undefined when it is refused, fails or times out. */
function askPosition(): Promise<Position> {
  return new Promise((resolve) => {
    if (typeof navigator === 'undefined' || !('geolocation' in navigator)) return resolve(undefined);
    try {
      navigator.geolocation.getCurrentPosition(
        (position) => resolve({ lat: position.coords.latitude, lon: position.coords.longitude }),
        () => resolve(undefined),
        { enableHighAccuracy: true, timeout: POSITION_TIMEOUT_MS, maximumAge: POSITION_MAX_AGE_MS },
      );
    } catch {
      resolve(undefined);
    }
  });
}

/** The camera button was pressed: starts looking for the position when the person allows it. */
export function cameraOpened(): void {
  const user = auth.session?.user.id;
  pending =
    user === undefined
      ? undefined
      : loadPhotoPosition(user).then(
          (allowed) => (allowed ? askPosition() : undefined),
          () => undefined,
        );
}

/** The photos chosen with `source` came back: what the phone says of each one's capture. */
export async function captured(files: File[], source: Source): Promise<PhotoCapture[]> {
  const now = Date.now();
  let position: Position;
  if (source === 'camera' && pending) {
    const wait = new Promise<Position>((resolve) => setTimeout(() => resolve(undefined), POSITION_WAIT_MS));
    position = await Promise.race([pending, wait]);
  }
  pending = undefined;
  return files.map((file) => {
    const at = source === 'gallery' && file.lastModified > 0 && file.lastModified <= now ? file.lastModified : now;
    return { takenAt: deviceMoment(new Date(at)).signed_at_device!, ...(position ? { lat: position.lat, lon: position.lon } : {}) };
  });
}

/** Asks for the position once (the browser's prompt where it asks), when the person switches it on; whether it came. */
export async function tryPosition(): Promise<boolean> {
  return (await askPosition()) !== undefined;
}
