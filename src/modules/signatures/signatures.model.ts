/**
 * What a signature is made of and answers: its limits, its sealed metadata, the form's input, the
 * verdicts of a check, and the small rules both signing (signatures.service.ts) and verifying
 * (signature-verifier.ts) follow.
 */
import { localTime, zoneName } from '../../dolibarr/time.js';
import { toDbDateTime } from '../../db/dialect.js';
import { type HashedEvidence } from './signature-hash.js';
import { hashedEvidence, type PhotoEvidenceRow } from '../photo-evidence/photo-evidence.js';
import { deviceTimeShown, type DeviceTime, type DeviceTimeFacts, type ImplausibleReason } from './device-time.js';
import { type ParsedStrokes, type StrokesSummary } from './strokes.js';
import { type Signoff, type VisitCoverage } from './signoff.js';

/** Public checks of a signature's code (the QR code's link) at once per process, and waiting beyond them (then 503). */
export const PUBLIC_CHECKS = 2;
export const PUBLIC_CHECKS_WAITING = 8;
/** Files whose SHA-256 a process remembers for checks (fingerprint.ts). */
export const DIGEST_CACHE_FILES = 20_000;

/** Longest side of a signature PNG (a phone screen is at most a few thousand pixels). */
export const MAX_SIGNATURE_SIDE = 4096;
export const METADATA_FORMAT = 'fieldreport-signature/1';
export const DEFAULT_CONFIRMATION =
  'Hiermit bestätige ich, dass die in diesem Bericht dokumentierten Arbeiten ausgeführt wurden und der Bericht den Zustand bei Abnahme wiedergibt.';
export const HEADLINE = 'Abnahmebestätigung – Unterschrift';

export type VerifyReason =
  | 'metadata_missing'
  | 'key_unknown'
  | 'seal_broken'
  | 'page_count_changed'
  | 'content_changed'
  | 'strokes_changed';
export const REASON_TEXT: Record<VerifyReason, string> = {
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
  /**
   * What the customer was shown before signing (signoff.ts), as the service took it; its work,
   * times and material are in the hash (form 4). Null when the phone sent none (the hash covers the
   * pages only); absent in metadata made before sign-offs were kept.
   */
  signoff?: Signoff | null;
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
  /** What the customer was shown before signing (signoff.ts), when the phone sent it. */
  signoff?: Signoff;
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
  /** Whether the signature covers the visit's work, times and material beside the pages (a sign-off, hash form 4); absent when the metadata could not be read. */
  covers_visit?: boolean;
  /** What of the visit changed since the signature, in words with counts (signoff.ts, notCoveredInWords); null when nothing did or without a sign-off. */
  not_covered?: string | null;
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
  /**
   * For a signature with a sign-off whose check passed: what of the visit (work, times, material)
   * was added, changed or removed since, which the signature does not cover (signoff.ts); null
   * otherwise (no sign-off, or the check failed).
   */
  not_covered: VisitCoverage | null;
  metadata: SignatureMetadata | null;
}

/** The hash's view of the photo evidence read for a report's pages (by path). */
export function evidenceLookup(rows: ReadonlyMap<string, PhotoEvidenceRow>): (relPath: string) => HashedEvidence | undefined {
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

export const stamp = (d: Date) => d.toISOString().replace(/[-:T]/g, '').slice(0, 14);

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
export function deviceColumn(unix: number | null): string | null {
  if (unix === null) return null;
  const year = new Date(unix * 1000).getUTCFullYear();
  return year >= 1000 && year <= 9999 ? toDbDateTime(unix) : null;
}
