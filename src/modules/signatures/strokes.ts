/**
 * Stroke evidence: every pointer sample of a signature as the phone recorded it (what the makers of
 * signature pads keep as biometric evidence), sent as the multipart field `strokes` beside the PNG.
 *
 * The format, version `fieldreport-strokes/1`, is one JSON object:
 *
 *   { "format": "fieldreport-strokes/1",
 *     "started_at_unix_ms": 1764000000000.25,        the first sample, by the phone's clock
 *     "pad": { "width": 366, "height": 506, "pixel_ratio": 3 },   the pad in CSS pixels, and
 *                                                     device pixels per CSS pixel of the PNG
 *     "sample_fields": ["x", "y", "t", "pressure"],
 *     "strokes": [ { "pointer_type": "pen", "samples": [[12.5, 30.25, 0, 0.4], …] }, … ] }
 *
 * x and y are CSS pixels from the top-left corner of the pad's canvas (its border box, as
 * getBoundingClientRect gives it: the coordinates signature_pad draws with); t is milliseconds
 * since the drawing's first sample (0 for it, never decreasing, also across strokes: the gaps
 * between strokes are kept); pressure is the pointer's normalised pressure, 0..1 (a mouse says 0.5
 * while its button is down). A stroke is one pointer from down to up, with its type.
 *
 * The service checks the form strictly (unknown keys are refused, so a later version must say so
 * in `format`) and stores the bytes exactly as they came: the metadata's `strokes.sha256` is the
 * SHA-256 of the stored file, and the metadata is sealed.
 */
import { createHash } from 'node:crypto';
import { AppError } from '../../errors.js';

export const STROKES_FORMAT = 'fieldreport-strokes/1';
/** The field as sent, in bytes. */
export const MAX_STROKES_BYTES = 4 * 1024 * 1024;
/** Strokes in one signature (a signature has a few dozen at most). */
export const MAX_STROKES = 1000;
/** Samples of all strokes together: over three minutes of drawing at 240 samples a second. */
export const MAX_STROKE_SAMPLES = 50_000;
/** Coordinates beyond this many CSS pixels from the pad lie on no screen. */
const MAX_COORDINATE = 1_000_000;
const MAX_PAD_SIDE = 100_000;
const MAX_PIXEL_RATIO = 100;
/** Date's own range. */
const MAX_UNIX_MS = 8.64e15;
export const POINTER_TYPES = ['mouse', 'pen', 'touch'] as const;
export type PointerType = (typeof POINTER_TYPES)[number];
const SAMPLE_FIELDS = ['x', 'y', 't', 'pressure'] as const;

/** What the sealed metadata says of the stored strokes file. */
export interface StrokesSummary {
  format: string;
  /** SHA-256 (hex) of the stored file's bytes: the field exactly as sent. */
  sha256: string;
  bytes: number;
  strokes: number;
  samples: number;
  /** t of the last sample: from the first touch of the pad to the last lift. */
  duration_ms: number;
  /** The pointer types that drew, sorted. */
  pointer_types: PointerType[];
}

export interface ParsedStrokes {
  /** The bytes to store. */
  data: Buffer;
  summary: StrokesSummary;
}

/** `<image>.strokes.json`: the strokes file beside a signature image. */
export function strokesPathOf(imageRelPath: string): string {
  return imageRelPath.replace(/\.[^./]+$/, '') + '.strokes.json';
}

const invalid = (why: string, where?: string) =>
  new AppError('VALIDATION_FAILED', {
    message: `strokes ist ungültig: ${where ? `${where}: ` : ''}${why}`,
    details: [{ field: 'body.strokes', message: where ? `${where}: ${why}` : why }],
  });

export const strokesTooLarge = (what: string) =>
  new AppError('STROKES_TOO_LARGE', {
    message: `strokes ist zu groß: ${what}`,
    details: [{ field: 'body.strokes', message: `too large: ${what}` }],
  });

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function exactKeys(value: Record<string, unknown>, keys: readonly string[], where: string): void {
  for (const key of keys) if (!Object.hasOwn(value, key)) throw invalid(`"${key}" fehlt`, where);
  const extra = Object.keys(value).find((k) => !keys.includes(k));
  if (extra !== undefined) throw invalid(`unbekannter Schlüssel "${extra.slice(0, 40)}"`, where);
}

