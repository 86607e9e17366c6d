/**
 * The hash a signature covers (docs/api-contract.md, Signatures: SHA-256 over all pages before
 * the signature plus the report ref). Its canonical byte form, version `fieldreport-pages/1`, is the canonical JSON (keys sorted,
 * no whitespace, UTF-8; see signing-key.ts) of
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
 * Version `fieldreport-pages/3` is version 2 with photo evidence (migration 0014, photo-evidence.ts):
 * the form says `fieldreport-pages/3`, and every page has two more keys, `"evidence"` and
 * `"evidence_2"`, for its `image` and `image_2`: null, or what the service recorded when it
 * received that photo,
 *
 *   { "sha256": "<hex of the bytes received>", "size": 123456, "received_at": <Unix seconds>,
 *     "exif_taken_at": "2026-11-24 09:12:33" | null, "exif_offset": "+01:00" | null,
 *     "exif_gps_lat": "48.1374300" | null, "exif_gps_lon": "11.5754900" | null,
 *     "taken_at_device": "2026-11-24T09:12:40.120+01:00" | null,
 *     "gps_lat": "48.1374300" | null, "gps_lon": "11.5754900" | null }
 *
 * (places as texts with seven decimals, the phone's time as it sent it). Evidence counts only for
 * the bytes it was recorded for: when its sha256 is not the image's (a file replaced outside the
 * service), the key is null. Version 3 is used when at least one page has evidence; pages without
 * any keep version 1 or 2, so every signature made before evidence was kept still verifies (its
 * check reads no evidence: the form the sealed metadata names decides).
 * Version `fieldreport-pages/4` is version 3 with what the customer was shown beside the pages
 * before signing (signoff.ts): the form says `fieldreport-pages/4`, every page has the evidence
 * keys (null without evidence), and there is one more top-level key, `"visit"`:
 *
 *   { "work": "…" | null, "times": [ { "arrival": <Unix s>, "departure": <Unix s> | null } ],
 *     "materials": [ { "label": "…", "qty": 2.5, "unit": "m" | null, "note": "…" | null } ] }
 *
 * (times by arrival, material lines as shown). It is used exactly when the signature came with a
 * sign-off; the sealed metadata keeps the sign-off, and the check hashes the visit it names.
 * So swapping two pages, editing a title or note, turning an image, replacing an image file or
 * changing the report's ref each change the hash. An earlier signature page is a page like any
 * other (its composite image holds that signature's own hash): signatures form a chain.
 */
import { createHash } from 'node:crypto';
import { hashFile } from '../../adapters/file-store.js';
import { canonicalJson } from './signing-key.js';
import { hashedItems, readItems } from '../pages/checklist.js';
import { HASH_FORM_VISIT, signedVisit, type SignedVisit } from './signoff.js';

export const HASH_FORM = 'fieldreport-pages/1';
export const HASH_FORM_CHECKLISTS = 'fieldreport-pages/2';
export const HASH_FORM_EVIDENCE = 'fieldreport-pages/3';

/** The form of the hash over `pages` without evidence: version 2 when one of them is a checklist. */
export const hashFormOf = (pages: readonly Pick<HashedPage, 'layout'>[]): string =>
  pages.some((p) => p.layout === 'checklist') ? HASH_FORM_CHECKLISTS : HASH_FORM;

/** A photo's evidence as the hash covers it (photo-evidence.ts, hashedEvidence). */
export type HashedEvidence = { sha256: string } & Record<string, string | number | null>;

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
export async function pagesHash(
  ref: string,
  pages: readonly HashedPage[],
  digest: (relPath: string) => Promise<string | undefined>,
): Promise<string> {
  return (await pagesDigest(ref, pages, digest)).hash;
}

/** The canonical byte form (canonical JSON, UTF-8) the hash is taken of, and its form; see the module comment. */
export async function pagesCanonical(
  ref: string,
  pages: readonly HashedPage[],
  digest: (relPath: string) => Promise<string | undefined>,
  evidence?: (relPath: string) => HashedEvidence | undefined,
  visit?: SignedVisit,
): Promise<{ canonical: string; form: string }> {
  const image = async (relPath: string | null) => (relPath ? ((await digest(relPath)) ?? 'missing') : null);
  /** The evidence of the image at `relPath` whose bytes hash to `sha256`; null without (or for other bytes). */
  const evidenceOf = (relPath: string | null, sha256: string | null): HashedEvidence | null => {
    const found = relPath && sha256 ? evidence?.(relPath) : undefined;
    return found && found.sha256 === sha256 ? found : null;
  };
  // One file at a time: a report may have a thousand pages of several megabytes each.
  const hashed = [];
  let withEvidence = false;
  for (const [index, page] of pages.entries()) {
    const [first, second] = [await image(page.source_path), await image(page.source_path_2)];
    const facts = [evidenceOf(page.source_path, first), evidenceOf(page.source_path_2, second)] as const;
    if (facts[0] || facts[1]) withEvidence = true;
    hashed.push({
      position: index + 1,
      layout: page.layout,
      title: page.title,
      note: page.note,
      rotation: page.rotation,
      image: first,
      image_2: second,
      ...(page.layout === 'checklist' ? { checklist: await hashedItems(readItems(page.checklist), async (p) => (await image(p))!) } : {}),
      evidence: facts[0],
      evidence_2: facts[1],
    });
  }
  // With a sign-off, form 4: the pages as form 3 has them, and the visit.
  if (visit)
    return {
      canonical: canonicalJson({ form: HASH_FORM_VISIT, report: ref, pages: hashed, visit: signedVisit(visit) }),
      form: HASH_FORM_VISIT,
    };
  // Without evidence, forms 1 and 2 exactly as they always were: no evidence keys.
  const form = withEvidence ? HASH_FORM_EVIDENCE : hashFormOf(pages);
  const body = withEvidence ? hashed : hashed.map(({ evidence: _e, evidence_2: _e2, ...page }) => page);
  return { canonical: canonicalJson({ form, report: ref, pages: body }), form };
}

/**
 * The hash over `pages` and the form it took. With `evidence` (a photo's recorded evidence by
 * path), pages whose images have evidence make it form 3; without, form 1 or 2 as always. With
 * `visit` (a sign-off's work, times and material), form 4.
 */
export async function pagesDigest(
  ref: string,
  pages: readonly HashedPage[],
  digest: (relPath: string) => Promise<string | undefined>,
  evidence?: (relPath: string) => HashedEvidence | undefined,
  visit?: SignedVisit,
): Promise<{ hash: string; form: string }> {
  const { canonical, form } = await pagesCanonical(ref, pages, digest, evidence, visit);
  return { hash: createHash('sha256').update(canonical, 'utf8').digest('hex'), form };
}
