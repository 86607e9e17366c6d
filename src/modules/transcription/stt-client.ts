/** What a protocol client does, and reading the text out of a server's answer (both protocols answer `{ text }`). */
import { AppError } from '../../errors.js';
import type { SttAnswer } from './stt-http.js';

export interface SttAudio {
  /** Absolute path of the recording. */
  file: string;
  /** Name sent with the upload: `audio.<ext>` of the detected type, never the attachment's own name. */
  filename: string;
  /** Content type detected from the bytes. */
  mime: string;
  /** Lower-case code, or `auto`. */
  language: string;
}

export interface SttResult {
  text: string;
  /** The language the server reports (whisper-asr does), when it is a plain code. */
  language: string | undefined;
}

export interface SttClient {
  transcribe(audio: SttAudio): Promise<SttResult>;
}

/** `text` of a 2xx JSON answer; an answer that is not JSON or has no text is 502 TRANSCRIBE_FAILED. */
export function readTranscript(answer: SttAnswer): SttResult {
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    throw new AppError('TRANSCRIBE_FAILED', { details: { status: answer.status, reason: 'not_json' } });
  }
  const { text, language } = (body && typeof body === 'object' ? body : {}) as { text?: unknown; language?: unknown };
  if (typeof text !== 'string') throw new AppError('TRANSCRIBE_FAILED', { details: { status: answer.status, reason: 'no_text' } });
  return {
    text: text.trim(),
    language: typeof language === 'string' && /^[a-z]{2,5}$/i.test(language) ? language.toLowerCase() : undefined,
  };
}
