/**
 * What the report PDF is made of, as the service hands it over: pages with their images on disk,
 * the facts of the summary sheet and of each signature, every text already in the reader's terms
 * (dates formatted in the company's time zone, the zone named).
 */
import type { PdfImage } from './images.js';
import type { Orientation, PaperFormat, Rotation } from './kit.js';
import type { PdfLanguage } from './words.js';

/** Photo pages on one sheet: 1 (a sheet per page), 2 or 4 (compact). */
export type PhotosPerSheet = 1 | 2 | 4;
export const PHOTOS_PER_SHEET: readonly PhotosPerSheet[] = [1, 2, 4];

/** A signature's facts, printed as text beside its burned-in sheet. */
export interface SignatureFacts {
  signer: string;
  /** When the service received it, formatted with its zone. */
  receivedAt: string;
  /** When the customer signed by the phone's clock, formatted with its zone; null without one. */
  signedAtDevice: string | null;
  /** false: the phone's time is implausible (kept, and marked). */
  devicePlausible: boolean | null;
  pagesCovered: number | null;
  hash: string | null;
  verifyUrl: string | null;
}

export type CheckState = 'open' | 'ok' | 'defect' | 'na';

/** A checklist item as printed: numbers as recorded (formatted in the document's language when drawn). */
export interface ChecklistLine {
  /** Position on its checklist, from 1. */
  position: number;
  label: string;
  state: CheckState;
  value: number | null;
  unit: string | null;
  lower: number | null;
  upper: number | null;
  deviation: 'below' | 'above' | null;
  /** It counts as a defect: marked as one, or OK with a value outside its limits and no reason. */
  defect: boolean;
  /** "OK trotz Grenzwert": why it is OK with a value outside its limits. */
  okReason: string | null;
  note: string | null;
  /** The item's photos: the number of the photo page showing each ("Foto 3"), or its file name when no photo page shows it. */
  photos: Array<{ number: number | null; name: string }>;
}

/** An interval of time on site, its texts formatted in the company's time zone. */
export interface TimeRow {
  date: string;
  who: string;
  from: string;
  to: string;
  seconds: number;
  /** Entered or corrected by hand: the (last) reason. */
  manual: string | null;
  corrected: string | null;
  /** Not covered by the signature's sign-off: added or changed after signing. */
  notCovered?: boolean;
}

/** What is printed under a photo of when and where it was taken, each a line already worded; null for none. */
export interface PhotoCapture {
  when: string | null;
  where: string | null;
}

/**
 * One page of the report. A null image (or a file that has gone) draws a grey "Bild fehlt" box.
 * `notice`: a line set apart in the bottom margin of the sheet the page lands on (e.g. that a
 * signature does not cover it).
 */
export type PdfPage =
  /** `capture`, when given, is printed under the photo instead of "Aufgenommen `takenAt`". */
  (
    | {
        kind: 'photo';
        title: string | null;
        note: string | null;
        rotation: Rotation;
        image: PdfImage | null;
        takenAt?: string | null;
        capture?: PhotoCapture | null;
      }
    /** `captures`: under the before and the after image. */
    | {
        kind: 'before_after';
        title: string | null;
        note: string | null;
        rotation: Rotation;
        before: PdfImage | null;
        after: PdfImage | null;
        captures?: readonly [PhotoCapture | null, PhotoCapture | null];
      }
    | { kind: 'title_only'; title: string | null; note: string | null }
    /** A signature sheet: the burned-in image (drawn as it is), its facts as text. */
    | { kind: 'signature'; title: string | null; note: string | null; image: PdfImage | null; facts: SignatureFacts | null }
    /** A checklist: a table of its items (in the flow, over as many sheets as it takes). */
    | { kind: 'checklist'; title: string | null; note: string | null; items: ChecklistLine[] }
    /** Any other composite image, drawn as large as fits on a sheet of its own. */
    | { kind: 'image'; title: string | null; note: string | null; image: PdfImage | null }
  ) & { notice?: string | null };

/** A PDF whose pages go first (LibreOffice's rendering of the ODT cover sheet), or a plain page drawn here. */
export type PdfCover = { kind: 'pdf'; path: string } | { kind: 'builtin'; title: string; lines: string[] };

export interface MaterialLine {
  label: string;
  qty: number;
  unit: string | null;
  note: string | null;
  /** Not covered by the signature's sign-off: added or changed after signing. */
  notCovered?: boolean;
}