function number(value: unknown, where: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid('muss eine endliche Zahl sein', where);
  if (value < min || value > max) throw invalid(`muss zwischen ${min} und ${max} liegen`, where);
  return value;
}

/**
 * The first key named twice in one object of `text`, valid JSON (JSON.parse keeps the last of them
 * silently, so a record could say one thing to this check and another to a reader of the file).
 * One pass over the text.
 */
export function duplicateKey(text: string): { key: string; where: string } | undefined {
  const stack: Array<
    { keys: Set<string>; expectKey: boolean; path: string; index: number; key?: string } | { array: true; path: string; index: number }
  > = [];
  const pathOf = () => {
    const top = stack[stack.length - 1];
    return top ? ('array' in top ? `${top.path}[${top.index}]` : `${top.path ? `${top.path}.` : ''}${top.key ?? ''}`) : '';
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      let j = i + 1;
      while (text.charCodeAt(j) !== 0x22) j += text.charCodeAt(j) === 0x5c ? 2 : 1;
      const top = stack[stack.length - 1];
      if (top && !('array' in top) && top.expectKey) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        if (top.keys.has(key)) return { key, where: top.path };
        top.keys.add(key);
        top.key = key;
        top.expectKey = false;
      }
      i = j;
    } else if (c === 0x7b) {
      stack.push({ keys: new Set(), expectKey: true, path: pathOf(), index: 0 });
    } else if (c === 0x5b) {
      stack.push({ array: true, path: pathOf(), index: 0 });
    } else if (c === 0x7d || c === 0x5d) {
      stack.pop();
    } else if (c === 0x2c) {
      const top = stack[stack.length - 1];
      if (top && 'array' in top) top.index += 1;
      else if (top) top.expectKey = true;
    }
  }
  return undefined;
}

/**
 * The field `strokes` as sent: checked, and summed up for the metadata. Malformed or wrong: 400
 * VALIDATION_FAILED; beyond a limit: 413 STROKES_TOO_LARGE; both name `body.strokes` and where in
 * it (`strokes[2].samples[17][3]`).
 */
