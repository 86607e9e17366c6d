/**
 * What the final PDF's evidence sheet (adapters/pdf/sections/evidence.ts) prints, gathered from
 * what the service recorded: the report's row (created when, by whom, version of which report),
 * its pages' rows (added when and by whom, last changed when and by whom: bericht_page.datec,
 * fk_user_creat, tms, fk_user_modif; migration 0016, so pages from before name nobody), each
 * signature's row and sealed metadata (the phone's and the server's time, IP, browser as
 * `user_agent` where the metadata has it, position, who sent it in, the hash over the pages before
 * it), the finalization (now, by the caller, from the request's IP; in a preview, the preview's
 * moment and a mark that the report is not final yet), and the SHA-256 of every image file.
 *
 * Events are put in time order; pages added (or changed) one after another by one person, with no
 * other event between, are one line ("Berichtsseiten 1–50 hinzugefügt"), so a 500-page report's
 * history stays a few lines.
 */
import path from 'node:path';
import type { EvidenceEvent, EvidenceImage, EvidenceInput, EvidenceSignature, PdfLanguage } from '../../adapters/pdf.js';
import { fromDbDateTime } from '../../db/dialect.js';
import { localTime } from '../../dolibarr/time.js';
import { readItems } from '../pages/checklist.js';
import type { PageRow, ReportRow, SignatureFactsRow } from '../reports/reports.repository.js';

/** A signature's database row and its metadata file as read (empty when the file is gone or unreadable). */
export interface SignatureRecord {
  row: SignatureFactsRow;
  metadata: Record<string, unknown>;
}

/** The moment with seconds in the company's zone, the zone named: `24.11.2026 14:05:33 MEZ`, `24 Nov 2026, 14:05:33 CET`. */
export function formatMoment(unix: number, timeZone: string, language: PdfLanguage): string {
  const date = new Date(unix * 1000);
  if (language === 'de') return localTime(date, timeZone, { seconds: true });
  return new Intl.DateTimeFormat('en-GB', {
    timeZone,
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'short',
  }).format(date);
}

/** Every image of the report's pages in page order, each with the file it names. */
export function imagesOf(pages: readonly PageRow[]): Array<Omit<EvidenceImage, 'sha256' | 'name'> & { relPath: string }> {
  const images: Array<Omit<EvidenceImage, 'sha256' | 'name'> & { relPath: string }> = [];
  pages.forEach((page, index) => {
    const position = index + 1;
    if (page.layout === 'title_only') return;
    if (page.layout === 'checklist') {
      readItems(page.checklist).forEach((item, i) => {
        for (const relPath of item.photos) images.push({ page: position, part: { checklistItem: i + 1 }, relPath });
      });
      return;
    }
    if (page.layout === 'before_after') {
      if (page.source_path) images.push({ page: position, part: 'before', relPath: page.source_path });
      if (page.source_path_2) images.push({ page: position, part: 'after', relPath: page.source_path_2 });
      return;
    }
    if (page.source_path)
      images.push({ page: position, part: page.layout === 'signature' ? 'signature' : 'photo', relPath: page.source_path });
  });
  return images;
}

/** The user ids the history names (report creator, pages' creators and changers), for one look-up. */
export function userIdsOf(report: ReportRow, pages: readonly PageRow[]): number[] {
  const ids = [report.fk_user_creat];
  for (const page of pages)
    for (const id of [page.fk_user_creat, page.fk_user_modif]) if (id !== null && id !== undefined) ids.push(Number(id));
  return ids;
}

/** "1–3, 5, 7–9" for the positions given (sorted here). */
export function ranges(positions: readonly number[]): string {
  const sorted = [...new Set(positions)].sort((a, b) => a - b);
  const out: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    out.push(j === i ? String(sorted[i]) : `${sorted[i]}–${sorted[j]}`);
    i = j + 1;
  }
  return out.join(', ');
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() ? value.trim() : null);
const finite = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

export interface EvidenceFacts {
  report: ReportRow;
  pages: readonly PageRow[];
  /** By page id. */
  signatures: ReadonlyMap<number, SignatureRecord>;
  userNames: ReadonlyMap<number, string>;
  /** The ref of the report this one is a version of. */
  versionOf: string | null;
  finalized: { at: number; by: string; ip: string | null };
  /** A preview: the sheet says so, and that the report is not final yet. */
  preview: boolean;
  /** SHA-256 by the image's relative path; null: the file is gone. */
  digests: ReadonlyMap<string, string | null>;
  file: string;
  company: string | null;
  checkPage: string | null;
  timeZone: string;
  language: PdfLanguage;
}

type Atom =
  | { kind: 'created'; at: number; by: number | null }
  | { kind: 'pages_added' | 'pages_changed'; at: number; by: number | null; position: number }
  | { kind: 'signed'; at: number; position: number; record: SignatureRecord }
  | { kind: 'finalized'; at: number };

