/**
 * The error catalogue: every failure the API answers with has a code here, with its HTTP status
 * and the German message a person reads. Services throw `AppError(code)`; the error handler turns
 * it into `{ error, code, details? }`. Login messages are the contract's, to the letter.
 */
export const errorCatalogue = {
  // Login (docs/api-contract.md, Login)
  AUTH_METHOD_NOT_ALLOWED: { status: 405, message: 'POST erforderlich' },
  AUTH_CREDENTIALS_MISSING: { status: 400, message: 'login + password erforderlich' },
  AUTH_LOGIN_FAILED: { status: 401, message: 'Login fehlgeschlagen' },
  AUTH_USER_DISABLED: { status: 403, message: 'User deaktiviert' },
  AUTH_NO_RIGHTS: { status: 403, message: 'Keine Bericht-Rechte' },
  AUTH_TOO_MANY_ATTEMPTS: {
    status: 429,
    message: 'Zu viele fehlgeschlagene Anmeldeversuche, bitte später erneut versuchen',
  },
  // Tokens
  AUTH_TOKEN_MISSING: { status: 401, message: 'Anmeldung erforderlich: kein Token übergeben' },
  AUTH_TOKEN_INVALID: { status: 401, message: 'Token ungültig' },
  AUTH_TOKEN_EXPIRED: { status: 401, message: 'Token abgelaufen, bitte neu anmelden' },
  AUTH_RIGHT_MISSING: { status: 403, message: 'Dafür fehlt das Recht' },
  // Objects and files
  ORDER_NOT_FOUND: { status: 404, message: 'Auftrag nicht gefunden' },
  INTERVENTION_NOT_FOUND: { status: 404, message: 'Serviceauftrag nicht gefunden' },
  CUSTOMER_NOT_FOUND: { status: 404, message: 'Kunde nicht gefunden' },
  OBJECT_NOT_FOUND: { status: 404, message: 'Objekt nicht gefunden' },
  FILE_NOT_FOUND: { status: 404, message: 'Datei nicht gefunden' },
  FILE_PATH_INVALID: { status: 400, message: 'Ungültiger Dateipfad' },
  FILE_MODULE_UNKNOWN: { status: 400, message: 'Unbekannter Bereich (modulepart)' },
  THUMBNAIL_UNAVAILABLE: { status: 404, message: 'Für diese Datei gibt es keine Vorschau' },
  UPLOAD_MISSING: { status: 400, message: 'Keine Datei im Feld "file" übertragen' },
  UPLOAD_TOO_LARGE: { status: 413, message: 'Die Datei ist zu groß' },
  UPLOAD_TYPE_UNSUPPORTED: { status: 415, message: 'Dieser Dateityp wird nicht unterstützt' },
  IMAGE_INVALID: { status: 400, message: 'Das Bild ist beschädigt oder kann nicht gelesen werden' },
  IDEMPOTENCY_IN_PROGRESS: { status: 409, message: 'Dieselbe Anfrage wird gerade schon bearbeitet' },
  IDEMPOTENCY_KEY_REUSED: { status: 409, message: 'Dieser Idempotency-Key wurde schon für eine andere Anfrage benutzt' },
  RANGE_NOT_SATISFIABLE: { status: 416, message: 'Der angefragte Bereich liegt außerhalb der Datei' },
  PRECONDITION_FAILED: { status: 412, message: 'Die Datei wurde inzwischen geändert' },
  // Reports, pages, templates
  REPORT_NOT_FOUND: { status: 404, message: 'Bericht nicht gefunden' },
  PAGE_NOT_FOUND: { status: 404, message: 'Seite nicht gefunden' },
  TEMPLATE_NOT_FOUND: { status: 404, message: 'Vorlage nicht gefunden' },
  ODT_TEMPLATE_NOT_FOUND: { status: 400, message: 'Diese Deckblatt-Vorlage gibt es nicht' },
  REPORT_FINAL: { status: 409, message: 'Der Bericht ist abgeschlossen und kann nicht mehr geändert werden' },
  REPORT_EMPTY: { status: 409, message: 'Der Bericht hat keine Seiten' },
  REPORT_TOO_MANY_PAGES: { status: 409, message: 'Der Bericht hat die höchste Seitenzahl erreicht' },
  REPORT_SOURCE_MISSING: { status: 409, message: 'Ein Bild des Berichts fehlt; der Bericht kann so nicht abgeschlossen werden' },
  REPORT_SOURCE_CHANGED: { status: 409, message: 'Ein Bild des Berichts wurde gerade geändert; bitte erneut unterschreiben' },
  REPORT_REF_EXHAUSTED: { status: 503, message: 'Es konnte keine freie Berichtsnummer vergeben werden, bitte erneut versuchen' },
  PAGE_ORDER_MISMATCH: { status: 400, message: 'Die Reihenfolge muss genau die Seiten des Berichts nennen, jede einmal' },
  SIGNATURE_TOO_LARGE: { status: 413, message: 'Das Unterschriftsbild ist zu groß' },
  STROKES_TOO_LARGE: { status: 413, message: 'Die Strichaufzeichnung der Unterschrift (strokes) ist zu groß' },
  SIGNOFF_TOO_LARGE: { status: 413, message: 'Die Abnahme zur Unterschrift (signoff) ist zu groß' },
  PAGE_SIGNED: { status: 409, message: 'Diese Seite ist durch eine Unterschrift gedeckt und kann nicht mehr geändert werden' },
  SIGNATURE_BUSY: { status: 503, message: 'Es werden gerade zu viele Unterschriften geprüft, bitte gleich erneut versuchen' },
  UPLOAD_TOKEN_NOT_FOUND: { status: 404, message: 'Diesen Upload-Link gibt es nicht' },
  UPLOAD_TOKEN_EXPIRED: { status: 410, message: 'Dieser Upload-Link ist abgelaufen' },
  UPLOAD_TOKEN_REVOKED: {
    status: 410,
    message: 'Dieser Upload-Link gilt nicht mehr: wer ihn erzeugt hat, darf in diesen Auftrag nicht mehr schreiben',
  },
  MATERIAL_NOT_FOUND: { status: 404, message: 'Materialposition nicht gefunden' },
  PRODUCT_NOT_FOUND: { status: 404, message: 'Artikel nicht gefunden oder nicht im Verkauf' },
  BATCH_REQUIRED: { status: 400, message: 'Für diesen Artikel ist eine Charge oder Seriennummer nötig' },
  MATERIAL_TAKEN: {
    status: 409,
    message: 'Die Position ist schon aus dem Fahrzeug gebucht und bleibt; eine Korrektur macht das Büro in Dolibarr',
  },
  MATERIAL_REPORTED: {
    status: 409,
    message: 'Die Position steht in einem abgeschlossenen Bericht und bleibt; eine Korrektur macht das Büro in Dolibarr',
  },
  STOCK_INSUFFICIENT: {
    status: 409,
    message:
      'Im Fahrzeug ist nicht genug auf Lager, und Dolibarr lässt keinen negativen Bestand zu; Menge prüfen oder das Büro den Bestand korrigieren lassen',
  },
  TIME_NOT_FOUND: { status: 404, message: 'Zeiteintrag nicht gefunden' },
  MAIL_NOT_FOUND: { status: 404, message: 'E-Mail nicht gefunden' },
  REPORT_NOT_FINAL: { status: 409, message: 'Nur ein abgeschlossener Bericht kann versendet werden' },
  MAIL_LIMIT_REACHED: { status: 429, message: 'Zu viele E-Mails in kurzer Zeit; bitte später erneut senden' },
  TIME_ALREADY_OPEN: { status: 409, message: 'Die Ankunft ist schon erfasst; erst die Abfahrt erfassen' },
  TIME_NOT_OPEN: { status: 409, message: 'Keine offene Ankunft: erst die Ankunft erfassen' },
  TIME_OVERLAP: { status: 409, message: 'Die Zeit überschneidet sich mit einem anderen Eintrag' },
  TIME_REPORTED: { status: 409, message: 'Dieser Zeiteintrag steht in einem abgeschlossenen Bericht und kann nicht mehr geändert werden' },
  TIME_UNDO_NOT_POSSIBLE: { status: 409, message: 'Dieser Zeiteintrag lässt sich nicht mehr rückgängig machen; bitte korrigieren' },
  PHOTO_IN_USE: { status: 409, message: 'Das Foto wird in einem Bericht verwendet und kann nicht gelöscht werden' },
  PAGE_SOURCE_REQUIRED: { status: 400, message: 'Für dieses Seitenlayout fehlt ein Bild' },
  PDF_BUSY: { status: 503, message: 'Es werden gerade zu viele PDFs erstellt, bitte gleich erneut versuchen' },
  // Speech-to-text (endpoint 25)
  // A technician reads this: no setting names. Which settings are missing or wrong goes to the log.
  TRANSCRIBE_NOT_CONFIGURED: { status: 503, message: 'Die Spracherkennung ist auf diesem Server nicht eingerichtet' },
  TRANSCRIBE_FAILED: { status: 502, message: 'Der Spracherkennungsdienst hat die Aufnahme nicht in Text umgewandelt' },
  TRANSCRIBE_TIMEOUT: { status: 504, message: 'Der Spracherkennungsdienst hat nicht rechtzeitig geantwortet' },
  TRANSCRIBE_BUSY: { status: 503, message: 'Es laufen gerade zu viele Spracherkennungen, bitte gleich erneut versuchen' },
  // HTTP basics
  METHOD_NOT_ALLOWED: { status: 405, message: 'Methode nicht erlaubt' },
  ROUTE_NOT_FOUND: { status: 404, message: 'Nicht gefunden' },
  ACTION_UNKNOWN: { status: 400, message: 'Unbekannte Aktion' },
  VALIDATION_FAILED: { status: 400, message: 'Ungültige Eingabe' },
  BODY_INVALID_JSON: { status: 400, message: 'Der Inhalt ist kein gültiges JSON' },
  BODY_TOO_LARGE: { status: 413, message: 'Die Anfrage ist zu groß' },
  MEDIA_TYPE_UNSUPPORTED: { status: 415, message: 'Dieser Inhaltstyp wird nicht unterstützt' },
  REQUEST_INVALID: { status: 400, message: 'Ungültige Anfrage' },
  REQUEST_TIMEOUT: { status: 408, message: 'Die Anfrage kam nicht rechtzeitig vollständig an' },
  HEADERS_TOO_LARGE: { status: 431, message: 'Die Kopfzeilen der Anfrage sind zu groß' },
  CONFLICT: { status: 409, message: 'Konflikt mit dem aktuellen Zustand' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'Dienst vorübergehend nicht verfügbar' },
  // The web app at /app/
  APP_NOT_BUILT: { status: 503, message: 'Die App ist nicht gebaut: npm run build ausführen' },
  // Faults of the server's storage and database: never the person's file or input
  STORAGE_FULL: {
    status: 507,
    message: 'Der Speicher des Servers ist voll; nichts wurde gespeichert. Bitte den Administrator verständigen',
  },
  DATABASE_READ_ONLY: {
    status: 503,
    message: 'Die Datenbank nimmt gerade keine Änderungen an; nichts wurde gespeichert. Bitte den Administrator verständigen',
  },
  DATABASE_BUSY: { status: 503, message: 'Die Datenbank ist gerade belegt; nichts wurde gespeichert. Bitte gleich erneut versuchen' },
  INTERNAL_ERROR: { status: 500, message: 'Interner Fehler' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof errorCatalogue;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: unknown;
  /** Extra response headers, such as `Retry-After` or `Allow`. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: ErrorCode, options: { message?: string; details?: unknown; headers?: Record<string, string> } = {}) {
    const entry = errorCatalogue[code];
    super(options.message ?? entry.message);
    this.name = 'AppError';
    this.code = code;
    this.status = entry.status;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }
}

/** The one JSON error shape of the API (docs/architecture.md, "Errors"). */
export interface ErrorBody {
  error: string;
  code: string;
  details?: unknown;
}

export function toErrorBody(error: AppError): ErrorBody {
  return error.details === undefined
    ? { error: error.message, code: error.code }
    : { error: error.message, code: error.code, details: error.details };
}
