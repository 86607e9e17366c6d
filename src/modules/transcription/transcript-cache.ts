/**
 * A transcript is kept beside its recording, as a hidden file of the order's folder:
 * `commande/<ref>/.<audio name>.transcript.json`. Beside it, it lives and goes with the order's
 * files (backups, moves, Dolibarr's removal of the folder); hidden (a leading '.'), it stays out of
 * the attachment list (ours and Dolibarr's both leave dot files out), so it is never offered as a
 * photo or attachment. It is written to a temporary name and renamed (never half a file), and it
 * is used only while the recording has the size and modification time it was made from and the
 * same language is asked for.
 */
import { createHash } from 'node:crypto';
import { lstat, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { replaceAtomically } from '../../adapters/file-store.js';

/** Largest transcript file read back; anything larger is not ours. */
const MAX_CACHE_BYTES = 16 * 1024 * 1024;
/** Longest cache file name (with room for the temporary name's suffix below the usual 255). */
const MAX_NAME_BYTES = 200;

export interface Transcript {
  text: string;
  /** The language of the text: the one asked for, or the one the server detected for `auto`. */
  language: string;
  /** The language asked for (a code or `auto`): part of the cache key. */
  requested_language: string;
  mode: string;
  /** Unix seconds. */
  created: number;
  source: { name: string; size: number; mtime_ms: number };
}

/** Where the transcript of `audioName` in `folder` is kept. */
export function transcriptPath(folder: string, audioName: string): string {
  const name = `.${audioName}.transcript.json`;
  if (Buffer.byteLength(name) <= MAX_NAME_BYTES) return path.join(folder, name);
  // A very long audio name: a fixed-length name derived from it.
  return path.join(folder, `.transcript-${createHash('sha256').update(audioName).digest('hex')}.json`);
}

function isTranscript(value: unknown): value is Transcript {
  const t = value as Transcript;
  return (
    !!t &&
    typeof t === 'object' &&
    typeof t.text === 'string' &&
    typeof t.language === 'string' &&
    typeof t.requested_language === 'string' &&
    typeof t.mode === 'string' &&
    Number.isInteger(t.created) &&
    !!t.source &&
    typeof t.source === 'object' &&
    typeof t.source.size === 'number' &&
    typeof t.source.mtime_ms === 'number'
  );
}

/**
 * The kept transcript when it still fits the recording (`size`, `mtimeMs`) and `language`;
 * otherwise undefined. A link, a folder or a damaged file in its place counts as none (a link is
 * never followed: it could lead out of the order's folder).
 */
export async function readTranscriptCache(
  file: string,
  key: { name: string; size: number; mtimeMs: number; language: string },
): Promise<Transcript | undefined> {
  try {
    const info = await lstat(file);
    if (!info.isFile() || info.size > MAX_CACHE_BYTES) return undefined;
    const value: unknown = JSON.parse(await readFile(file, 'utf8'));
    if (!isTranscript(value)) return undefined;
    const fits =
      value.source.name === key.name &&
      value.source.size === key.size &&
      value.source.mtime_ms === key.mtimeMs &&
      value.requested_language === key.language;
    return fits ? value : undefined;
  } catch {
    return undefined; // missing or unreadable: made anew
  }
}

export function writeTranscriptCache(file: string, transcript: Transcript): Promise<void> {
  return replaceAtomically(file, (temp) => writeFile(temp, `${JSON.stringify(transcript, null, 2)}\n`, { mode: 0o644 }));
}
