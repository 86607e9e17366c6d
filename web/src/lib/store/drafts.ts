/**
 * What a person typed and did not save yet (a defect's note and its photos, the reason for an "OK
 * trotz Grenzwert"), kept on the phone as it is typed: leaving the screen (to take a photo, to
 * answer a call) loses nothing, and the form opens again as it was left. Saved or cancelled, the
 * draft goes. Kept per person, beside the settings; a phone that cannot store it still works as
 * before (the form just is not kept).
 */
import { db } from './db';

const PREFIX = 'draft:';

export async function readDraft<T>(key: string): Promise<T | undefined> {
  try {
    return (await (await db()).get('settings', PREFIX + key)) as T | undefined;
  } catch {
    return undefined;
  }
}

export async function writeDraft(key: string, value: unknown): Promise<void> {
  try {
    await (await db()).put('settings', value, PREFIX + key);
  } catch {
    // Storage full or gone: the form on screen still holds it.
  }
}

export async function dropDraft(key: string): Promise<void> {
  try {
    await (await db()).delete('settings', PREFIX + key);
  } catch {
    // Nothing to drop.
  }
}
