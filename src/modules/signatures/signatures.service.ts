/**
 * Signature pages and their proof (contract endpoints 14 and 15).
 *
 * Signing: the customer's PNG is checked (a real PNG, at most MAX_SIGNATURE_SIDE pixels a side),
 * the hash over every page so far is computed (signature-hash.ts), and a composite image is drawn
 * (header with the metadata, the signature, footer with hash, server and time, and a QR code of the
 * public verification link). Beside it goes the metadata JSON with every field the contract lists,
 * the SHA-256 of the composite image, and the service's Ed25519 seal over all of it. Both files are
 * written under temporary names in the report's work area and renamed; then, in one transaction
 * that checks the pages are still those hashed, the page and its `bericht_signature` row are added.
 * Any failure removes the files.
 *
 * With an Idempotency-Key (common/idempotency.ts; the app sends signatures from its offline queue)
 * the key is claimed before the form is read (scope `page:signature:<report>`), and the answer is
 * stored in the transaction that adds the page: a repeat gets the first answer and never makes a
 * second signature page, whenever the first attempt stopped. The files come first on purpose (a
 * page never names an image that is not there), which leaves one window: a process killed after
 * renaming them and before the commit leaves that image and its metadata in the work area with no
 * page, no `bericht_signature` row and no answer. Nothing refers to them (the check behind the QR
 * code finds no row for their code); the dead run's claim is freed, the repeat signs afresh under
 * a new code and name, and the two files stay until the report is deleted with its work area.
 *
 * With the signature the phone may send every pointer sample of the drawing (strokes.ts): checked,
 * stored byte for byte as `<image>.strokes.json` (written with the image, removed with it on any
 * failure) and summed up in the metadata as `strokes`, with the SHA-256 of the stored file, so the
 * seal covers it.
 *
 * What the signature covers outside the report's own folder (the order's photos, which Dolibarr's
 * document screens offer to delete) is copied into the report's folder first and hashed there
 * (reports/kept-copies.ts); the check reads such a copy when the original is gone.
 *
 * Verifying reads the metadata beside the page and answers why it fails, in this order: the
 * metadata is missing or unreadable; the seal is broken (the JSON was edited); the number of pages
 * before the signature changed; the content changed (the hash over those pages, or the composite
 * image itself); the strokes file is gone or differs from what the metadata names.
 */
import { localTime, zoneName } from '../../dolibarr/time.js';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { fileTypeFromBuffer } from 'file-type';
import sharp from 'sharp';
import { writeFileAtomic } from '../../adapters/file-store.js';
import { renderSignatureSheet } from '../../adapters/signature-image.js';
import type { Config } from '../../config.js';
import type { DbHandle } from '../../db/database.js';
import { fromDbDateTime, toDbDateTime } from '../../db/dialect.js';
import type { ElementType } from '../../dolibarr/documents.js';
import { AppError } from '../../errors.js';
import type { AuthUser } from '../auth/auth.service.js';
import type { ElementAccess } from '../access/element-access.js';
import { REPORT_ALIAS, type PageRow, type ReportRepository } from '../reports/reports.repository.js';
import { MAX_REPORT_PAGES, type SignedPageResponse } from '../reports/reports.schemas.js';
import { pageEvidenceOf, toPageResponse, withPageSignatures } from '../reports/reports.service.js';
import type { RunRegistry } from '../../adapters/runs.js';
import { idempotent, type IdempotentClaim } from '../common/idempotency.js';
import { reportFolder, resolveSource, WORK_AREA_DIR } from '../reports/work-area.js';
import { entityRoot } from '../../dolibarr/ecm.js';
import { keepCopies, keptCopiesOf, keptCopyPath, keptFolderOf, KEPT_DIR, pageImagePaths, signingMarker } from '../reports/kept-copies.js';
import { fileSha256, HASH_FORM_EVIDENCE, pagesDigest, type HashedEvidence } from './signature-hash.js';
import { hashedEvidence, type PhotoEvidenceRow } from '../photo-evidence/photo-evidence.js';
import { createLimiter } from '../common/limiter.js';
import { createDigestCache, type DigestCache } from './fingerprint.js';
import type { SigningKey } from './signing-key.js';
import { deviceTimeFacts, deviceTimeShown, type DeviceTime, type DeviceTimeFacts, type ImplausibleReason } from './device-time.js';
import { strokesPathOf, type ParsedStrokes, type StrokesSummary } from './strokes.js';

