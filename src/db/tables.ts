/**
 * The tables the service reads and writes, by their logical names (the prefix, `llx_` by default,
 * is added by TablePrefixPlugin). Dolibarr's tables keep Dolibarr's column names; only the columns
 * the service uses are typed. Identifiers stay snake_case everywhere: the API's field names are
 * snake_case too (the contract), so rows map to responses without a renaming layer.
 *
 * Date and time columns are read as 'YYYY-MM-DD HH:MM:SS' strings on every dialect, so they are
 * typed as strings: UTC in the module's tables (db/dialect.ts), the wall time of TIME_ZONE in
 * Dolibarr's own (dolibarr/time.ts).
 *
 * One file, longer than most: Kysely takes every table's type in one Database interface.
 */
import type { ColumnType, Generated } from 'kysely';

type DateTime = string | null;
type Int = number;

// ---- Dolibarr core -------------------------------------------------------------------------

export interface UserTable {
  rowid: Generated<Int>;
  entity: ColumnType<Int, Int | undefined, Int>;
  login: string;
  pass: string | null;
  pass_crypted: string | null;
  pass_temp: string | null;
  admin: ColumnType<Int, Int | undefined, Int>;
  statut: ColumnType<Int, Int | undefined, Int>;
  lastname: string | null;
  firstname: string | null;
  email: string | null;
  employee: ColumnType<Int, Int | undefined, Int>;
  fk_soc: Int | null;
  /** The user's default warehouse (Dolibarr's "default warehouse" of the user card): a technician's van. */
  fk_warehouse: Int | null;
  datestartvalidity: DateTime;
  dateendvalidity: DateTime;
  /** Newer Dolibarr versions only: sessions (tokens) created before this are void. */
  flagdelsessionsbefore: DateTime;
  datec: DateTime;
  tms: DateTime;
}

export interface UsergroupTable {
  rowid: Generated<Int>;
  nom: string;
  entity: ColumnType<Int, Int | undefined, Int>;
  note: string | null;
  datec: DateTime;
}

export interface RightsDefTable {
  id: Int;
  entity: ColumnType<Int, Int | undefined, Int>;
  libelle: string | null;
  module: string | null;
  module_position: ColumnType<Int, Int | undefined, Int>;
  family_position: ColumnType<Int, Int | undefined, Int>;
  perms: string | null;
  subperms: string | null;
  type: string | null;
  bydefault: ColumnType<Int, Int | undefined, Int>;
  /** Not in older Dolibarr versions: written only where the column exists. */
  module_origin?: string | null;
  enabled?: string | null;
}

export interface UserRightsTable {
  rowid: Generated<Int>;
  entity: ColumnType<Int, Int | undefined, Int>;
  fk_user: Int;
  fk_id: Int;
}

export interface UsergroupRightsTable {
  rowid: Generated<Int>;
  entity: ColumnType<Int, Int | undefined, Int>;
  fk_usergroup: Int;
  fk_id: Int;
}

export interface UsergroupUserTable {
  rowid: Generated<Int>;
  entity: ColumnType<Int, Int | undefined, Int>;
  fk_user: Int;
  fk_usergroup: Int;
}

export interface ConstTable {
  rowid: Generated<Int>;
  name: string;
  entity: ColumnType<Int, Int | undefined, Int>;
  value: string;
  type: string | null;
  visible: ColumnType<Int, Int | undefined, Int>;
  note: string | null;
}

export interface SocieteTable {
  rowid: Generated<Int>;
  nom: string | null;
  /** The third party's language for documents, e.g. de_DE, en_US; null: the installation's (migration 0011 on standalone tables). */
  default_lang: ColumnType<string | null, string | null | undefined, string | null>;
  name_alias: string | null;
  entity: ColumnType<Int, Int | undefined, Int>;
  status: ColumnType<Int, Int | undefined, Int>;
  client: ColumnType<Int, Int | undefined, Int>;
  fournisseur: ColumnType<Int, Int | undefined, Int>;
  code_client: string | null;
  code_fournisseur: string | null;
  address: string | null;
  zip: string | null;
  town: string | null;
  phone: string | null;
  email: string | null;
  url: string | null;
  tva_intra: string | null;
  note_public: string | null;
  datec: DateTime;
  tms: DateTime;
  fk_pays: ColumnType<Int | null, Int | null | undefined, Int | null>;
  /** Professional ids (a customer with one is a business, Societe::isACompany). */
  siren: ColumnType<string | null, string | null | undefined, string | null>;
  siret: ColumnType<string | null, string | null | undefined, string | null>;
  ape: ColumnType<string | null, string | null | undefined, string | null>;
  idprof4: ColumnType<string | null, string | null | undefined, string | null>;
  /** The kind of third party (llx_c_typent; TE_PRIVATE a private person), on a real Dolibarr. */
  fk_typent: ColumnType<Int | null, Int | null | undefined, Int | null>;
  /** The customer's price level (PRODUIT_MULTIPRICES), payment terms and mode (migration 0024 on standalone tables). */
  price_level: ColumnType<Int | null, Int | null | undefined, Int | null>;
  cond_reglement: ColumnType<Int | null, Int | null | undefined, Int | null>;
  mode_reglement: ColumnType<Int | null, Int | null | undefined, Int | null>;
}

