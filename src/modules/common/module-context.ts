/** What every module's routes are given: the configuration, the database, the access rules. */
import type { Config } from '../../config.js';
import type { DbHandle } from '../../db/database.js';
import type { ListTotals } from '../../db/list-total.js';
import type { ElementAccess } from '../access/element-access.js';
import type { CurrentUser } from '../auth/auth.service.js';
import type { PrintQueue } from '../../adapters/print-image.js';
import type { RunRegistry } from '../../adapters/runs.js';
import type { MailQueue } from '../mail/mail.queue.js';
import type { PdfSeal } from '../seal/pdf-seal.js';

export interface ModuleContext {
  config: Config;
  handle: DbHandle;
  access: ElementAccess;
  /** Pages of lists with their totals, counted as little as possible (list-total.ts). */
  totals: ListTotals;
  /** Decimals of totals (MAIN_MAX_DECIMALS_TOT, read at start), for roundTotal. */
  totalDecimals: number;
  /** This process's run and the liveness of others (runs.ts). */
  runs: RunRegistry;
  /** Print-size copies of photos, made in the background as photos arrive and pages are made. */
  printQueue: PrintQueue;
  /** The report mails to send, in every process (mail.queue.ts). */
  mailQueue: MailQueue;
  /** The PDF seal of final reports and its time-stamp queue. */
  pdfSeal: PdfSeal;
  /** A user as the database says now (never kept): undefined when gone, deactivated or outside its validity dates. */
  currentUser(id: number): Promise<CurrentUser | undefined>;
}