/** Public checks of a signature's code (the QR code's link) at once per process, and waiting beyond them (then 503). */
export const PUBLIC_CHECKS = 2;
export const PUBLIC_CHECKS_WAITING = 8;
/** Files whose SHA-256 a process remembers for checks (fingerprint.ts). */
const DIGEST_CACHE_FILES = 20_000;

/** Longest side of a signature PNG (a phone screen is at most a few thousand pixels). */
export const MAX_SIGNATURE_SIDE = 4096;
export const METADATA_FORMAT = 'fieldreport-signature/1';
export const DEFAULT_CONFIRMATION =
  'Hiermit bestätige ich, dass die in diesem Bericht dokumentierten Arbeiten ausgeführt wurden und der Bericht den Zustand bei Abnahme wiedergibt.';
const HEADLINE = 'Abnahmebestätigung – Unterschrift';

export type VerifyReason =
  | 'metadata_missing'
  | 'key_unknown'
  | 'seal_broken'
  | 'page_count_changed'
  | 'content_changed'
  | 'strokes_changed';
const REASON_TEXT: Record<VerifyReason, string> = {
  metadata_missing: 'Die Signaturdaten fehlen oder sind unlesbar',
  key_unknown:
    'Das Siegel stammt von einem anderen Schlüssel als dem dieses Dienstes (SIGNING_KEY_FILE); es kann hier nicht geprüft werden',
  seal_broken: 'Das Siegel ist gebrochen: die Signaturdaten wurden verändert',
  page_count_changed: 'Die Zahl der unterschriebenen Seiten hat sich geändert',
  content_changed: 'Der Inhalt der unterschriebenen Seiten hat sich geändert',
  strokes_changed: 'Die Aufzeichnung der Striche (Stiftdaten) der Unterschrift fehlt oder wurde verändert',
};

export interface SignatureMetadata {
  format: string;
  headline: string;
  report_id: number;
  report_ref: string;
  parent_type: string | null;
  parent_ref: string | null;
  customer: string | null;
  server_time: string;
  server_time_unix: number;
  /**
   * The moment of signing by the phone's clock (device-time.ts): as sent, with its offset; Unix
   * seconds; the phone's zone; server_time_unix − signed_at_device_unix; and the plausibility.
   * All null without a device time; absent in metadata made before they were recorded.
   */
  signed_at_device?: string | null;
  signed_at_device_unix?: number | null;
  signed_at_device_zone?: string | null;
  device_time_difference_seconds?: number | null;
  device_time_plausible?: boolean | null;
  device_time_implausible_reason?: ImplausibleReason | null;
  signer_name: string;
  confirmation_text: string;
  gps_lat: number | null;
  gps_lon: number | null;
  hash: string;
  hash_algorithm: 'SHA-256';
  hash_form: string;
  page_count_at_signing: number;
  server_name: string;
  client_ip: string;
  /** The signing request's User-Agent (capped); null without one; absent in metadata made before it was recorded. */
  user_agent?: string | null;
  user: { id: number; login: string; name: string };
  signature_sha256: string;
  image_sha256: string;
  verify_code: string;
  /**
   * The stroke record stored beside the image (`<image>.strokes.json`); null when the phone sent
   * none; absent in metadata made before strokes were recorded.
   */
  strokes?: StrokesSummary | null;
  seal?: unknown;
}

export interface SignInput {
  signerName: string;
  confirmation?: string;
  gpsLat?: number;
  gpsLon?: number;
  /** When the customer signed, by the phone's clock (with its offset). */
  deviceTime?: DeviceTime;
  /** The phone's IANA zone (only with deviceTime). */
  deviceZone?: string;
  png: Buffer;
  /** Every pointer sample of the drawing, checked (strokes.ts), when the phone sent them. */
  strokes?: ParsedStrokes;
  clientIp: string;
  /** The request's User-Agent (capped), or null. */
  userAgent: string | null;
  /** Where people reach the service, for the QR link. */
  baseUrl: string;
}