/** Dolibarr's kinds of third party (llx_c_typent), on a real Dolibarr only. */
export interface CTypentTable {
  id: Int;
  code: string;
}

/** Dolibarr's countries (llx_c_country), on a real Dolibarr only. */
export interface CCountryTable {
  rowid: Int;
  code: string;
}

/** Columns common to orders, invoices and proposals. */
interface CommercialObjectColumns {
  rowid: Generated<Int>;
  ref: string;
  entity: ColumnType<Int, Int | undefined, Int>;
  ref_client: string | null;
  fk_soc: Int;
  fk_statut: ColumnType<Int, Int | undefined, Int>;
  fk_user_author: Int | null;
  fk_user_modif: Int | null;
  fk_user_valid: Int | null;
  total_ht: ColumnType<number | null, number | undefined | null, number | null>;
  total_tva: ColumnType<number | null, number | undefined | null, number | null>;
  total_ttc: ColumnType<number | null, number | undefined | null, number | null>;
  note_public: string | null;
  note_private: string | null;
  last_main_doc: string | null;
  tms: DateTime;
}

export interface CommandeTable extends CommercialObjectColumns {
  date_creation: DateTime;
  date_valid: DateTime;
  date_commande: DateTime;
  date_livraison: DateTime;
  fk_user_cloture: Int | null;
}

export interface FactureTable extends CommercialObjectColumns {
  ref_ext: ColumnType<string | null, string | null | undefined, string | null>;
  type: ColumnType<Int, Int | undefined, Int>;
  paye: ColumnType<Int, Int | undefined, Int>;
  datec: DateTime;
  datef: DateTime;
  date_valid: DateTime;
  date_lim_reglement: DateTime;
  fk_user_closing: Int | null;
}

export interface PropalTable extends CommercialObjectColumns {
  datec: DateTime;
  datep: DateTime;
  fin_validite: DateTime;
  date_valid: DateTime;
  fk_user_cloture: Int | null;
}

/** An intervention (module Interventions, install/mysql/tables/llx_fichinter.sql): no amounts of its own. */
export interface FichinterTable {
  rowid: Generated<Int>;
  ref: string;
  entity: ColumnType<Int, Int | undefined, Int>;
  ref_client: string | null;
  fk_soc: Int;
  fk_projet: Int | null;
  fk_contrat: Int | null;
  /** 0 draft, 1 validated, 2 billed, 3 closed (Fichinter::STATUS_*). */
  fk_statut: ColumnType<Int, Int | undefined, Int>;
  fk_user_author: Int | null;
  fk_user_modif: Int | null;
  fk_user_valid: Int | null;
  datec: DateTime | null;
  date_valid: DateTime | null;
  /** Planned start and end day of the work (date). */
  dateo: DateTime | null;
  datee: DateTime | null;
  duree: number | null;
  description: string | null;
  note_public: string | null;
  note_private: string | null;
  model_pdf: string | null;
  last_main_doc: string | null;
  tms: DateTime;
  ref_ext: ColumnType<string | null, string | null | undefined, string | null>;
  /** NULL, 0 not signed, 1 by the sender, 2 by the customer, 3 by the customer online, 9 by all. */
  signed_status: ColumnType<Int | null, Int | null | undefined, Int | null>;
}

