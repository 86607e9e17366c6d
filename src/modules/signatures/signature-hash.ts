/**
 * The hash a signature covers (spec: SHA-256 over all pages before the signature plus the report
 * ref). Its canonical byte form, version `fieldreport-pages/1`, is the canonical JSON (keys sorted,
 * no whitespace, UTF-8; see seal.ts) of
 *
 *   { "form": "fieldreport-pages/1", "report": "<report ref>",
 *     "pages": [ { "position": 1, "layout": "photo", "title": "…" | null, "note": "…" | null,
 *                  "rotation": 0, "image": "<SHA-256 hex of the image file's bytes>" | null,
 *                  "image_2": "<…>" | null }, … ] }
 *
 * with the pages in report order. A page's image that is named but missing hashes as "missing".
 * Version `fieldreport-pages/2` is the same with checklists: the form says `fieldreport-pages/2`, and
 * a checklist page (layout `checklist`) has one more key, `"checklist"`: its items in order, each
 * `{ position, label, unit, lower, upper, state, value, note, photos: [{ path, sha256 }] }`
 * (checklist.ts, hashedItems). Pages without a checklist page keep version 1 and hash as they
 * always did, so every signature made before checklists existed still verifies.
 * So swapping two pages, editing a title or note, turning an image, replacing an image file or
 * changing the report's ref each change the hash. An earlier signature page is a page like any
 * other (its composite image holds that signature's own hash): signatures form a chain.
 */
import { createHash } from 'node:crypto';
import { hashFile } from '../../adapters/file-store.js';
import { canonicalJson } from './seal.js';
import { hashedItems, readItems } from '../reports/checklist.js';

export const HASH_FORM = 'fieldreport-pages/1';
export const HASH_FORM_CHECKLISTS = 'fieldreport-pages/2';

/** The form of the hash over `pages`: version 2 when one of them is a checklist. */
export const hashFormOf = (pages: readonly Pick<HashedPage, 'layout'>[]): string => (pages.some((p) => p.layout === 'checklist') ? HASH_FORM_CHECKLISTS : HASH_FORM);

export interface HashedPage {
  layout: string;
  title: string | null;
  note: string | null;
  rotation: number;
  source_path: string | null;
  source_path_2: string | null;
  /** A checklist page's items (JSON); absent or null on other pages. */
  checklist?: string | null;
}

/** SHA-256 hex of a file's bytes, streamed. */
export const fileSha256 = (file: string): Promise<string> => hashFile(file, 'sha256');

/**
 * The hash over `pages` of report `ref`. `digest` gives the SHA-256 of an image named by a
 * `source_path`, or undefined when the file is missing.
 */
export async function pagesHash(ref: string, pages: readonly HashedPage[], digest: (relPath: string) => Promise<string | undefined>): Promise<string> {
  const image = async (relPath: string | null) => (relPath ? ((await digest(relPath)) ?? 'missing') : null);
  // One file at a time: a report may have a thousand pages of several megabytes each.
  const hashed = [];
  for (const [index, page] of pages.entries()) {
    hashed.push({
      position: index + 1,
      layout: page.layout,
      title: page.title,
      note: page.note,
      rotation: Number(page.rotation),
      image: await image(page.source_path),
      image_2: await image(page.source_path_2),
      ...(page.layout === 'checklist' ? { checklist: await hashedItems(readItems(page.checklist), async (p) => (await image(p))!) } : {}),
    });
  }
  const form = { form: hashFormOf(pages), report: ref, pages: hashed };
  return createHash('sha256').update(canonicalJson(form), 'utf8').digest('hex');
}