export interface PublicCheck {
  report_ref: string;
  signer_name: string;
  /** When the server received it. */
  signed_at: number | null;
  /** The phone's time of signing, when it sent one. */
  device_time: Partial<DeviceTimeFacts> | null;
  /** The sealed summary of the strokes; null when none were recorded; absent when the metadata could not be read. */
  strokes?: StrokesSummary | null;
  verified: boolean;
  reason?: VerifyReason;
  message: string;
}

export interface VerifyResult {
  verified: boolean;
  reason?: VerifyReason;
  message: string;
  page_id: number;
  report_id: number;
  report_ref: string;
  /** `strokes`: null when the signature has no stroke record or the check was not reached. */
  checks: {
    metadata: boolean;
    seal: boolean | null;
    page_count: boolean | null;
    hash: boolean | null;
    image: boolean | null;
    strokes: boolean | null;
  };
  metadata: SignatureMetadata | null;
}

/** The hash's view of the photo evidence read for a report's pages (by path). */
function evidenceLookup(rows: ReadonlyMap<string, PhotoEvidenceRow>): (relPath: string) => HashedEvidence | undefined {
  return (relPath) => {
    const row = rows.get(relPath);
    return row ? (hashedEvidence(row) as HashedEvidence) : undefined;
  };
}

/** `<image>.json`: the metadata file beside a signature image. */
export function metadataPathOf(imageRelPath: string): string {
  return imageRelPath.replace(/\.[^./]+$/, '') + '.json';
}