/** The summary sheet's facts; every text as it is to be printed. */
export interface SummaryInput {
  title: string;
  customer: { name: string; lines: string[] } | null;
  /** Label/value rows: order, customer's order, report and version, date, who did the work. */
  facts: Array<{ label: string; value: string }>;
  workDescription: string | null;
  materials: MaterialLine[];
  signers: Array<{ name: string; when: string }>;
  /** Time on site; null: none recorded and none to show (the section is left out). */
  time?: { rows: TimeRow[]; totalSeconds: number } | null;
  /**
   * The last signature that came with a sign-off (what the customer was shown of the work, the
   * time and the material): who signed, and what of it changed since (rows marked notCovered, and
   * these); absent or null: no such signature, the summary is not covered.
   */
  signoff?: {
    signer: string;
    workChanged: boolean;
    removedMaterials: MaterialLine[];
    changed: boolean;
    /** What was still missing when the customer signed, with the technician's reason. */
    missing: Array<{ what: string; reason: string }>;
  } | null;
  /**
   * What the report still lacks as it is printed (open checklist items, no departure, no
   * signature, pages after the signature): in a final PDF with the reason given at finalizing (null:
   * none given), in a preview as a reminder. Absent or empty: nothing missing.
   */
  incomplete?: {
    final: boolean;
    items: Array<{ what: string; count: number; reason: string | null }>;
  } | null;
}

/**
 * An event of the evidence sheet's history, its times formatted (with seconds and the zone
 * named); `by` null: who did it was not recorded.
 */
export type EvidenceEvent =
  | { kind: 'created'; at: string; by: string | null; version: number; versionOf: string | null }
  /** Report pages added or changed (their last change), one after another by one person: `pages` as ranges ("1–12, 14"), `count` of them. */
  | { kind: 'pages_added' | 'pages_changed'; at: string; until: string | null; by: string | null; pages: string; count: number }
  | {
      kind: 'signed';
      /** When the service received it. */
      at: string;
      signer: string;
      /** The signature's report page. */
      page: number;
      /** The phone's time of signing, when it sent one; false plausibility marks it. */
      deviceTime: string | null;
      devicePlausible: boolean | null;
      ip: string | null;
      userAgent: string | null;
      /** "lat, lon" when the phone sent a position. */
      position: string | null;
      /** The user who sent it in. */
      sentBy: string | null;
    }
  /** The final PDF made; in a preview, the preview made (the report not final yet). */
  | { kind: 'finalized' | 'previewed'; at: string; by: string; ip: string | null };

/** A signature's hash over the report pages before it, as its sealed metadata holds it (null: the metadata is gone). */
export interface EvidenceSignature {
  page: number;
  signer: string;
  hash: string | null;
  form: string | null;
  pagesCovered: number | null;
}

/** One image of a report page and the SHA-256 of its file (null: the file is gone). */
export interface EvidenceImage {
  page: number;
  part: 'photo' | 'before' | 'after' | 'signature' | { checklistItem: number };
  name: string;
  sha256: string | null;
}

/** The evidence sheet at the end of the final PDF: what happened, the hashes that tie it together, how to check them. */
export interface EvidenceInput {
  report: { ref: string; title: string; version: number };
  /** The PDF's file name, for the commands that check it. */
  file: string;
  /** Whose certificate seals the PDF (the company's name); null: unknown. */
  sealedBy: string | null;
  events: EvidenceEvent[];
  signatures: EvidenceSignature[];
  images: EvidenceImage[];
  /** The public check page, when PUBLIC_URL is set. */
  checkPage: string | null;
  /** Drawn in a preview: marked as one. */
  preview?: boolean;
}

export interface PdfDocumentInput {
  format: PaperFormat;
  orientation: Orientation;
  /** The fixed texts' language. @default 'de' */
  language?: PdfLanguage;
  /** @default 1 */
  photosPerSheet?: PhotosPerSheet;
  /** Logo at the top left of every body sheet; lines at the right (e.g. company, "BR2611-0001 · Titel"). */
  header: { logo: PdfImage | null; lines: string[] };
  cover: PdfCover | null;
  /** The summary sheet after the cover; none when null. */
  summary?: SummaryInput | null;
  pages: readonly PdfPage[];
  /** The evidence sheet after the pages; none when null. */
  evidence?: EvidenceInput | null;
  info: { title: string; author?: string; subject?: string; creationDate?: Date };
}
