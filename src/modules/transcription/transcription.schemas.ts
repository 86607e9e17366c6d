/** Request and response of endpoint 25 (POST /api/transcribe.php); the descriptions are the contract's decisions. */
import { Type, type Static } from 'typebox';
import { LANGUAGE_PATTERN } from './transcription.settings.js';

export const TranscribeBody = Type.Object({
  relpath: Type.String({
    minLength: 1,
    maxLength: 1000,
    description:
      'The recording: a file of an order, named as the attachment list and the file endpoint name it, ' +
      '`<order folder>/<file name>` (the order folder is the order ref as Dolibarr cleans it for folder names), ' +
      'e.g. `CO2401-0001/Sprachnotiz.webm`; `commande/CO2401-0001/Sprachnotiz.webm` is accepted too. A recording of an intervention: ' +
      '`ficheinter/FI2401-0001/Sprachnotiz.webm` (404 INTERVENTION_NOT_FOUND when not visible). Only files directly ' +
      "in the order's folder. Refused with 400 FILE_PATH_INVALID: `.`/`..`/empty segments, absolute paths, backslashes, " +
      'control characters, %-escapes, subfolders, links leading out of the folder.',
  }),
  force: Type.Optional(
    Type.Boolean({ default: false, description: 'Ask the server again even when a transcript of this recording is kept.' }),
  ),
  lang: Type.Optional(
    Type.String({
      pattern: LANGUAGE_PATTERN,
      description:
        'Language of the recording for this call (2-5 letters, e.g. `de`, `en`; `auto`: the server detects it). Default: BERICHT_TRANSCRIBE_LANG, else `de`.',
    }),
  ),
});
export type TranscribeBody = Static<typeof TranscribeBody>;

export const TranscribeResponse = Type.Object({
  text: Type.String({ description: 'The transcript (trimmed; empty for a recording without speech).' }),
  language: Type.String({
    description: 'Language of the text: the one asked for; for `auto`, the one the server detected (whisper-asr reports it), else `auto`.',
  }),
  mode: Type.String({ description: 'The protocol that made it: `whisper-asr` or `openai`.' }),
  cached: Type.Boolean({ description: 'true: the kept transcript, the server was not asked.' }),
  relpath: Type.String({
    description: 'The recording, as `<order folder>/<file name>` (`ficheinter/<folder>/<file name>` for an intervention).',
  }),
  created: Type.Integer({ description: 'When the transcript was made, Unix seconds.' }),
});