export function parseStrokes(raw: string | Buffer): ParsedStrokes {
  const data = Buffer.isBuffer(raw) ? raw : Buffer.from(raw, 'utf8');
  if (data.length > MAX_STROKES_BYTES) throw strokesTooLarge(`mehr als ${MAX_STROKES_BYTES} Bytes`);
  let value: unknown;
  const text = data.toString('utf8');
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid('kein gültiges JSON');
  }
  const twice = duplicateKey(text);
  if (twice) throw invalid(`Schlüssel "${twice.key.slice(0, 40)}" doppelt`, twice.where || undefined);
  if (!isObject(value)) throw invalid('muss ein JSON-Objekt sein');
  if (value.format !== STROKES_FORMAT) throw invalid(`unbekanntes Format (erwartet "${STROKES_FORMAT}")`, 'format');
  exactKeys(value, ['format', 'started_at_unix_ms', 'pad', 'sample_fields', 'strokes'], '');
  number(value.started_at_unix_ms, 'started_at_unix_ms', -MAX_UNIX_MS, MAX_UNIX_MS);
  if (!isObject(value.pad)) throw invalid('muss ein Objekt sein', 'pad');
  exactKeys(value.pad, ['width', 'height', 'pixel_ratio'], 'pad');
  for (const side of ['width', 'height'] as const) {
    if (number(value.pad[side], `pad.${side}`, 0, MAX_PAD_SIDE) === 0) throw invalid('muss größer als 0 sein', `pad.${side}`);
  }
  if (number(value.pad.pixel_ratio, 'pad.pixel_ratio', 0, MAX_PIXEL_RATIO) === 0)
    throw invalid('muss größer als 0 sein', 'pad.pixel_ratio');
  if (
    !Array.isArray(value.sample_fields) ||
    value.sample_fields.length !== SAMPLE_FIELDS.length ||
    value.sample_fields.some((f, i) => f !== SAMPLE_FIELDS[i])
  ) {
    throw invalid(`muss ${JSON.stringify(SAMPLE_FIELDS)} sein`, 'sample_fields');
  }
  const strokes = value.strokes;
  if (!Array.isArray(strokes) || strokes.length === 0) throw invalid('muss eine nicht leere Liste sein', 'strokes');
  if (strokes.length > MAX_STROKES) throw strokesTooLarge(`mehr als ${MAX_STROKES} Striche`);
  const types = new Set<PointerType>();
  let samples = 0;
  let last = 0;
  for (const [s, stroke] of strokes.entries()) {
    const at = `strokes[${s}]`;
    if (!isObject(stroke)) throw invalid('muss ein Objekt sein', at);
    exactKeys(stroke, ['pointer_type', 'samples'], at);
    if (typeof stroke.pointer_type !== 'string' || !(POINTER_TYPES as readonly string[]).includes(stroke.pointer_type)) {
      throw invalid(`muss ${POINTER_TYPES.join(', ')} sein`, `${at}.pointer_type`);
    }
    types.add(stroke.pointer_type as PointerType);
    if (!Array.isArray(stroke.samples) || stroke.samples.length === 0) throw invalid('muss eine nicht leere Liste sein', `${at}.samples`);
    samples += stroke.samples.length;
    if (samples > MAX_STROKE_SAMPLES) throw strokesTooLarge(`mehr als ${MAX_STROKE_SAMPLES} Messpunkte`);
    for (const [i, sample] of (stroke.samples as unknown[]).entries()) {
      const where = `${at}.samples[${i}]`;
      if (!Array.isArray(sample) || sample.length !== SAMPLE_FIELDS.length) throw invalid(`muss [${SAMPLE_FIELDS.join(', ')}] sein`, where);
      number(sample[0], `${where}[0] (x)`, -MAX_COORDINATE, MAX_COORDINATE);
      number(sample[1], `${where}[1] (y)`, -MAX_COORDINATE, MAX_COORDINATE);
      const t = number(sample[2], `${where}[2] (t)`, 0, MAX_UNIX_MS);
      number(sample[3], `${where}[3] (pressure)`, 0, 1);
      if (s === 0 && i === 0 && t !== 0) throw invalid('der erste Messpunkt hat t = 0 (Zeiten zählen ab ihm)', `${where}[2] (t)`);
      if (t < last) throw invalid('Zeiten dürfen nicht abnehmen', `${where}[2] (t)`);
      last = t;
    }
  }
  return {
    data,
    summary: {
      format: STROKES_FORMAT,
      sha256: createHash('sha256').update(data).digest('hex'),
      bytes: data.length,
      strokes: strokes.length,
      samples,
      duration_ms: last,
      pointer_types: [...types].sort(),
    },
  };
}

/** "3 Striche, 412 Messpunkte (Stift)" and "4,2 s": the public check's words for a summary. */
export function strokesInWords(summary: Pick<StrokesSummary, 'strokes' | 'samples' | 'duration_ms' | 'pointer_types'>): {
  counts: string;
  duration: string;
} {
  const n = (v: number) => v.toLocaleString('de-DE');
  const names: Record<string, string> = { mouse: 'Maus', pen: 'Stift', touch: 'Finger' };
  const by = summary.pointer_types.map((t) => names[t] ?? t).join(', ');
  const counts = `${n(summary.strokes)} ${summary.strokes === 1 ? 'Strich' : 'Striche'}, ${n(summary.samples)} ${summary.samples === 1 ? 'Messpunkt' : 'Messpunkte'}${by ? ` (${by})` : ''}`;
  const seconds = summary.duration_ms / 1000;
  const duration =
    seconds < 60
      ? `${seconds.toLocaleString('de-DE', { minimumFractionDigits: 1, maximumFractionDigits: 1 })} s`
      : `${Math.floor(seconds / 60)} min ${(seconds % 60).toLocaleString('de-DE', { minimumFractionDigits: 1, maximumFractionDigits: 1 })} s`;
  return { counts, duration };
}