/** A line of an intervention (llx_fichinterdet): a text, a date, a duration in seconds. */
export interface FichinterdetTable {
  rowid: Generated<Int>;
  fk_fichinter: Int;
  fk_parent_line: ColumnType<Int | null, Int | null | undefined, Int | null>;
  date: DateTime;
  description: string | null;
  duree: Int | null;
  rang: ColumnType<Int, Int | undefined, Int>;
  extraparams: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface EcmFilesTable {
  rowid: Generated<Int>;
  ref: string | null;
  label: string;
  share: string | null;
  entity: ColumnType<Int, Int | undefined, Int>;
  filepath: string;
  filename: string;
  src_object_type: string | null;
  src_object_id: Int | null;
  fullpath_orig: string | null;
  description: string | null;
  keywords: string | null;
  gen_or_uploaded: string | null;
  position: Int | null;
  date_c: DateTime;
  tms: DateTime;
  fk_user_c: Int | null;
  fk_user_m: Int | null;
}

export interface ElementElementTable {
  rowid: Generated<Int>;
  fk_source: Int;
  sourcetype: string;
  fk_target: Int;
  targettype: string;
  relationtype: string | null;
}

// ---- The module's own tables ---------------------------------------------------------------

export interface BerichtTable {
  rowid: Generated<Int>;
  ref: string;
  entity: ColumnType<Int, Int | undefined, Int>;
  /** Parent object: 'commande', 'facture', 'propal' or 'fichinter' and its rowid (null for a template). */
  element_type: string | null;
  fk_element: Int | null;
  title: string;
  format: string;
  orientation: string;
  odt_template: string | null;
  /** 0 draft, 1 final. */
  status: ColumnType<Int, Int | undefined, Int>;
  version: ColumnType<Int, Int | undefined, Int>;
  fk_bericht_parent: Int | null;
  is_template: ColumnType<Int, Int | undefined, Int>;
  template_label: string | null;
  final_pdf_path: string | null;
  /** Photo pages on one printed sheet of the PDF: 1, 2 or 4 (migration 0010; default 4). */
  photos_per_sheet: ColumnType<Int, Int | undefined, Int>;
  /** The intervention the report's time and parts went on (migration 0025), null while on none. */
  fk_fichinter: ColumnType<Int | null, Int | null | undefined, Int | null>;
  /** The customer invoice the report's time and parts went on (migration 0025), null while on none. */
  fk_facture: ColumnType<Int | null, Int | null | undefined, Int | null>;
  /** 1: the report lists every material line of its object, as reports finalized before migration 0026 did; 0: its own visit's. */
  all_material: ColumnType<Int, Int | undefined, Int>;
  fk_user_creat: Int;
  fk_user_modif: Int | null;
  datec: DateTime;
  tms: DateTime;
}

export interface BerichtPageTable {
  rowid: Generated<Int>;
  fk_bericht: Int;
  page_order: Int;
  title: string | null;
  note: string | null;
  /** Quarter turns clockwise, in degrees: 0, 90, 180, 270. */
  rotation: ColumnType<Int, Int | undefined, Int>;
  layout: string;
  source_path: string | null;
  /** The second image of a before/after page. */
  source_path_2: string | null;
  /** A checklist page's items, JSON (modules/pages/checklist.ts); null on other pages (migration 0012). */
  checklist: ColumnType<string | null, string | null | undefined, string | null>;
  /** What a template's page asks for, shown as the note's placeholder and never printed (migration 0018); null for none. */
  prompt: ColumnType<string | null, string | null | undefined, string | null>;
  /** Who added the page and who changed it last (migration 0016); null on pages from before, and on signature pages. */
  fk_user_creat: ColumnType<Int | null, Int | null | undefined, Int | null>;
  fk_user_modif: ColumnType<Int | null, Int | null | undefined, Int | null>;
  datec: DateTime;
  tms: DateTime;
}

export interface BerichtMaterialTable {
  rowid: Generated<Int>;
  entity: ColumnType<Int, Int | undefined, Int>;
  element_type: string;
  fk_element: Int;
  label: string;
  qty: ColumnType<number, number | undefined, number>;
  unit: string | null;
  note: string | null;
  fk_user_creat: Int;
  datec: DateTime;
  /** The catalogue's product or service (llx_product), null for a line of free text. */
  fk_product: Int | null;
  /** Dolibarr's unit (llx_c_units) of the quantity. */
  fk_unit: Int | null;
  /** Lot or serial number, for a product that needs one (llx_product.tobatch). */
  batch: string | null;
  /**
   * The line out of the van (migration 0022): the stock movement (llx_stock_mouvement) that took
   * it, 0 when it was settled without one, null while not yet settled.
   */
  fk_stock_mouvement: ColumnType<Int | null, Int | null | undefined, Int | null>;
  /** The final report that settled the line (migration 0025), null while none did. */
  fk_bericht: ColumnType<Int | null, Int | null | undefined, Int | null>;
}

export interface BerichtUploadTokenTable {
  rowid: Generated<Int>;
  entity: ColumnType<Int, Int | undefined, Int>;
  token: string;
  element_type: string;
  fk_element: Int;
  fk_user_creat: Int;
  datec: DateTime;
  date_expiry: string;
}

/** Time on site: one interval of a technician at an object (migration 0012). Times in UTC. */
export interface BerichtTimeTable {
  rowid: Generated<Int>;
  entity: ColumnType<Int, Int | undefined, Int>;
  element_type: string;
  fk_element: Int;
  fk_user: Int;
  /** The final report that took the interval; null until one is finalized. */
  fk_bericht: Int | null;
  arrival: string;
  departure: DateTime;
  /** The times as first recorded (a tap, or a manual entry), kept through corrections. */
  arrival_tapped: DateTime;
  departure_tapped: DateTime;
  /** JSON array of corrections: { at, by, reason, arrival, departure } (the times before it). */
  corrections: string | null;
  fk_user_modif: Int | null;
  datec: DateTime;
  tms: DateTime;
}

/** Failed logins, kept in the database so that every process behind a balancer counts the same. */
export interface BerichtLoginFailureTable {
  rowid: Generated<Int>;
  login: string;
  address: string;
  /** Unix seconds. */
  at: Int;
}

/** Per user, the second through which every token is void (migration 0017). */
export interface BerichtTokenVoidTable {
  rowid: Generated<Int>;
  fk_user: Int;
  /** Unix seconds: a token whose iat is at most this is refused. */
  void_through: Int;
  /** Unix seconds of the clock when the last void was written; 0: never. */
  voided_at: ColumnType<Int, Int | undefined, Int>;
  /** Unix seconds: the highest iat issued to the user; 0: none recorded. */
  issued_through: ColumnType<Int, Int | undefined, Int>;
  /** 1 while the service has seen the user deactivated. */
  inactive: ColumnType<Int, Int | undefined, Int>;
}

/** A single token ended by a logout, by its SHA-256, until its expiry (migration 0017). */
export interface BerichtTokenRevokedTable {
  rowid: Generated<Int>;
  token_hash: string;
  fk_user: Int;
  /** The token's exp, Unix seconds: the row may go after it. */
  exp: Int;
}

/** A login and an address it succeeded from (migration 0017). */
export interface BerichtLoginKnownTable {
  rowid: Generated<Int>;
  login: string;
  address: string;
  /** Unix seconds of the last success. */
  at: Int;
}

export interface BerichtSignatureTable {
  rowid: Generated<Int>;
  entity: ColumnType<Int, Int | undefined, Int>;
  fk_bericht: Int;
  /** The signature page. */
  fk_page: Int;
  /** Unguessable code of the public verification link. */
  verify_code: string;
  /** The metadata JSON beside the signature image, relative to the entity's documents root. */
  metadata_path: string;
  signer_name: string;
  /** When the service received the signature (UTC). */
  datec: string;
  /** When the customer signed, by the phone's clock (UTC); null when the phone sent no time (migration 0009). */
  signed_at_device: ColumnType<DateTime, DateTime | undefined, DateTime>;
  /** The phone's IANA time zone, e.g. Europe/Berlin; null when it sent none. */
  signed_at_device_zone: ColumnType<string | null, string | null | undefined, string | null>;
  /** 1 plausible, 0 not (more than 5 minutes after the server's time, or more than 30 days before it); null without a device time. */
  device_time_plausible: ColumnType<Int | null, Int | null | undefined, Int | null>;
}

export interface BerichtIdempotencyTable {
  rowid: Generated<Int>;
  entity: ColumnType<Int, Int | undefined, Int>;
  fk_user: Int;
  idem_key: string;
  scope: string;
  /** Null while the first request is still at work. */
  status_code: Int | null;
  response: string | null;
  datec: string;
  /** The run (process) that holds an unanswered claim; see runs.ts. */
  run_id: string | null;
}

/** A file being made visible together with its ecm_files row (migration 0006). */
export interface BerichtFileIntentTable {
  rowid: Generated<Int>;
  entity: ColumnType<Int, Int | undefined, Int>;
  run_id: string;
  filepath: string;
  filename: string;
  datec: string;
}

/** The PDF seal of a final report, and its document time stamp still to add (migration 0015). Times in UTC. */
export interface BerichtSealTable {
  rowid: Generated<Int>;
  entity: ColumnType<Int, Int | undefined, Int>;
  fk_bericht: Int;
  ref: string;
  version: Int;
  /** SHA-256 hex of the bytes the seal covers. */
  digest: string;
  pdf_id: string | null;
  sealed_sha256: string;
  stamped_sha256: string | null;
  cert_sha256: string;
  /** none, embedded, pending, added, failed. */
  timestamp: string;
  attempts: ColumnType<Int, Int | undefined, Int>;
  next_attempt_at: DateTime;
  lease_owner: string | null;
  lease_until: DateTime;
  error: string | null;
  stamped_at: DateTime;
  datec: string;
  tms: DateTime;
}

/** What the service recorded of a photo it received (migration 0014): one row per file. */
export interface BerichtPhotoEvidenceTable {
  rowid: Generated<Int>;
  entity: ColumnType<Int, Int | undefined, Int>;
  /** As in ecm_files: the folder relative to the entity's documents root (`commande/CO2401-0001`). */
  filepath: string;
  filename: string;
  /** SHA-256 (hex) of the bytes received. */
  sha256: string;
  size: Int;
  /** EXIF DateTimeOriginal (else DateTimeDigitized) as the camera wrote it: `YYYY-MM-DD HH:MM:SS`, its local time. */
  exif_taken_at: ColumnType<string | null, string | null | undefined, string | null>;
  /** EXIF OffsetTimeOriginal (`+01:00`), when written. */
  exif_offset: ColumnType<string | null, string | null | undefined, string | null>;
  /** EXIF GPS position in 1e-7 degrees. */
  exif_lat_e7: ColumnType<Int | null, Int | null | undefined, Int | null>;
  exif_lon_e7: ColumnType<Int | null, Int | null | undefined, Int | null>;
  /** The phone's capture time as sent: RFC 3339 with its offset. */
  device_taken_at: ColumnType<string | null, string | null | undefined, string | null>;
  /** The phone's position at capture in 1e-7 degrees (only when the person allowed it). */
  device_lat_e7: ColumnType<Int | null, Int | null | undefined, Int | null>;
  device_lon_e7: ColumnType<Int | null, Int | null | undefined, Int | null>;
  /** Who uploaded it (the link's creator for a QR upload). */
  fk_user: ColumnType<Int | null, Int | null | undefined, Int | null>;
  /** When the service received it (UTC). */
  datec: string;
}

/** A report sent by e-mail: a durable job (migration 0013). Times in UTC. */
export interface BerichtMailTable {
  rowid: Generated<Int>;
  entity: ColumnType<Int, Int | undefined, Int>;
  fk_bericht: Int;
  /** queued, sending (held by lease_owner until lease_until), sent, failed. */
  state: string;
  /** Addresses separated by ", " (as Dolibarr's email_to). */
  mail_to: string;
  mail_cc: string | null;
  mail_bcc: string | null;
  subject: string;
  body: string;
  lang: string | null;
  attempts: ColumnType<Int, Int | undefined, Int>;
  next_attempt_at: string;
  expires_at: string;
  lease_owner: string | null;
  lease_until: DateTime;
  message_id: string | null;
  server_response: string | null;
  error_code: string | null;
  error: string | null;
  fk_actioncomm: Int | null;
  fk_user_author: Int;
  /** The address the send came from. */
  ip: string | null;
  datec: string;
  date_sent: DateTime;
  tms: DateTime;
}

/** A contact of a third party (Dolibarr's llx_socpeople; only the columns used). */
export interface SocpeopleTable {
  rowid: Generated<Int>;
  entity: ColumnType<Int, Int | undefined, Int>;
  fk_soc: Int | null;
  civility: string | null;
  lastname: string | null;
  firstname: string | null;
  email: string | null;
  default_lang: string | null;
  statut: ColumnType<Int, Int | undefined, Int>;
  datec: DateTime;
}

/** Dolibarr's contact types (llx_c_type_contact). */
export interface CTypeContactTable {
  rowid: Generated<Int>;
  element: string;
  source: string;
  code: string;
  libelle: string;
  active: ColumnType<Int, Int | undefined, Int>;
  position: ColumnType<Int, Int | undefined, Int>;
}

/** An object's contacts (llx_element_contact): `statut` 4 is active. */
export interface ElementContactTable {
  rowid: Generated<Int>;
  datecreate: DateTime;
  statut: Int | null;
  element_id: Int;
  fk_c_type_contact: Int;
  fk_socpeople: Int;
}

/** Dolibarr's agenda events (llx_actioncomm; key `id`). Times are Dolibarr's wall time. */
export interface ActioncommTable {
  id: Generated<Int>;
  ref: string;
  entity: ColumnType<Int, Int | undefined, Int>;
  datep: DateTime;
  datep2: DateTime;
  fk_action: Int | null;
  code: string | null;
  datec: DateTime;
  tms: ColumnType<DateTime, DateTime | undefined, DateTime>;
  fk_user_author: Int | null;
  fk_user_mod: ColumnType<Int | null, Int | null | undefined, Int | null>;
  fk_project: ColumnType<Int | null, Int | null | undefined, Int | null>;
  fk_soc: Int | null;
  fk_contact: ColumnType<Int | null, Int | null | undefined, Int | null>;
  fk_parent: ColumnType<Int, Int | undefined, Int>;
  fk_user_action: Int | null;
  transparency: ColumnType<Int | null, Int | null | undefined, Int | null>;
  priority: ColumnType<Int | null, Int | null | undefined, Int | null>;
  visibility: ColumnType<string | null, string | null | undefined, string | null>;
  fulldayevent: ColumnType<Int, Int | undefined, Int>;
  percent: Int;
  location: ColumnType<string | null, string | null | undefined, string | null>;
  durationp: ColumnType<number | null, number | null | undefined, number | null>;
  label: string;
  note: string | null;
  email_subject: ColumnType<string | null, string | null | undefined, string | null>;
  email_msgid: ColumnType<string | null, string | null | undefined, string | null>;
  email_from: ColumnType<string | null, string | null | undefined, string | null>;
  email_sender: ColumnType<string | null, string | null | undefined, string | null>;
  email_to: ColumnType<string | null, string | null | undefined, string | null>;
  email_tocc: ColumnType<string | null, string | null | undefined, string | null>;
  email_tobcc: ColumnType<string | null, string | null | undefined, string | null>;
  errors_to: ColumnType<string | null, string | null | undefined, string | null>;
  reply_to: ColumnType<string | null, string | null | undefined, string | null>;
  status: ColumnType<Int, Int | undefined, Int>;
  fk_element: Int | null;
  elementtype: string | null;
  ip: ColumnType<string | null, string | null | undefined, string | null>;
}

/** Who an event is assigned to (llx_actioncomm_resources). */
export interface ActioncommResourcesTable {
  rowid: Generated<Int>;
  fk_actioncomm: Int;
  element_type: string;
  fk_element: Int;
  answer_status: ColumnType<string | null, string | null | undefined, string | null>;
  mandatory: ColumnType<Int | null, Int | null | undefined, Int | null>;
  transparency: ColumnType<Int | null, Int | null | undefined, Int | null>;
}

/** Dolibarr's event types (llx_c_actioncomm). */
export interface CActioncommTable {
  id: Int;
  code: string;
  type: string;
  libelle: string;
  active: Int;
}

// ---- Products and stock (Dolibarr's modules Products/Services and Stocks) --------------------

/** A product or service (install/mysql/tables/llx_product.sql): the columns the service reads. */
export interface ProductTable {
  rowid: Generated<Int>;
  ref: string;
  entity: ColumnType<Int, Int | undefined, Int>;
  label: string;
  description: string | null;
  datec: DateTime;
  tms: DateTime;
  price: ColumnType<number, number | undefined, number>;
  price_ttc: ColumnType<number, number | undefined, number>;
  price_base_type: ColumnType<string, string | undefined, string>;
  tva_tx: number | null;
  default_vat_code: string | null;
  tosell: ColumnType<Int, Int | undefined, Int>;
  tobuy: ColumnType<Int, Int | undefined, Int>;
  tobatch: ColumnType<Int, Int | undefined, Int>;
  /** 0 product, 1 service. */
  fk_product_type: ColumnType<Int, Int | undefined, Int>;
  barcode: string | null;
  fk_barcode_type: Int | null;
  stockable_product: ColumnType<Int, Int | undefined, Int>;
  stock: number | null;
  pmp: ColumnType<number, number | undefined, number>;
  fk_unit: Int | null;
  fk_user_author: Int | null;
  /** A service's duration ('1h', '30i', '2d'; migration 0024 on standalone tables). */
  duration: ColumnType<string | null, string | null | undefined, string | null>;
}

/** Dolibarr's units (llx_c_units). */
export interface CUnitsTable {
  rowid: Generated<Int>;
  code: string | null;
  sortorder: Int | null;
  scale: Int | null;
  label: string | null;
  short_label: string | null;
  unit_type: string | null;
  active: ColumnType<Int, Int | undefined, Int>;
}

/** A warehouse (llx_entrepot): a technician's van is one. */
export interface EntrepotTable {
  rowid: Generated<Int>;
  ref: string;
  entity: ColumnType<Int, Int | undefined, Int>;
  description: string | null;
  lieu: string | null;
  statut: ColumnType<Int, Int | undefined, Int>;
  datec: DateTime;
  tms: DateTime;
  fk_user_author: Int | null;
}

/** The stock of a product in a warehouse (llx_product_stock). */
export interface ProductStockTable {
  rowid: Generated<Int>;
  tms: DateTime;
  fk_product: Int;
  fk_entrepot: Int;
  reel: number | null;
}

/** Lots and serial numbers in a warehouse's stock (llx_product_batch). */
export interface ProductBatchTable {
  rowid: Generated<Int>;
  tms: DateTime;
  fk_product_stock: Int;
  batch: string;
  qty: ColumnType<number, number | undefined, number>;
}

/** A stock movement (llx_stock_mouvement). */
export interface StockMouvementTable {
  rowid: Generated<Int>;
  tms: ColumnType<DateTime, DateTime | undefined, DateTime>;
  datem: DateTime;
  fk_product: Int;
  batch: string | null;
  eatby: string | null;
  sellby: string | null;
  fk_entrepot: Int;
  value: number;
  price: ColumnType<number, number | undefined, number>;
  /** 0 manual entry, 1 manual exit, 2 automatic exit, 3 automatic entry. */
  type_mouvement: Int;
  fk_user_author: Int | null;
  label: string | null;
  inventorycode: string | null;
  fk_project: ColumnType<Int | null, Int | null | undefined, Int | null>;
  fk_origin: Int | null;
  origintype: string | null;
  model_pdf: ColumnType<string | null, string | null | undefined, string | null>;
  fk_projet: ColumnType<Int, Int | undefined, Int>;
}

/** A lot or serial number of a product (llx_product_lot). */
export interface ProductLotTable {
  rowid: Generated<Int>;
  entity: ColumnType<Int | null, Int | null | undefined, Int | null>;
  fk_product: Int;
  batch: string | null;
  eatby: ColumnType<string | null, string | null | undefined, string | null>;
  sellby: ColumnType<string | null, string | null | undefined, string | null>;
  datec: DateTime;
  tms: ColumnType<DateTime, DateTime | undefined, DateTime>;
  fk_user_creat: ColumnType<Int | null, Int | null | undefined, Int | null>;
}

/** A kit's parts (llx_product_association): a father product and its children. */
export interface ProductAssociationTable {
  rowid: Generated<Int>;
  fk_product_pere: Int;
  fk_product_fils: Int;
  qty: number | null;
  incdec: ColumnType<Int | null, Int | null | undefined, Int | null>;
}

/** A line of an invoice or an order (llx_facturedet, llx_commandedet): the columns this service writes or reads. */
interface DocumentLineColumns {
  rowid: Generated<Int>;
  fk_parent_line: ColumnType<Int | null, Int | null | undefined, Int | null>;
  fk_product: Int | null;
  label: ColumnType<string | null, string | null | undefined, string | null>;
  description: string | null;
  vat_src_code: ColumnType<string | null, string | null | undefined, string | null>;
  tva_tx: number | null;
  localtax1_tx: ColumnType<number | null, number | null | undefined, number | null>;
  localtax1_type: ColumnType<string | null, string | null | undefined, string | null>;
  localtax2_tx: ColumnType<number | null, number | null | undefined, number | null>;
  localtax2_type: ColumnType<string | null, string | null | undefined, string | null>;
  qty: number | null;
  remise_percent: ColumnType<number | null, number | null | undefined, number | null>;
  remise: ColumnType<number | null, number | null | undefined, number | null>;
  subprice: number | null;
  subprice_ttc: ColumnType<number | null, number | null | undefined, number | null>;
  price: ColumnType<number | null, number | null | undefined, number | null>;
  total_ht: number | null;
  total_tva: number | null;
  total_localtax1: ColumnType<number | null, number | null | undefined, number | null>;
  total_localtax2: ColumnType<number | null, number | null | undefined, number | null>;
  total_ttc: number | null;
  product_type: ColumnType<Int | null, Int | null | undefined, Int | null>;
  info_bits: ColumnType<Int | null, Int | null | undefined, Int | null>;
  buy_price_ht: ColumnType<number | null, number | null | undefined, number | null>;
  special_code: ColumnType<Int | null, Int | null | undefined, Int | null>;
  rang: ColumnType<Int | null, Int | null | undefined, Int | null>;
  fk_unit: Int | null;
  fk_multicurrency: ColumnType<Int | null, Int | null | undefined, Int | null>;
  multicurrency_code: ColumnType<string | null, string | null | undefined, string | null>;
  multicurrency_subprice: ColumnType<number | null, number | null | undefined, number | null>;
  multicurrency_subprice_ttc: ColumnType<number | null, number | null | undefined, number | null>;
  multicurrency_total_ht: ColumnType<number | null, number | null | undefined, number | null>;
  multicurrency_total_tva: ColumnType<number | null, number | null | undefined, number | null>;
  multicurrency_total_ttc: ColumnType<number | null, number | null | undefined, number | null>;
  ref_ext: ColumnType<string | null, string | null | undefined, string | null>;
}
export interface FacturedetTable extends DocumentLineColumns {
  fk_facture: Int;
  batch: ColumnType<string | null, string | null | undefined, string | null>;
  fk_warehouse: ColumnType<Int | null, Int | null | undefined, Int | null>;
  fk_code_ventilation: ColumnType<Int, Int | undefined, Int>;
  situation_percent: ColumnType<number | null, number | null | undefined, number | null>;
  fk_user_author: Int | null;
  fk_user_modif: Int | null;
}
export interface CommandedetTable extends DocumentLineColumns {
  fk_commande: Int;
}
/** A product's price of a customer level (llx_product_price, PRODUIT_MULTIPRICES). */
export interface ProductPriceTable {
  rowid: Generated<Int>;
  entity: ColumnType<Int, Int | undefined, Int>;
  fk_product: Int;
  date_price: string;
  price_level: Int | null;
  price: number | null;
  price_ttc: number | null;
  price_base_type: ColumnType<string | null, string | null | undefined, string | null>;
  tva_tx: ColumnType<number, number | undefined, number>;
  tosell: ColumnType<Int | null, Int | null | undefined, Int | null>;
}
/** A product's price for one customer (llx_product_customer_price, PRODUIT_CUSTOMER_PRICES). */
export interface ProductCustomerPriceTable {
  rowid: Generated<Int>;
  entity: ColumnType<Int, Int | undefined, Int>;
  fk_product: Int;
  fk_soc: Int;
  date_begin: string | null;
  date_end: string | null;
  price: number | null;
  price_ttc: ColumnType<number | null, number | null | undefined, number | null>;
  price_base_type: ColumnType<string | null, string | null | undefined, string | null>;
  tva_tx: number | null;
  discount_percent: ColumnType<number | null, number | null | undefined, number | null>;
  datec: ColumnType<string | null, string | null | undefined, string | null>;
}
/** Dolibarr's payment terms (llx_c_payment_term). */
export interface CPaymentTermTable {
  rowid: Generated<Int>;
  entity: ColumnType<Int, Int | undefined, Int>;
  code: string | null;
  sortorder: Int | null;
  active: ColumnType<Int | null, Int | null | undefined, Int | null>;
  libelle: string | null;
  libelle_facture: string | null;
  type_cdr: Int | null;
  nbjour: Int | null;
  decalage: Int | null;
  deposit_percent: string | null;
  position: ColumnType<Int, Int | undefined, Int>;
}

export interface Database {
  user: UserTable;
  usergroup: UsergroupTable;
  rights_def: RightsDefTable;
  user_rights: UserRightsTable;
  usergroup_rights: UsergroupRightsTable;
  usergroup_user: UsergroupUserTable;
  const: ConstTable;
  societe: SocieteTable;
  commande: CommandeTable;
  facture: FactureTable;
  propal: PropalTable;
  fichinter: FichinterTable;
  fichinterdet: FichinterdetTable;
  facturedet: FacturedetTable;
  commandedet: CommandedetTable;
  product_price: ProductPriceTable;
  product_customer_price: ProductCustomerPriceTable;
  c_payment_term: CPaymentTermTable;
  c_country: CCountryTable;
  c_typent: CTypentTable;
  product: ProductTable;
  c_units: CUnitsTable;
  entrepot: EntrepotTable;
  product_stock: ProductStockTable;
  product_batch: ProductBatchTable;
  stock_mouvement: StockMouvementTable;
  product_lot: ProductLotTable;
  product_association: ProductAssociationTable;
  ecm_files: EcmFilesTable;
  element_element: ElementElementTable;
  bericht: BerichtTable;
  bericht_page: BerichtPageTable;
  bericht_material: BerichtMaterialTable;
  bericht_upload_token: BerichtUploadTokenTable;
  bericht_login_failure: BerichtLoginFailureTable;
  bericht_token_void: BerichtTokenVoidTable;
  bericht_token_revoked: BerichtTokenRevokedTable;
  bericht_login_known: BerichtLoginKnownTable;
  bericht_idempotency: BerichtIdempotencyTable;
  bericht_signature: BerichtSignatureTable;
  bericht_file_intent: BerichtFileIntentTable;
  bericht_time: BerichtTimeTable;
  bericht_mail: BerichtMailTable;
  bericht_seal: BerichtSealTable;
  bericht_photo_evidence: BerichtPhotoEvidenceTable;
  socpeople: SocpeopleTable;
  c_type_contact: CTypeContactTable;
  element_contact: ElementContactTable;
  actioncomm: ActioncommTable;
  actioncomm_resources: ActioncommResourcesTable;
  c_actioncomm: CActioncommTable;
}

export type TableName = keyof Database;

/** Logical table names that the prefix plugin rewrites. */
export const TABLE_NAMES: readonly TableName[] = [
  'user',
  'usergroup',
  'rights_def',
  'user_rights',
  'usergroup_rights',
  'usergroup_user',
  'const',
  'societe',
  'commande',
  'facture',
  'propal',
  'fichinter',
  'fichinterdet',
  'facturedet',
  'commandedet',
  'product_price',
  'product_customer_price',
  'c_payment_term',
  'c_country',
  'c_typent',
  'product',
  'c_units',
  'entrepot',
  'product_stock',
  'product_batch',
  'stock_mouvement',
  'product_lot',
  'product_association',
  'ecm_files',
  'element_element',
  'bericht',
  'bericht_page',
  'bericht_material',
  'bericht_upload_token',
  'bericht_login_failure',
  'bericht_token_void',
  'bericht_token_revoked',
  'bericht_login_known',
  'bericht_idempotency',
  'bericht_signature',
  'bericht_file_intent',
  'bericht_time',
  'bericht_mail',
  'bericht_seal',
  'bericht_photo_evidence',
  'socpeople',
  'c_type_contact',
  'element_contact',
  'actioncomm',
  'actioncomm_resources',
  'c_actioncomm',
];
