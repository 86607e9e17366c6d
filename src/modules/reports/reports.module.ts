/**
 * The reports module: reports, pages, templates, cover sheets and the PDF, wired once and shared
 * by its routes.
 */
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import { createLibreOffice } from '../../adapters/libreoffice.js';
import { listOdtTemplates, templateDirs, TEMPLATE_PATH_CONST } from '../../adapters/odt.js';
import { createConstRepository } from '../../dolibarr/const.repository.js';
import { entityRoot } from '../../dolibarr/ecm.js';
import { parseBody } from '../common/body.js';
import type { ModuleContext } from '../common/module-context.js';
import { createPageService } from './pages.service.js';
import { pagesRoutes } from './pages.routes.js';
import { pdfRoutes } from './pdf.routes.js';
import { createReportPdfService } from './report-pdf.service.js';
import { createReportSettingsService } from './report-settings.service.js';
import { createReportRepository } from './reports.repository.js';
import { reportsRoutes } from './reports.routes.js';
import { createReportService } from './reports.service.js';
import { templatesRoutes } from './templates.routes.js';
import { loadSigningKey } from '../signatures/seal.js';
import { MAX_CONFIRMATION_LENGTH, MAX_SIGNATURE_BYTES, signaturesRoutes } from '../signatures/signatures.routes.js';
import { createSignatureService } from '../signatures/signatures.service.js';
import { createTimeService } from '../times/times.service.js';
import { timesRoutes } from '../times/times.routes.js';
import { mailRoutes } from '../mail/mail.routes.js';
import { createMailService } from '../mail/mail.service.js';

export function createReportModule(app: FastifyInstance, ctx: ModuleContext) {
  const { config, handle, access, runs } = ctx;
  const repo = createReportRepository(handle.dialect);
  const consts = createConstRepository(handle.db, { entity: config.entity, instanceUniqueId: config.instanceUniqueId ?? '' });
  /** Dolibarr's convention: the folders listed in BERICHT_ADDON_PDF_ODT_PATH, by default doctemplates/bericht. */
  const odtTemplateDirs = async () =>
    templateDirs(entityRoot(config.dataRoot, config.entity), (await consts.getMany([TEMPLATE_PATH_CONST])).get(TEMPLATE_PATH_CONST));
  const odtTemplates = async () => listOdtTemplates(await odtTemplateDirs());
  const reports = createReportService({
    handle,
    repo,
    access,
    config,
    runs,
    printQueue: ctx.printQueue,
    totals: ctx.totals,
    odtTemplateNames: async () => (await odtTemplates()).map((t) => t.name),
  });
  const settings = createReportSettingsService({
    handle,
    repo,
    config,
    runs,
    visibleReport: reports.visibleReport,
    detail: reports.detail,
  });
  const pages = createPageService({
    handle,
    repo,
    access,
    config,
    runs,
    printQueue: ctx.printQueue,
    visibleReport: reports.visibleReport,
    detail: reports.detail,
  });
  const times = createTimeService({ db: handle.db, dialect: handle.dialect, access, entity: config.entity, runs });
  const pdf = createReportPdfService({
    handle,
    repo,
    config,
    consts,
    libreOffice: createLibreOffice({ binary: config.libreOfficeBinary, logger: app.log }),
    odtTemplateDirs,
    visibleReport: reports.visibleReport,
    detail: reports.detail,
    times,
    seal: ctx.pdfSeal,
    logger: app.log,
  });
  const key = loadSigningKey(config.signingKeyFile);
  if (key.created) {
    app.log.warn(
      { file: config.signingKeyFile, key_id: key.keyId },
      'made a new signing key for signature seals: keep this file and back it up; every process must use the same one (SIGNING_KEY_FILE), and seals made with another key read as key_unknown',
    );
  }
  const signatures = createSignatureService({ handle, repo, access, config, runs, key });
  const mails = createMailService({
    db: handle.db,
    dialect: handle.dialect,
    entity: config.entity,
    consts,
    mailEnv: config.mail.env,
    retryHours: config.mail.retryHours,
    runs,
    repo,
    visibleReport: reports.visibleReport,
    queued: () => ctx.mailQueue.kick(),
    logger: app.log,
  });
  return { config, handle, repo, pdfSeal: ctx.pdfSeal, reports, settings, pages, pdf, signatures, times, mails, odtTemplates, parseBody };
}

export type ReportModule = ReturnType<typeof createReportModule>;

export async function reportModuleRoutes(app: FastifyInstance, ctx: ModuleContext): Promise<void> {
  const mod = createReportModule(app, ctx);
  // Multipart only here and in the uploads context: the signature form (endpoint 14).
  await app.register(multipart, {
    limits: {
      files: 1,
      fileSize: MAX_SIGNATURE_BYTES + 1,
      fields: 10,
      fieldSize: MAX_CONFIRMATION_LENGTH * 4,
      parts: 12,
      fieldNameSize: 100,
      headerPairs: 50,
    },
  });
  await reportsRoutes(app, mod);
  await signaturesRoutes(app, {
    signatures: mod.signatures,
    pdfSeal: ctx.pdfSeal,
    timeZone: ctx.config.timeZone,
    uploadIdleMs: ctx.config.timeouts.uploadIdleSeconds * 1000,
  });
  await pagesRoutes(app, mod);
  await templatesRoutes(app, mod);
  await pdfRoutes(app, mod);
  await timesRoutes(app, mod);
  await mailRoutes(app, mod);
}
