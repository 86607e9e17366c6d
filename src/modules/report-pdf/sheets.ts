/**
 * The report PDF's sheets as data: the cover's placeholders, the pages, the signatures' facts, the
 * summary and the time on site, made from what pdf-inputs.ts read. Pure: no file, no database.
 */
import path from 'node:path';
import type { ChecklistLine, PdfImage, PdfLanguage, PdfPage, SignatureFacts, SummaryInput } from '../../adapters/pdf.js';
import { objectWord, wordsFor } from '../../adapters/pdf/words.js';
import { fromDbDateTime } from '../../db/dialect.js';
import { htmlToText } from '../../dolibarr/html.js';
import { fromDolibarrDateTime, localDate, localTime, zoneName } from '../../dolibarr/time.js';
import type { AuthUser } from '../auth/auth.service.js';
import { deviationOf, isDefect, readItems } from '../pages/checklist.js';
import type { PageRow, ReportRepository, ReportRow, SignatureFactsRow } from '../reports/reports.repository.js';
import { verifyUrl } from '../signatures/signatures.model.js';
import type { TimeInterval } from '../times/times.schemas.js';

export const COMPANY_CONSTS = [
  'MAIN_INFO_SOCIETE_NOM',
  'MAIN_INFO_SOCIETE_ADDRESS',
  'MAIN_INFO_SOCIETE_ZIP',
  'MAIN_INFO_SOCIETE_TOWN',
  'MAIN_INFO_SOCIETE_MAIL',
  'MAIN_INFO_SOCIETE_TEL',
  'MAIN_INFO_SOCIETE_LOGO',
  'MAIN_INFO_TVAINTRA',
] as const;

/**
 * What the evidence sheet says of the PDF being made: when (Unix seconds), from which IP, under
 * which file name the final PDF is kept; `preview`: a preview, marked as such (its sheet is the one
 * the final PDF will have, so the preview's page count is the final PDF's).
 */
export interface EvidenceRender {
  at: number;
  ip: string | null;
  file: string;
  preview: boolean;
  /** Finalizing: why it is finalized with what is still missing (the technician's words, each kind once). */
  missing?: ReadonlyArray<{ what: string; reason: string }>;
}

/** Runs `work` over `items` with at most `limit` at a time, keeping order. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await work(items[i]!);
      }
    }),
  );
  return out;
}

/**
 * A moment for the PDF's reader in the company's time zone, the zone named: German
 * `24.11.2026 14:05 MEZ`, English `24 Nov 2026, 14:05 CET`; without the time, the date alone.
 */
export function formatWhen(unix: number, timeZone: string, language: PdfLanguage, withTime = true): string {
  const date = new Date(unix * 1000);
  if (language === 'de') return withTime ? localTime(date, timeZone) : localDate(date, timeZone);
  const options: Intl.DateTimeFormatOptions = withTime
    ? {
        timeZone,
        day: 'numeric',
        month: 'short',
        year: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
        timeZoneName: 'short',
      }
    : { timeZone, day: 'numeric', month: 'short', year: 'numeric' };
  return new Intl.DateTimeFormat('en-GB', options).format(date);
}

/** The zone's short name at `unix`, as the language writes it: MEZ/MESZ in German, CET/CEST in English. */
export function zoneLabel(unix: number, timeZone: string, language: PdfLanguage): string {
  return zoneName(new Date(unix * 1000), timeZone, language === 'de' ? 'de-DE' : 'en-GB');
}

/** A date of the cover's placeholders, as Dolibarr prints it for German users (`dd.mm.yyyy`); '' for none. */
function dateOrEmpty(unix: number | null, timeZone: string): string {
  return unix === null ? '' : formatWhen(unix, timeZone, 'de', false);
}

/** The report's order (or other object) with its customer, as the cover and the summary print them. */
export type Parent = Awaited<ReturnType<ReportRepository['parentWithCustomer']>> | undefined;

