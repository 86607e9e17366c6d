/**
 * Photos taken or chosen for an order go into the outbox one after another (the order in which
 * they were taken), reduced on the phone and with when (and, if allowed, where) the phone took them.
 * Used by the order's capture buttons and by a checklist item's camera.
 */
import { enqueue } from '../outbox/outbox.svelte';
import type { PhotoRef } from '../outbox/records';
import { captured, type Source } from './capture';
import { preparePhoto } from './photo';

/**
 * Keeps `files` as photos of `order`; `done` is told after each one (kept or not). Answers the
 * photos kept (as their outbox records) and the names of those the phone could not keep (storage full).
 */
export async function keepPhotos(
  order: { id: number; ref: string },
  files: File[],
  source: Source,
  done: () => void = () => {},
): Promise<{ kept: PhotoRef[]; unsaved: string[] }> {
  const kept: PhotoRef[] = [];
  const unsaved: string[] = [];
  const captures = await captured(files, source);
  for (const [index, file] of files.entries()) {
    try {
      const { blob, name } = await preparePhoto(file);
      const record = await enqueue('photo', order, blob, { fileName: name, capture: captures[index] });
      kept.push({ record: record.id });
    } catch {
      unsaved.push(file.name);
    }
    done();
  }
  return { kept, unsaved };
}
