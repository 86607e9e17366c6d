/**
 * Which files an upload accepts, decided from the bytes (file-type), never from the client's name
 * or content type (docs/architecture.md, Invariants). Each accepted kind says which extension the stored
 * file gets, which MIME type the API reports, and whether Dolibarr thumbnails are made for it.
 */
import { fileTypeFromFile } from 'file-type';
import type { Config } from '../../config.js';

export type UploadKind = 'photo' | 'audio';

export interface AcceptedType {
  /** Extension of the stored file, without the dot. */
  ext: string;
  /** MIME type reported in the response. */
  mime: string;
  /** A raster image sharp reads: opened to check it, and given both Dolibarr thumbnails. */
  raster: boolean;
}

/**
 * Photos: JPEG, PNG, WebP (thumbnails), HEIC/HEIF (stored as they are: sharp's prebuilt libvips
 * cannot decode HEVC, and Dolibarr makes no thumbnails for them either).
 */
function photoType(ext: string, mime: string): AcceptedType | undefined {
  switch (mime) {
    case 'image/jpeg':
      return { ext: 'jpg', mime, raster: true };
    case 'image/png':
      return { ext: 'png', mime, raster: true };
    case 'image/webp':
      return { ext: 'webp', mime, raster: true };
    case 'image/heic':
      return { ext: 'heic', mime, raster: false };
    case 'image/heif':
      return { ext: ext === 'heic' ? 'heic' : 'heif', mime, raster: false };
    default:
      return undefined;
  }
}

/**
 * Audio (docs/api-contract.md, Limits: webm, mp4, mp3, ogg). A WebM or MP4 container cannot be told apart from
 * video by its first bytes, and phones record voice into both (MediaRecorder): they count as audio.
 * Every Ogg audio codec (Vorbis, Opus, FLAC, Speex) is stored as `.ogg`; Ogg video is refused.
 */
function audioType(ext: string, mime: string): AcceptedType | undefined {
  if (ext === 'webm') return { ext: 'webm', mime: 'audio/webm', raster: false };
  if (ext === 'mp4' && mime === 'video/mp4') return { ext: 'mp4', mime: 'audio/mp4', raster: false };
  if (['m4a', 'm4b', 'f4a', 'f4b'].includes(ext)) return { ext: 'm4a', mime: 'audio/mp4', raster: false };
  if (ext === 'mp3' && mime === 'audio/mpeg') return { ext: 'mp3', mime: 'audio/mpeg', raster: false };
  if (['ogg', 'opus', 'oga', 'spx'].includes(ext) && mime.startsWith('audio/ogg')) return { ext: 'ogg', mime: 'audio/ogg', raster: false };
  return undefined;
}

/** The accepted type of the file at `file` for `kind`, or undefined when it is none of them. */
export async function detectUploadType(file: string, kind: UploadKind): Promise<AcceptedType | undefined> {
  const detected = await fileTypeFromFile(file);
  if (!detected) return undefined;
  return kind === 'photo' ? photoType(detected.ext, detected.mime) : audioType(detected.ext, detected.mime);
}

/** For the OpenAPI descriptions. */
export const ACCEPTED_DESCRIPTION: Readonly<Record<UploadKind, string>> = {
  photo: 'JPEG (stored .jpg), PNG, WebP, HEIC/HEIF (stored as sent, no thumbnails)',
  audio:
    'WebM (audio/webm), MP4/M4A (audio/mp4; an MP4 video container counts), MP3 (audio/mpeg), Ogg Vorbis/Opus/FLAC/Speex (stored .ogg, audio/ogg)',
};

/** The largest file of each kind, in bytes (MAX_PHOTO_BYTES, MAX_AUDIO_BYTES). */
export function uploadCaps(config: Pick<Config, 'uploads'>): Record<UploadKind, number> {
  return { photo: config.uploads.maxPhotoBytes, audio: config.uploads.maxAudioBytes };
}