/** The values of the cover sheet's {placeholders}, named as Dolibarr's ODT generators name them. */
export function coverValues(
  report: ReportRow,
  pages: number,
  user: AuthUser,
  company: Map<string, string>,
  parent: Parent,
  timeZone: string,
): Record<string, string> {
  const now = Math.floor(Date.now() / 1000);
  return {
    bericht_ref: report.ref,
    bericht_title: report.title,
    bericht_version: String(report.version),
    bericht_date: dateOrEmpty(fromDbDateTime(report.datec), timeZone),
    bericht_page_count: String(pages),
    object_ref: parent?.ref ?? '',
    object_ref_customer: parent?.ref_client ?? '',
    object_date: dateOrEmpty(fromDolibarrDateTime(parent?.date ?? null, timeZone), timeZone),
    object_note_public: parent?.note_public ?? '',
    company_name: parent?.nom ?? '',
    company_name_alias: parent?.name_alias ?? '',
    company_address: parent?.address ?? '',
    company_zip: parent?.zip ?? '',
    company_town: parent?.town ?? '',
    company_email: parent?.email ?? '',
    company_phone: parent?.phone ?? '',
    company_customercode: parent?.code_client ?? '',
    mycompany_name: company.get('MAIN_INFO_SOCIETE_NOM') ?? '',
    mycompany_address: company.get('MAIN_INFO_SOCIETE_ADDRESS') ?? '',
    mycompany_zip: company.get('MAIN_INFO_SOCIETE_ZIP') ?? '',
    mycompany_town: company.get('MAIN_INFO_SOCIETE_TOWN') ?? '',
    mycompany_email: company.get('MAIN_INFO_SOCIETE_MAIL') ?? '',
    mycompany_phone: company.get('MAIN_INFO_SOCIETE_TEL') ?? '',
    mycompany_vatnumber: company.get('MAIN_INFO_TVAINTRA') ?? '',
    myuser_fullname: user.name,
    current_date: formatWhen(now, timeZone, 'de', false),
    current_datehour: formatWhen(now, timeZone, 'de'),
  };
}

/** A signature's facts as its sheet prints them: times in the company's zone, the zone named. */
export function toSignatureFacts(
  row: SignatureFactsRow,
  metadata: { hash?: string; page_count_at_signing?: number; verify_code?: string },
  language: PdfLanguage,
  where: { timeZone: string; publicUrl: string | undefined },
): SignatureFacts {
  const received = fromDbDateTime(row.datec);
  const device = fromDbDateTime(row.signed_at_device);
  const shown = (unix: number | null) => (unix === null ? null : formatWhen(unix, where.timeZone, language));
  return {
    signer: row.signer_name,
    receivedAt: shown(received) ?? '',
    signedAtDevice: device !== null && received !== null && Math.abs(device - received) > 60 ? shown(device) : null,
    devicePlausible: row.device_time_plausible === null || row.device_time_plausible === undefined ? null : row.device_time_plausible === 1,
    pagesCovered: typeof metadata.page_count_at_signing === 'number' ? metadata.page_count_at_signing : null,
    hash: typeof metadata.hash === 'string' ? metadata.hash : null,
    verifyUrl: where.publicUrl && metadata.verify_code ? verifyUrl(where.publicUrl, metadata.verify_code) : null,
  };
}

/** A page as the PDF draws it. */
export function pdfPage(
  page: PageRow,
  image: PdfImage | null,
  image2: PdfImage | null,
  facts: SignatureFacts | undefined,
  photoNumbers: Map<string, number>,
): PdfPage {
  const rotation = (page.rotation % 360) as 0 | 90 | 180 | 270;
  switch (page.layout) {
    case 'checklist':
      return { kind: 'checklist', title: page.title, note: page.note, items: checklistLines(page, photoNumbers) };
    case 'title_only':
      return { kind: 'title_only', title: page.title, note: page.note };
    case 'before_after':
      return { kind: 'before_after', title: page.title, note: page.note, rotation, before: image, after: image2 };
    case 'signature':
      return { kind: 'signature', title: page.title, note: page.note, image, facts: facts ?? null };
    default:
      return { kind: 'photo', title: page.title, note: page.note, rotation, image };
  }
}

