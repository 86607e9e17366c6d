/**
 * The composition of the service: every repository, service and queue of a process, built once
 * here from the configuration and the database, with its start and stop tied to the app's
 * lifecycle. app.ts hands each module's routes the part of it they use; nothing else builds a
 * service.
 */
import type { FastifyInstance } from 'fastify';
import { createLibreOffice } from './adapters/libreoffice.js';
import { listOdtTemplates, TEMPLATE_PATH_CONST, templateDirs } from './adapters/odt.js';
import { createPrintQueue } from './adapters/print-image.js';
import { createRunRegistry } from './adapters/runs.js';
import type { Config } from './config.js';
import type { DbHandle } from './db/database.js';
import { createListTotals } from './db/list-total.js';
import { createConstRepository } from './dolibarr/const.repository.js';
import { entityRoot } from './dolibarr/ecm.js';
import { totalDecimals } from './dolibarr/price.js';
import { createElementAccess, namedUserColumns } from './modules/access/element-access.js';
import { createAuthService } from './modules/auth/auth.service.js';
import { createLoginThrottleRepository } from './modules/auth/login-throttle.repository.js';
import { createTokenService } from './modules/auth/token.js';
import { createTokenVoidRepository } from './modules/auth/token-void.repository.js';
import { createUserRepository } from './modules/auth/user.repository.js';
import type { ModuleContext } from './modules/common/module-context.js';
import { createCapabilitiesService } from './modules/capabilities/capabilities.service.js';
import { createCustomerRepository } from './modules/customers/customers.repository.js';
import { createCustomerService } from './modules/customers/customers.service.js';
import { createAgendaService } from './modules/agenda/agenda.service.js';
import { createInterventionService } from './modules/interventions/interventions.service.js';
import { createFilesService } from './modules/files/files.service.js';
import { createMaterialService } from './modules/materials/materials.service.js';
import { createProductService } from './modules/products/products.service.js';
import { createVanStock } from './modules/stock/van-stock.js';
import { createVisitIntervention } from './modules/office-records/visit-intervention.js';
import { createVisitInvoice } from './modules/office-records/visit-invoice.js';
import { createOrderRepository } from './modules/orders/orders.repository.js';
import { createOrderService } from './modules/orders/orders.service.js';
import { createTranscriptionService } from './modules/transcription/transcription.service.js';
import { createUploadTokenService } from './modules/uploads/upload-tokens.service.js';
import { uploadCaps } from './modules/uploads/upload-types.js';
import { createUploadsRepository } from './modules/uploads/uploads.repository.js';
import { createUploadService } from './modules/uploads/uploads.service.js';
import { createColumnFitter } from './dolibarr/charset.js';
import { createMailQueue } from './modules/mail/mail.queue.js';
import { createMailService } from './modules/mail/mail.service.js';
import { createPageService } from './modules/pages/pages.service.js';
import { createReportPdfService } from './modules/report-pdf/report-pdf.service.js';
import { createReportSettingsService } from './modules/reports/report-settings.service.js';
import { createReportRepository } from './modules/reports/reports.repository.js';
import { createReportService } from './modules/reports/reports.service.js';
import { printCacheDir } from './modules/reports/work-area.js';
import { createPdfSeal } from './modules/seal/pdf-seal.js';
import { loadSealCertificate } from './modules/seal/seal-certificate.js';
import { loadSigningKey } from './modules/signatures/signing-key.js';
import { createSignatureService } from './modules/signatures/signatures.service.js';
import { createTimeService } from './modules/times/times.service.js';

