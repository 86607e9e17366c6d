/** Names for the shapes the app uses, taken from the generated schema (never written by hand). */
import type { paths } from './schema.js';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Ok<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { responses: infer R }
  ? R extends { 200: infer A }
    ? Json<A>
    : R extends { 201: infer A }
      ? Json<A>
      : never
  : never;

type OrdersAnswer = Ok<'/api/orders.php', 'get'>;
export type OrderList = Extract<OrdersAnswer, { items: { ref: string }[] }>;
export type OrderSummary = OrderList['items'][number];
export type OrderDetail = Extract<OrdersAnswer, { reports: unknown }>;
export type Customer = NonNullable<OrderDetail['customer']>;
export type ReportSummary = OrderDetail['reports'][number];
export type OrderFileList = Extract<OrdersAnswer, { items: { url: string }[] }>;
export type OrderFile = OrderFileList['items'][number];
export type UploadAnswer = Ok<'/api/voice.php', 'post'>;
export type MaterialList = Ok<'/api/materials.php', 'get'>;
export type Material = MaterialList['items'][number];
type ProductsAnswer = Ok<'/api/products.php', 'get'>;
export type ProductList = Extract<ProductsAnswer, { items: unknown }>;
export type ProductIds = Extract<ProductsAnswer, { ids: unknown }>;
/** A product or service of Dolibarr's catalogue, with the stock of the caller's van. */
export type Product = ProductList['items'][number];
export type UploadLink = Ok<'/api/upload_token.php', 'post'>;
/** The order's QR upload links that work now (GET /api/upload_token.php?fk_element=), newest first. */
export type LiveUploadLink = Ok<'/api/upload_token.php', 'get'>['items'][number];
export type Transcript = Ok<'/api/transcribe.php', 'post'>;
type ReportsAnswer = Ok<'/api/reports.php', 'get'>;
export type ReportDetail = Extract<ReportsAnswer, { pages: unknown }>;
export type ReportPage = ReportDetail['pages'][number];
/** What a signature page says about its signing (null on every other page), for the app's own caption. */
export type PageSignature = NonNullable<ReportPage['signature']>;
export type TemplateList = Extract<Ok<'/api/templates.php', 'get'>, { items: unknown }>;
export type TemplateItem = TemplateList['items'][number];
export type OdtTemplateItem = Ok<'/api/odt_templates.php', 'get'>['items'][number];
type Created<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { responses: { 201: infer A } } ? Json<A> : never;
export type SignedPage = Extract<Created<'/api/pages.php', 'post'>, { verify_url: string }>;
export type Verification = Ok<'/ajax/verify_signature.php', 'get'>;
/** What this service offers (read once per login). */
export type Capabilities = Ok<'/api/capabilities.php', 'get'>;
/** Time on site at an order (GET /api/times.php): its intervals, their total, the caller's open one. */
export type TimeList = Ok<'/api/times.php', 'get'>;
export type TimeInterval = TimeList['items'][number];
/** A checklist page's item as the service answers it. */
export type ChecklistItem = NonNullable<ReportPage['checklist']>[number];
/** A report's mails (GET /api/mails.php?bericht_id=), newest first. */
type MailsAnswer = Ok<'/api/mails.php', 'get'>;
export type MailList = Extract<MailsAnswer, { items: unknown }>;
/** One mail to the customer: queued, sending, sent or failed (with the reason). */
export type MailJob = MailList['items'][number];
/** What a new mail of a final report would say: recipients Dolibarr knows, the settings' copies, subject and text. */
export type MailProposal = Extract<MailsAnswer, { configured: boolean }>;
export type MailRecipient = MailProposal['to'][number];
export type AgendaList = Ok<'/api/agenda.php', 'get'>;
export type Appointment = AgendaList['items'][number];
type InterventionsAnswer = Ok<'/api/interventions.php', 'get'>;
export type InterventionDetail = Extract<InterventionsAnswer, { reports: unknown }>;
export type InterventionList = Extract<InterventionsAnswer, { items: { ref: string }[] }>;