/** A checklist page's items as printed; a photo by the number of the photo page showing it. */
export function checklistLines(page: PageRow, photoNumbers: Map<string, number>): ChecklistLine[] {
  return readItems(page.checklist).map((item, index) => ({
    position: index + 1,
    label: item.label,
    state: item.state,
    value: item.value,
    unit: item.unit,
    lower: item.lower,
    upper: item.upper,
    deviation: deviationOf(item),
    defect: isDefect(item),
    okReason: item.ok_reason,
    note: item.note,
    photos: item.photos.map((relPath) => ({ number: photoNumbers.get(relPath) ?? null, name: path.posix.basename(relPath) })),
  }));
}

/** The number each photo page's image has in the PDF (Foto 1, 2, …: photo pages counted in order), by its source path. */
export function numberPhotos(pages: PageRow[]): Map<string, number> {
  const numbers = new Map<string, number>();
  let count = 0;
  for (const page of pages) {
    if (page.layout !== 'photo') continue;
    count++;
    if (page.source_path && !numbers.has(page.source_path)) numbers.set(page.source_path, count);
  }
  return numbers;
}

/** Time on site as the summary prints it: dates and times in the company's zone. */
export function timeOnSite(
  intervals: TimeInterval[],
  language: PdfLanguage,
  timeZone: string,
  notCovered?: (interval: TimeInterval) => boolean,
): SummaryInput['time'] {
  const closed = intervals.filter((i) => i.departure !== null);
  if (closed.length === 0) return null;
  // Every time names its zone (MEZ, MESZ, UTC; CET, CEST in English).
  const clock = (unix: number) =>
    `${formatWhen(unix, timeZone, language).replace(/^.*?(\d{1,2}:\d{2}).*$/, '$1')} ${zoneLabel(unix, timeZone, language)}`;
  const rows = closed.map((i) => {
    const last = i.corrections.at(-1);
    return {
      date: formatWhen(i.arrival, timeZone, language, false),
      who: i.user_name,
      from: clock(i.arrival),
      to: clock(i.departure!),
      seconds: i.seconds ?? 0,
      manual: i.manual && i.corrections.length === 1 ? (i.corrections[0]?.reason ?? null) : null,
      corrected: (!i.manual || i.corrections.length > 1) && last ? last.reason : null,
      ...(notCovered?.(i) ? { notCovered: true } : {}),
    };
  });
  return { rows, totalSeconds: rows.reduce((sum, r) => sum + r.seconds, 0) };
}

/** The summary sheet's facts, in the customer's language. */
export function summaryOf(
  report: ReportRow,
  values: Record<string, string>,
  parent: Parent,
  language: PdfLanguage,
  signatures: SignatureFacts[],
  materials: SummaryInput['materials'],
  intervals: TimeInterval[],
  timeZone: string,
  covered: { timeNotCovered?: (interval: TimeInterval) => boolean; signoff?: SummaryInput['signoff'] } = {},
): SummaryInput {
  const words = wordsFor(language);
  const town = [values.company_zip, values.company_town].filter(Boolean).join(' ');
  const facts = [
    { label: objectWord(words, report.element_type), value: values.object_ref },
    { label: words.customerOrder, value: values.object_ref_customer },
    { label: words.report, value: report.version > 1 ? `${report.ref}, ${words.version(report.version)}` : report.ref },
    {
      label: words.date,
      value: formatWhen(fromDbDateTime(report.datec) ?? Math.floor(Date.now() / 1000), timeZone, language, false),
    },
    { label: words.technician, value: values.myuser_fullname },
  ].filter((f): f is { label: string; value: string } => Boolean(f.value));
  return {
    title: report.title,
    customer: parent?.nom
      ? {
          name: parent.nom,
          lines: [...(parent.address ?? '').split(/\r?\n/), town, parent.phone ?? ''].map((l) => l.trim()).filter(Boolean),
        }
      : null,
    facts,
    workDescription: htmlToText(parent?.note_public ?? '') || null,
    materials,
    // The moment of signing by the phone where it is plausible; the service's otherwise.
    signers: signatures.map((s) => ({
      name: s.signer,
      when: s.signedAtDevice && s.devicePlausible !== false ? s.signedAtDevice : s.receivedAt,
    })),
    time: timeOnSite(intervals, language, timeZone, covered.timeNotCovered),
    signoff: covered.signoff ?? null,
  };
}