const KIND_ORDER = { created: 0, pages_added: 1, pages_changed: 2, signed: 3, finalized: 4 } as const;

export function evidenceOf(facts: EvidenceFacts): EvidenceInput {
  const { report, pages, timeZone, language } = facts;
  const when = (unix: number) => formatMoment(unix, timeZone, language);
  const nameOf = (id: number | null) => (id === null ? null : (facts.userNames.get(id) ?? `#${id}`));
  const idOf = (value: unknown) => (value === null || value === undefined ? null : Number(value));
  const finalizedAt = facts.finalized.at;

  const atoms: Atom[] = [{ kind: 'created', at: fromDbDateTime(report.datec) ?? finalizedAt, by: idOf(report.fk_user_creat) }];
  pages.forEach((page, index) => {
    const position = index + 1;
    const record = page.layout === 'signature' ? facts.signatures.get(page.rowid) : undefined;
    if (record) {
      atoms.push({ kind: 'signed', at: fromDbDateTime(record.row.datec) ?? fromDbDateTime(page.datec) ?? finalizedAt, position, record });
      return;
    }
    const added = fromDbDateTime(page.datec) ?? finalizedAt;
    atoms.push({ kind: 'pages_added', at: added, by: idOf(page.fk_user_creat), position });
    const changed = fromDbDateTime(page.tms);
    if (changed !== null && changed > added) atoms.push({ kind: 'pages_changed', at: changed, by: idOf(page.fk_user_modif), position });
  });
  atoms.push({ kind: 'finalized', at: finalizedAt });
  atoms.sort(
    (a, b) => a.at - b.at || KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || ('position' in a && 'position' in b ? a.position - b.position : 0),
  );

  const events: EvidenceEvent[] = [];
  for (let i = 0; i < atoms.length; i++) {
    const atom = atoms[i]!;
    switch (atom.kind) {
      case 'created':
        events.push({
          kind: 'created',
          at: when(atom.at),
          by: nameOf(atom.by),
          version: report.version,
          versionOf: facts.versionOf,
        });
        break;
      case 'pages_added':
      case 'pages_changed': {
        // The same kind by the same person right after: one line.
        const positions = [atom.position];
        let last = atom.at;
        while (i + 1 < atoms.length) {
          const next = atoms[i + 1]!;
          if (next.kind !== atom.kind || next.by !== atom.by) break;
          positions.push(next.position);
          last = next.at;
          i++;
        }
        events.push({
          kind: atom.kind,
          at: when(atom.at),
          until: last > atom.at ? when(last) : null,
          by: nameOf(atom.by),
          pages: ranges(positions),
          count: positions.length,
        });
        break;
      }
      case 'signed': {
        const { row, metadata } = atom.record;
        const deviceUnix = finite(metadata.signed_at_device_unix) ?? fromDbDateTime(row.signed_at_device);
        const plausible =
          typeof metadata.device_time_plausible === 'boolean'
            ? metadata.device_time_plausible
            : row.device_time_plausible === null || row.device_time_plausible === undefined
              ? null
              : row.device_time_plausible === 1;
        const lat = finite(metadata.gps_lat);
        const lon = finite(metadata.gps_lon);
        const user = metadata.user as { name?: unknown } | undefined;
        events.push({
          kind: 'signed',
          at: when(atom.at),
          signer: row.signer_name,
          page: atom.position,
          deviceTime: deviceUnix === null ? null : when(deviceUnix),
          devicePlausible: deviceUnix === null ? null : plausible,
          ip: text(metadata.client_ip),
          userAgent: text(metadata.user_agent),
          position: lat !== null && lon !== null ? `${lat.toFixed(6)}, ${lon.toFixed(6)}` : null,
          sentBy: text(user && typeof user === 'object' ? user.name : null),
        });
        break;
      }
      case 'finalized':
        events.push({ kind: facts.preview ? 'previewed' : 'finalized', at: when(atom.at), by: facts.finalized.by, ip: facts.finalized.ip });
        break;
    }
  }

  const signatures: EvidenceSignature[] = [];
  pages.forEach((page, index) => {
    const record = page.layout === 'signature' ? facts.signatures.get(page.rowid) : undefined;
    if (!record) return;
    const { metadata } = record;
    const covered = finite(metadata.page_count_at_signing);
    signatures.push({
      page: index + 1,
      signer: record.row.signer_name,
      hash: text(metadata.hash),
      form: text(metadata.hash_form),
      pagesCovered: covered === null ? null : Math.trunc(covered),
    });
  });

  const images = imagesOf(pages).map(({ relPath, ...image }) => ({
    ...image,
    name: path.posix.basename(relPath),
    sha256: facts.digests.get(relPath) ?? null,
  }));
  return {
    report: { ref: report.ref, title: report.title, version: report.version },
    file: facts.file,
    sealedBy: facts.company,
    events,
    signatures,
    images,
    checkPage: facts.checkPage,
    preview: facts.preview,
  };
}