export async function composeServices(app: FastifyInstance, config: Config, handle: DbHandle) {
  const instanceUniqueId = config.instanceUniqueId ?? '';
  const tables = await handle.db.introspection.getTables();
  const columnsOf = (name: string) => tables.find((t) => t.name === `${config.dbPrefix}${name}`)?.columns.map((c) => c.name);
  const userColumns = columnsOf('user');
  if (!userColumns) throw new Error(`Table ${config.dbPrefix}user not found: run \`fieldreport migrate\` first`);
  const fkUserColumns = namedUserColumns(tables, config.dbPrefix);
  const runs = createRunRegistry(config.dataRoot);
  runs.start((error) =>
    app.log.warn(
      { err: error, folder: runs.dir },
      'the run marker cannot be written: what this process leaves after a crash is removed only after some hours',
    ),
  );
  app.addHook('onClose', async () => runs.stop());
  const consts = createConstRepository(handle.db, { entity: config.entity, instanceUniqueId });
  const printQueue = createPrintQueue(printCacheDir(config.dataRoot, config.entity), {
    onError: (source, error) =>
      app.log.warn(
        { source, err: error },
        "a photo's print-size copy (or an uploaded JPEG's thumbnails) not made ahead; the copy is made when a PDF needs it, a thumbnail when it is asked for",
      ),
  });
  app.decorate('printQueue', printQueue);
  // Before onClose, where the database closes: an uploaded photo's work settles its upload in it.
  app.addHook('preClose', async () => printQueue.close());
  // Every process sends the report mails due: started once the app is ready, stopped with it.
  const mailQueue = createMailQueue({
    db: handle.db,
    dialect: handle.dialect,
    prefix: handle.prefix,
    entity: config.entity,
    dataRoot: config.dataRoot,
    consts,
    mailEnv: config.mail.env,
    instanceId: instanceUniqueId,
    timeZone: config.timeZone,
    runs,
    logger: app.log,
    pollSeconds: config.mail.pollSeconds,
  });
  app.decorate('mailQueue', mailQueue);
  app.addHook('onReady', async () => mailQueue.start());
  app.addHook('onClose', async () => mailQueue.stop());
  // The PDF seal's certificate: the configured PKCS#12, else the one made at first start in the company's name.
  const sealCertificate = loadSealCertificate({
    keyFile: config.seal.keyFile,
    p12File: config.seal.p12File,
    p12Password: config.seal.p12Password,
    companyName: (await consts.getMany(['MAIN_INFO_SOCIETE_NOM'])).get('MAIN_INFO_SOCIETE_NOM') ?? '',
  });
  if (sealCertificate.created) {
    app.log.warn(
      { file: sealCertificate.file, subject: sealCertificate.subject },
      'made a new key and self-signed certificate for the PDF seal: keep this file and back it up; every process must use the same one (SEAL_KEY_FILE), or configure a CA certificate (SEAL_P12_FILE)',
    );
  }
  const pdfSeal = createPdfSeal({ handle, config, certificate: sealCertificate, runs, logger: app.log });
  app.decorate('pdfSeal', pdfSeal);
  app.addHook('onReady', async () => pdfSeal.queue.start());
  app.addHook('onClose', async () => pdfSeal.queue.stop());
  app.addHook('onClose', async () => pdfSeal.close());
  const users = createUserRepository(handle.db, { entity: config.entity, userColumns: new Set(userColumns) });
  const voids = createTokenVoidRepository(handle.db);
  const auth = createAuthService({
    users,
    throttle: createLoginThrottleRepository(handle),
    consts,
    tokens: createTokenService(instanceUniqueId),
    voids,
    limits: config.login,
    dummyCost: await users.maxBcryptCost(),
    timeZone: config.timeZone,
    cache: { seconds: config.authCacheSeconds, version: handle.dataVersion ?? handle.writes },
  });
  const access = createElementAccess(handle.db, {
    entity: config.entity,
    userColumns: fkUserColumns,
    assigned: { contactCodes: config.assignedContactCodes, agenda: config.assignedByAgenda },
  });
  const ctx: ModuleContext = {
    config,
    handle,
    runs,
    printQueue,
    mailQueue,
    pdfSeal,
    totalDecimals: totalDecimals((await consts.getMany(['MAIN_MAX_DECIMALS_TOT'])).get('MAIN_MAX_DECIMALS_TOT')),
    access,
    totals: createListTotals(handle),
    currentUser: (id) => auth.currentUser(id),
  };

  // What a technician reads and attaches: orders, customers, their files, uploads, materials.
  const { totals } = ctx;
  const orders = createOrderService({
    orders: createOrderRepository(handle, { access, totals }),
    access,
    dataRoot: config.dataRoot,
    entity: config.entity,
    totalDecimals: ctx.totalDecimals,
    timeZone: config.timeZone,
  });
  const customers = createCustomerService({
    customers: createCustomerRepository(handle, { entity: config.entity, access, totals }),
    totalDecimals: ctx.totalDecimals,
    timeZone: config.timeZone,
  });
  const agenda = createAgendaService({ db: handle.db, access, entity: config.entity, timeZone: config.timeZone });
  const interventions = createInterventionService({
    handle,
    access,
    dataRoot: config.dataRoot,
    entity: config.entity,
    timeZone: config.timeZone,
  });
  const files = createFilesService({ config, db: handle.db, access });
  const uploads = createUploadService({
    repo: createUploadsRepository(handle.db, handle.dialect, {
      fitter: createColumnFitter(handle.db, handle.dialect, handle.prefix),
      timeZone: config.timeZone,
    }),
    consts,
    dataRoot: config.dataRoot,
    entity: config.entity,
    caps: uploadCaps(config),
    runs,
    idleMs: config.timeouts.uploadIdleSeconds * 1000,
  });
  const uploadTokens = createUploadTokenService({
    db: handle.db,
    dialect: handle.dialect,
    access,
    entity: config.entity,
    defaultHours: config.uploadTokenHours,
    maxDays: config.uploadTokenMaxDays,
    currentUser: ctx.currentUser,
  });
  const stockColumns = {
    userHasWarehouse: columnsOf('user')?.includes('fk_warehouse') ?? false,
    productHasStockable: columnsOf('product')?.includes('stockable_product') ?? false,
  };
  const products = createProductService({ db: handle.db, dialect: handle.dialect, entity: config.entity, ...stockColumns });
  /** Text into Dolibarr's columns fitted to their character set (charset.ts). */
  const dolibarrText = createColumnFitter(handle.db, handle.dialect, handle.prefix);
  const vanStock = createVanStock({
    dialect: handle.dialect,
    entity: config.entity,
    timeZone: config.timeZone,
    consts,
    fitter: dolibarrText,
    ...stockColumns,
  });
  const materials = createMaterialService({ db: handle.db, dialect: handle.dialect, access, entity: config.entity, runs, products });
  const transcription = createTranscriptionService({ config, db: handle.db, access, consts });
  const capabilities = createCapabilitiesService({ consts, config });

  // The report's life: the report, its pages, its PDF, its signatures, the time on site, its mails.
  const repo = createReportRepository(handle.dialect);
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
    printQueue,
    totals,
    odtTemplateNames: async () => (await odtTemplates()).map((t) => t.name),
  });
  const visible = { visibleReport: reports.visibleReport, detail: reports.detail };
  const settings = createReportSettingsService({ handle, repo, config, runs, ...visible });
  const pages = createPageService({ handle, repo, access, config, runs, printQueue, ...visible });
  const times = createTimeService({
    db: handle.db,
    dialect: handle.dialect,
    access,
    entity: config.entity,
    runs,
    lineage: (conn, reportId) => repo.lineage(conn, reportId),
  });
  const libreOffice = createLibreOffice({ binary: config.libreOfficeBinary, logger: app.log });
  // Started with the service only where there is a cover sheet to make.
  app.decorate('warmUpCovers', async () => {
    if ((await odtTemplates()).length > 0) await libreOffice.warmUp();
  });
  app.addHook('onClose', async () => libreOffice.close());
  const pdf = createReportPdfService({
    handle,
    repo,
    config,
    consts,
    libreOffice,
    odtTemplateDirs,
    ...visible,
    times,
    seal: pdfSeal,
    vanStock,
    visitIntervention: createVisitIntervention({
      dialect: handle.dialect,
      entity: config.entity,
      timeZone: config.timeZone,
      orderHasProject: columnsOf('commande')?.includes('fk_projet') ?? false,
      fitter: dolibarrText,
    }),
    visitInvoice: createVisitInvoice({
      dialect: handle.dialect,
      entity: config.entity,
      timeZone: config.timeZone,
      orderHasProject: columnsOf('commande')?.includes('fk_projet') ?? false,
      hasCountries: columnsOf('c_country') !== undefined,
      fitter: dolibarrText,
    }),
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
    queued: () => mailQueue.kick(),
    logger: app.log,
  });

  return {
    ctx,
    auth,
    voids,
    runs,
    orders,
    customers,
    agenda,
    interventions,
    files,
    uploads,
    uploadTokens,
    products,
    materials,
    transcription,
    capabilities,
    reports,
    settings,
    pages,
    pdf,
    signatures,
    times,
    mails,
    pdfSeal,
    odtTemplates,
  };
}

export type Services = Awaited<ReturnType<typeof composeServices>>;
