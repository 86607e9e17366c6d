/**
 * Signature pages and their proof (contract endpoints 14 and 15): signing, and the checks of the API
 * and of the QR code's public page.
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
 * With the signature the phone sends what the customer was shown before signing (signoff.ts): the
 * work, the time on site and the material lines join the pages in the hash (form 4), and the whole
 * sign-off goes into the sealed metadata, so a check can tell what changed since.
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
 * Verifying: signature-verifier.ts; what a signature holds and answers: signatures.model.ts.
 *
 * One file, a little longer than most: signing is one transaction story (claim, files, hash, page,
 * row, answer) read top to bottom.
 */
import { localTime } from '../../dolibarr/time.js';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, rm, rmdir } from 'node:fs/promises';
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
import { pageEvidenceOf, toPageResponse, withPageSignatures } from '../reports/reports.mappers.js';
import type { RunRegistry } from '../../adapters/runs.js';
import { idempotent, type IdempotentClaim } from '../common/idempotency.js';
import { reportFolder, resolveSource, WORK_AREA_DIR } from '../reports/work-area.js';
import { entityRoot } from '../../dolibarr/ecm.js';
import { keepCopies, keptCopiesOf, keptFolderOf, KEPT_DIR, pageImagePaths, signingMarker } from '../reports/kept-copies.js';
import { fileSha256, pagesDigest } from './signature-hash.js';
import { createLimiter } from '../common/limiter.js';
import { createDigestCache } from './fingerprint.js';
import type { SigningKey } from './signing-key.js';
import { deviceTimeFacts, deviceTimeShown } from './device-time.js';
import { strokesPathOf } from './strokes.js';
import { notCoveredInWords } from './signoff.js';
import {
  DEFAULT_CONFIRMATION,
  DIGEST_CACHE_FILES,
  deviceColumn,
  evidenceLookup,
  HEADLINE,
  MAX_SIGNATURE_SIDE,
  METADATA_FORMAT,
  metadataPathOf,
  PUBLIC_CHECKS,
  PUBLIC_CHECKS_WAITING,
  signatureNote,
  stamp,
  verifyUrl,
  type PublicCheck,
  type SignatureMetadata,
  type SignInput,
  type VerifyResult,
} from './signatures.model.js';
import { createSignatureVerifier } from './signature-verifier.js';

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
      const report = page && (await repo.getById(db, page.fk_bericht, access.reportVisible(user, REPORT_ALIAS)));
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
      const page = await repo.getPage(db, row.fk_page);
      const report = await db.selectFrom('bericht').select(['ref']).where('rowid', '=', row.fk_bericht).executeTakeFirst();
      const unverified = (message: string): PublicCheck => ({
        report_ref: report?.ref ?? '',
        signer_name: row.signer_name,
        signed_at: fromDbDateTime(row.datec),
        device_time: null,
        verified: false,
        message,
      });
      if (!page || !report || page.layout !== 'signature' || page.fk_bericht !== row.fk_bericht)
        return unverified('Die Unterschriftsseite fehlt oder wurde verändert');
      const result = await publicLimit(() => verifyPage(page, report.ref), signal);
      if (result.metadata && result.metadata.verify_code !== code) return unverified('Der Prüfcode gehört nicht zu dieser Unterschrift');
      return {
        report_ref: result.metadata?.report_ref ?? report.ref,
        signer_name: result.metadata?.signer_name ?? row.signer_name,
        signed_at: result.metadata?.server_time_unix ?? fromDbDateTime(row.datec),
        device_time: result.metadata ?? null,
        ...(result.metadata
          ? {
              strokes: result.metadata.strokes ?? null,
              // What it covers only as far as the seal vouches for the metadata.
              ...(result.checks.seal ? { covers_visit: Boolean(result.metadata.signoff) } : {}),
              not_covered: notCoveredInWords(result.not_covered),
            }
          : {}),
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
    if (report.is_template === 1) throw new AppError('CONFLICT', { message: 'Eine Vorlage wird nicht unterschrieben' });
    if (report.status !== 0) throw new AppError('REPORT_FINAL');
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
      // With a sign-off, what the customer was shown of the work, the time and the material too (form 4).
      const { hash, form: hashForm } = await pagesDigest(report.ref, pages, digestOf, evidenceLookup(evidence), input.signoff);
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
    const parent = await parentInfo(report.element_type, report.fk_element === null ? null : report.fk_element);
    const confirmation = input.confirmation?.trim() || DEFAULT_CONFIRMATION;
    const gps = input.gpsLat !== undefined && input.gpsLon !== undefined ? `${input.gpsLat.toFixed(6)}, ${input.gpsLon.toFixed(6)}` : null;
    const link = verifyUrl(input.baseUrl, code);
    const sheet = await renderSignatureSheet({
      headline: HEADLINE,
      fields: [
        { label: 'Bericht', value: `${report.ref} – ${report.title}` },
        ...(parent
          ? [
              {
                label: report.element_type === 'fichinter' ? 'Serviceauftrag' : 'Auftrag',
                value: parent.ref + (parent.ref_client ? ` (${parent.ref_client})` : ''),
              },
            ]
          : []),
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
        input.signoff
          ? `SHA-256 über ${pages.length} Seite(n), Arbeiten, Zeiten, Material und ${report.ref}: ${hash}`
          : `SHA-256 über ${pages.length} Seite(n) und ${report.ref}: ${hash}`,
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
      signoff: input.signoff ?? null,
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
        if (locked.status !== 0) throw new AppError('REPORT_FINAL');
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