export function verifyUrl(baseUrl: string, code: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/public/verify_signature.php?code=${code}`;
}

const stamp = (d: Date) => d.toISOString().replace(/[-:T]/g, '').slice(0, 14);

/**
 * The signature page's note: the signer and the server's time with its zone, as before; when the
 * phone's time differs by more than a minute, the phone's time first (in its zone), then when the
 * server received it, and the mark of an implausible device time.
 */
export function signatureNote(signer: string, received: Date, timeZone: string, device: ReturnType<typeof deviceTimeShown>): string {
  const server = `${localTime(received, timeZone, { seconds: true, zone: false })} Uhr`;
  if (!device) return `Unterschrieben von ${signer} am ${server} (${zoneName(received, timeZone)})`;
  return `Unterschrieben von ${signer} am ${device.time} Uhr (Gerät, ${device.zone}); empfangen am ${server} (Server, ${zoneName(received, timeZone)})${device.mark ? ` – ${device.mark}` : ''}`;
}

/**
 * The device's instant for the database (UTC, like the module's other date-times). Years outside
 * 1000-9999 (a phone whose clock is wildly off) do not fit MariaDB's datetime: null there, the
 * sealed metadata keeps the time as sent.
 */
function deviceColumn(unix: number | null): string | null {
  if (unix === null) return null;
  const year = new Date(unix * 1000).getUTCFullYear();
  return year >= 1000 && year <= 9999 ? toDbDateTime(unix) : null;
}

export function createSignatureService(deps: {
  handle: DbHandle;
  repo: ReportRepository;
  access: ElementAccess;
  config: Config;
  runs: Pick<RunRegistry, 'state'>;
  key: SigningKey;
}) {
  const { handle, repo, access, config, runs, key } = deps;
  const { db } = handle;
  const { dataRoot, entity } = config;
  // Checks remember each covered file's SHA-256 by its identity (fingerprint.ts): a repeated check
  // hashes only what changed since, and sees every change, made here, in another process or by Dolibarr.
  const digests = createDigestCache(DIGEST_CACHE_FILES);
  const { verifyPage } = createSignatureVerifier({ ...deps, digests });
  // Signing and checking read every covered image: a few at a time per process, for the people
  // who sign and check in the app ...
  const limit = createLimiter(2, 16, () => new AppError('SIGNATURE_BUSY', { headers: { 'retry-after': '5' } }));
  // ... and, apart from them, for anyone who follows a signature's QR code: public checks never
  // take a slot of a technician's signature.
  const publicLimit = createLimiter(
    PUBLIC_CHECKS,
    PUBLIC_CHECKS_WAITING,
    () => new AppError('SIGNATURE_BUSY', { headers: { 'retry-after': '5' } }),
  );

  /** A page image's SHA-256 for signing: an image that is gone cannot be signed (as finalize refuses it). */
  async function strictDigest(relPath: string): Promise<string> {
    let file: string;
    try {
      file = await resolveSource(dataRoot, entity, relPath);
    } catch {
      throw new AppError('REPORT_SOURCE_MISSING', { details: { missing: [{ source: relPath }] } });
    }
    return fileSha256(file);
  }

  /** The PNG's size, or the clear error: 415 not a PNG, 413 too many pixels, 400 unreadable. */
  async function checkPng(png: Buffer): Promise<{ width: number; height: number }> {
    const type = await fileTypeFromBuffer(png);
    if (type?.mime !== 'image/png')
      throw new AppError('UPLOAD_TYPE_UNSUPPORTED', {
        message: 'Die Unterschrift muss ein PNG-Bild sein',
        details: { detected: type?.mime ?? null },
      });
    let meta;
    try {
      meta = await sharp(png, { limitInputPixels: false }).metadata();
    } catch {
      throw new AppError('IMAGE_INVALID');
    }
    const { width = 0, height = 0 } = meta;
    if (width > MAX_SIGNATURE_SIDE || height > MAX_SIGNATURE_SIDE) {
      throw new AppError('SIGNATURE_TOO_LARGE', { details: { width, height, max_side: MAX_SIGNATURE_SIDE } });
    }
    if (width < 16 || height < 16)
      throw new AppError('IMAGE_INVALID', { message: 'Die Unterschrift ist zu klein (mindestens 16 × 16 Pixel)' });
    try {
      await sharp(png).stats(); // decodes the whole image: a truncated PNG fails here
    } catch {
      throw new AppError('IMAGE_INVALID');
    }
    return { width, height };
  }

  async function parentInfo(type: string | null, id: number | null) {
    if (!type || id === null) return undefined;
    return repo.parentWithCustomer(db, type as ElementType, id);
  }

  return {
    /**
     * Signs the report `reportId` with the form `readForm` reads (read only after the key is
     * claimed, so a repeat's answer needs no body); with `idempotencyKey`, a repeat answers the
     * signature page the key made first.
     */
    async sign(user: AuthUser, reportId: number, readForm: () => Promise<SignInput>, idempotencyKey?: string): Promise<SignedPageResponse> {
      if (!(await repo.getById(db, reportId, access.reportVisible(user, REPORT_ALIAS)))) throw new AppError('REPORT_NOT_FOUND');
      const answer = await idempotent(
        { db, runs },
        { entity, userId: user.id, key: idempotencyKey, scope: `page:signature:${reportId}` },
        async (claim) => {
          const input = await readForm();
          return limit(() => signNow(user, reportId, input, claim));
        },
      );
      return withPageSignatures(repo, db, answer);
    },

    /** Verifies the signature page `pageId` of a report the caller sees. */
    async verify(user: AuthUser, pageId: number): Promise<VerifyResult> {
      const page = await repo.getPage(db, pageId);
      const report = page && (await repo.getById(db, Number(page.fk_bericht), access.reportVisible(user, REPORT_ALIAS)));
      if (!page || !report || page.layout !== 'signature')
        throw new AppError('PAGE_NOT_FOUND', { message: 'Unterschriftsseite nicht gefunden' });
      return limit(() => verifyPage(page, report.ref));
    },

    /**
     * The public check behind the QR code: only ref, signer, time and the result, taken from the
     * sealed metadata (the database row only finds it). The row must lead to the very signature
     * whose sealed metadata carries this code; anything else is not verified.
     */
    /** Files the checks have hashed (read whole) so far, and the public checks running and waiting (for tests and logs). */
    load: () => ({ filesHashed: digests.hashes, publicChecks: publicLimit.load() }),
    async verifyByCode(code: string, signal?: AbortSignal): Promise<PublicCheck | undefined> {
      const row = await db
        .selectFrom('bericht_signature')
        .selectAll()
        .where('verify_code', '=', code)
        .where('entity', '=', entity)
        .executeTakeFirst();
      if (!row) return undefined;
      const page = await repo.getPage(db, Number(row.fk_page));
      const report = await db.selectFrom('bericht').select(['ref']).where('rowid', '=', Number(row.fk_bericht)).executeTakeFirst();
      const unverified = (message: string): PublicCheck => ({
        report_ref: report?.ref ?? '',
        signer_name: row.signer_name,
        signed_at: fromDbDateTime(row.datec),
        device_time: null,
        verified: false,
        message,
      });
      if (!page || !report || page.layout !== 'signature' || Number(page.fk_bericht) !== Number(row.fk_bericht))
        return unverified('Die Unterschriftsseite fehlt oder wurde verändert');
      const result = await publicLimit(() => verifyPage(page, report.ref), signal);
      if (result.metadata && result.metadata.verify_code !== code) return unverified('Der Prüfcode gehört nicht zu dieser Unterschrift');
      return {
        report_ref: result.metadata?.report_ref ?? report.ref,
        signer_name: result.metadata?.signer_name ?? row.signer_name,
        signed_at: result.metadata?.server_time_unix ?? fromDbDateTime(row.datec),
        device_time: result.metadata ?? null,
        ...(result.metadata ? { strokes: result.metadata.strokes ?? null } : {}),
        verified: result.verified,
        ...(result.reason ? { reason: result.reason } : {}),
        message: result.message,
      };
    },

    signingKey: () => ({ algorithm: 'Ed25519', key_id: key.keyId, public_key_pem: key.publicKeyPem, public_key_raw: key.publicKeyRaw }),
  };

  async function signNow(
    user: AuthUser,
    reportId: number,
    input: SignInput,
    claim: IdempotentClaim | undefined,
  ): Promise<SignedPageResponse> {
    const report = await repo.getById(db, reportId, access.reportVisible(user, REPORT_ALIAS));
    if (!report) throw new AppError('REPORT_NOT_FOUND');
    if (Number(report.is_template) === 1) throw new AppError('CONFLICT', { message: 'Eine Vorlage wird nicht unterschrieben' });
    if (Number(report.status) !== 0) throw new AppError('REPORT_FINAL');
    await checkPng(input.png);
    const pages = await repo.pages(db, reportId);
    if (pages.length >= MAX_REPORT_PAGES) throw new AppError('REPORT_TOO_MANY_PAGES', { details: { max: MAX_REPORT_PAGES } });
    const now = new Date();
    const code = randomBytes(16).toString('base64url');
    const folder = reportFolder(dataRoot, entity, report.ref);
    const base = `unterschrift_${stamp(now)}_${code.slice(0, 6).replace(/[^A-Za-z0-9]/g, 'x')}`;
    const imageRel = `${WORK_AREA_DIR}/${folder.name}/${base}.png`;
    // What the signature covers outside the report's own folder is kept in it (kept-copies.ts), and
    // the hash is taken of those copies: the check survives a photo deleted in Dolibarr.
    const madeFolder = await mkdir(folder.dir, { recursive: true });
    // Known before anything is copied: whatever fails (disk full, no write permission), it goes.
    const keptDir = path.join(entityRoot(dataRoot, entity), keptFolderOf(imageRel));
    let committed = false;
    try {
      // An earlier signature's copies: linked when they hold the same bytes, taken when the original is gone.
      const copies = await keepCopies(dataRoot, entity, folder.name, imageRel, pages.flatMap(pageImagePaths), keptCopiesOf(pages));
      // The photos' evidence is page content: with any, the hash takes form 3 (signature-hash.ts).
      const evidence = await pageEvidenceOf(db, entity, pages);
      const digestOf = async (relPath: string) => copies.get(relPath)?.sha256 ?? strictDigest(relPath);
      const { hash, form: hashForm } = await pagesDigest(report.ref, pages, digestOf, evidenceLookup(evidence));
      const answer = await signCovered(user, reportId, input, claim, { report, pages, now, code, folder, base, imageRel, hash, hashForm });
      committed = true;
      await rm(path.join(keptDir, signingMarker()), { force: true }).catch(() => undefined);
      return answer;
    } finally {
      if (!committed) {
        await rm(keptDir, { recursive: true, force: true }).catch(() => undefined);
        await rmdir(path.join(folder.dir, KEPT_DIR)).catch(() => undefined);
        if (madeFolder) await rmdir(folder.dir).catch(() => undefined);
      }
    }
  }

  async function signCovered(
    user: AuthUser,
    reportId: number,
    input: SignInput,
    claim: IdempotentClaim | undefined,
    at: {
      report: NonNullable<Awaited<ReturnType<ReportRepository['getById']>>>;
      pages: PageRow[];
      now: Date;
      code: string;
      folder: ReturnType<typeof reportFolder>;
      base: string;
      imageRel: string;
      hash: string;
      hashForm: string;
    },
  ): Promise<SignedPageResponse> {
    const { report, pages, now, code, folder, base, imageRel, hash, hashForm } = at;
    const serverUnix = Math.floor(now.getTime() / 1000);
    const device = deviceTimeFacts(input.deviceTime, input.deviceZone, serverUnix);
    // The phone's time beside the server's when they are more than a minute apart (else one time, as without it).
    const shown = deviceTimeShown(device);
    const serverWhen = localTime(now, config.timeZone, { seconds: true });
    const parent = await parentInfo(report.element_type, report.fk_element === null ? null : Number(report.fk_element));
    const confirmation = input.confirmation?.trim() || DEFAULT_CONFIRMATION;
    const gps = input.gpsLat !== undefined && input.gpsLon !== undefined ? `${input.gpsLat.toFixed(6)}, ${input.gpsLon.toFixed(6)}` : null;
    const link = verifyUrl(input.baseUrl, code);
    const sheet = await renderSignatureSheet({
      headline: HEADLINE,
      fields: [
        { label: 'Bericht', value: `${report.ref} – ${report.title}` },
        ...(parent ? [{ label: 'Auftrag', value: parent.ref + (parent.ref_client ? ` (${parent.ref_client})` : '') }] : []),
        ...(parent?.nom ? [{ label: 'Kunde', value: parent.nom }] : []),
        // An implausible device time's mark on a line of its own, so nobody reads over it.
        ...(shown
          ? [
              { label: 'Unterschrieben am (Gerät)', value: `${shown.time} (${shown.zone})${shown.mark ? `\n– ${shown.mark}` : ''}` },
              { label: 'Empfangen am (Server)', value: serverWhen },
            ]
          : [{ label: 'Datum/Uhrzeit (Server)', value: serverWhen }]),
        { label: 'Unterzeichner', value: input.signerName },
        ...(gps ? [{ label: 'GPS', value: gps }] : []),
      ],
      confirmation,
      signature: input.png,
      footer: [
        `SHA-256 über ${pages.length} Seite(n) und ${report.ref}: ${hash}`,
        `Server: ${config.serverName} · ${serverWhen} · ${now.toISOString().slice(0, 19)}Z`,
      ],
      qr: { url: link, caption: 'Prüfen' },
    });
    const metadata: SignatureMetadata = {
      format: METADATA_FORMAT,
      headline: HEADLINE,
      report_id: reportId,
      report_ref: report.ref,
      parent_type: report.element_type,
      parent_ref: parent?.ref ?? null,
      customer: parent?.nom ?? null,
      server_time: now.toISOString(),
      server_time_unix: serverUnix,
      ...device,
      signer_name: input.signerName,
      confirmation_text: confirmation,
      gps_lat: input.gpsLat ?? null,
      gps_lon: input.gpsLon ?? null,
      hash,
      hash_algorithm: 'SHA-256',
      hash_form: hashForm,
      page_count_at_signing: pages.length,
      server_name: config.serverName,
      client_ip: input.clientIp,
      user_agent: input.userAgent,
      user: { id: user.id, login: user.login, name: user.name },
      signature_sha256: createHash('sha256').update(input.png).digest('hex'),
      image_sha256: createHash('sha256').update(sheet).digest('hex'),
      verify_code: code,
      strokes: input.strokes?.summary ?? null,
    };
    metadata.seal = key.seal(metadata);

    const metaRel = metadataPathOf(imageRel);
    const imageFile = path.join(folder.dir, `${base}.png`);
    const metaFile = path.join(folder.dir, `${base}.json`);
    const strokesFile = path.join(folder.dir, path.basename(strokesPathOf(imageRel)));
    const written: string[] = [];
    let committed = false;
    // The strokes before the metadata that names them: metadata on disk never names a missing file.
    const files: Array<readonly [string, Buffer | string]> = [
      [imageFile, sheet],
      ...(input.strokes ? [[strokesFile, input.strokes.data] as const] : []),
      [metaFile, `${JSON.stringify(metadata, null, 2)}\n`],
    ];
    try {
      for (const [file, data] of files) {
        await writeFileAtomic(file, data);
        written.push(file);
      }
      const answer = await db.transaction().execute(async (trx) => {
        const locked = await repo.lockById(trx, reportId);
        if (!locked) throw new AppError('REPORT_NOT_FOUND');
        if (Number(locked.status) !== 0) throw new AppError('REPORT_FINAL');
        const current = await repo.pages(trx, reportId);
        if (JSON.stringify(current) !== JSON.stringify(pages))
          throw new AppError('CONFLICT', { message: 'Der Bericht wurde während der Unterschrift geändert; bitte erneut unterschreiben' });
        const at = toDbDateTime(now);
        const id = await repo.insertPage(trx, {
          fk_bericht: reportId,
          page_order: pages.length + 1,
          title: 'Unterschrift',
          note: signatureNote(input.signerName, now, config.timeZone, shown),
          rotation: 0,
          layout: 'signature',
          source_path: imageRel,
          source_path_2: null,
          datec: at,
          tms: at,
        });
        await trx
          .insertInto('bericht_signature')
          .values({
            entity,
            fk_bericht: reportId,
            fk_page: id,
            verify_code: code,
            metadata_path: metaRel,
            signer_name: input.signerName,
            datec: at,
            signed_at_device: deviceColumn(device.signed_at_device_unix),
            signed_at_device_zone: device.signed_at_device_zone,
            device_time_plausible: device.device_time_plausible === null ? null : device.device_time_plausible ? 1 : 0,
          })
          .execute();
        await repo.updateReport(trx, reportId, { fk_user_modif: user.id });
        const facts = (await repo.signatureFacts(trx, [id])).get(id);
        const signed: SignedPageResponse = {
          ...toPageResponse((await repo.getPage(trx, id))!, facts),
          hash,
          page_count_at_signing: pages.length,
          verify_url: link,
        };
        await claim?.complete(201, signed, trx);
        return signed;
      });
      committed = true;
      return answer;
    } catch (error) {
      if (!committed) {
        for (const file of written) await rm(file, { force: true });
      }
      throw error;
    }
  }
}

export type SignatureService = ReturnType<typeof createSignatureService>;

/**
 * Verification on its own, for the API and for `fieldreport verify` (which reads the database and
 * the files directly, without a caller).
 */
export function createSignatureVerifier(deps: {
  handle: DbHandle;
  repo: ReportRepository;
  config: Config;
  key: SigningKey;
  digests?: DigestCache;
}) {
  const { handle, repo, config, key } = deps;
  const { db } = handle;
  const { dataRoot, entity } = config;
  const sha256Of = deps.digests ? deps.digests.sha256 : fileSha256;
  /** An image's SHA-256, or undefined when it is gone; a failing read (not a missing file) is an error, not a verdict. */
  const digest = async (relPath: string) => {
    let file: string;
    try {
      file = await resolveSource(dataRoot, entity, relPath);
    } catch {
      return undefined;
    }
    try {
      return await sha256Of(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  };

  /**
   * The strokes check: null when the metadata names no strokes (a signature made before they were
   * recorded, or without them), true when the file beside the image has the SHA-256 the metadata
   * names, false when it is gone or differs.
   */
  async function strokesOk(imageRelPath: string, summary: StrokesSummary | null | undefined): Promise<boolean | null> {
    if (!summary) return null;
    return (await digest(strokesPathOf(imageRelPath))) === summary.sha256;
  }

  async function verifyPage(page: PageRow, reportRef: string): Promise<VerifyResult> {
    const reportId = Number(page.fk_bericht);
    const base = { page_id: Number(page.rowid), report_id: reportId, report_ref: reportRef };
    const fail = (reason: VerifyReason, checks: VerifyResult['checks'], metadata: SignatureMetadata | null): VerifyResult => ({
      verified: false,
      reason,
      message: REASON_TEXT[reason],
      ...base,
      checks,
      metadata,
    });
    const notReached = { page_count: null, hash: null, image: null, strokes: null };
    let metadata: SignatureMetadata | null = null;
    try {
      if (!page.source_path) throw new Error('no image');
      metadata = JSON.parse(
        await readFile(await resolveSource(dataRoot, entity, metadataPathOf(page.source_path)), 'utf8'),
      ) as SignatureMetadata;
      if (!metadata || typeof metadata !== 'object' || typeof metadata.hash !== 'string') throw new Error('not metadata');
    } catch {
      return fail('metadata_missing', { metadata: false, seal: null, ...notReached }, null);
    }
    const { seal, ...sealed } = metadata;
    if ((seal as { key_id?: unknown } | undefined)?.key_id !== key.keyId)
      return fail('key_unknown', { metadata: true, seal: null, ...notReached }, metadata);
    if (!key.check(sealed, seal)) return fail('seal_broken', { metadata: true, seal: false, ...notReached }, metadata);
    // Sealed metadata of another report's signature, put beside this page, proves nothing here.
    if (metadata.report_id !== reportId)
      return fail('content_changed', { metadata: true, seal: true, ...notReached, hash: false }, metadata);
    const pages = await repo.pages(db, reportId);
    const before = pages.slice(
      0,
      pages.findIndex((p) => Number(p.rowid) === Number(page.rowid)),
    );
    if (before.length !== metadata.page_count_at_signing)
      return fail('page_count_changed', { metadata: true, seal: true, ...notReached, page_count: false }, metadata);
    // Evidence is read only for a signature whose hash covered it (form 3): older ones hash as they always did.
    const evidence = metadata.hash_form === HASH_FORM_EVIDENCE ? evidenceLookup(await pageEvidenceOf(db, entity, before)) : undefined;
    // An image that is gone (deleted in Dolibarr's document screens) is read from the copy kept when signing (kept-copies.ts).
    const signatureImage = page.source_path!;
    const coveredDigest = async (relPath: string) => (await digest(relPath)) ?? (await digest(keptCopyPath(signatureImage, relPath)));
    const hashOk = (await pagesDigest(reportRef, before, coveredDigest, evidence)).hash === metadata.hash;
    const imageOk = (await digest(page.source_path!)) === metadata.image_sha256;
    const strokes = await strokesOk(page.source_path!, metadata.strokes);
    const checks = { metadata: true, seal: true, page_count: true, hash: hashOk, image: imageOk, strokes };
    if (!hashOk || !imageOk) return fail('content_changed', checks, metadata);
    if (strokes === false) return fail('strokes_changed', checks, metadata);
    return {
      verified: true,
      message: 'Die Unterschrift ist gültig: die unterschriebenen Seiten sind unverändert',
      ...base,
      checks,
      metadata,
    };
  }

  return {
    digest,
    verifyPage,
    /** Every signature page of the report `ref` of the served entity, in page order; undefined when there is no such report. */
    async verifyReport(ref: string): Promise<VerifyResult[] | undefined> {
      const report = await db
        .selectFrom('bericht')
        .select(['rowid', 'ref'])
        .where('ref', '=', ref)
        .where('entity', '=', entity)
        .executeTakeFirst();
      if (!report) return undefined;
      const reportId = Number(report.rowid);
      const pages = (await repo.pages(db, reportId)).filter((p) => p.layout === 'signature');
      const results: VerifyResult[] = [];
      for (const page of pages) results.push(await verifyPage(page, report.ref));
      // A signature the database records whose page is gone or is no signature page any more fails too.
      const rows = await db.selectFrom('bericht_signature').select(['fk_page']).where('fk_bericht', '=', reportId).execute();
      for (const row of rows) {
        if (pages.some((p) => Number(p.rowid) === Number(row.fk_page))) continue;
        results.push({
          verified: false,
          reason: 'page_count_changed',
          message: 'Eine Unterschriftsseite fehlt oder ist keine mehr',
          page_id: Number(row.fk_page),
          report_id: reportId,
          report_ref: report.ref,
          checks: { metadata: false, seal: null, page_count: false, hash: null, image: null, strokes: null },
          metadata: null,
        });
      }
      return results;
    },
  };
}
