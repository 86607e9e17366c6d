/**
 * Endpoint 25, POST /api/transcribe.php: a voice recording of an order into text, by the
 * speech-to-text server the administrators configured (see transcription.service.ts).
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { callerOf } from '../../plugins/authenticate.js';
import { ErrorResponse } from '../common/common.schemas.js';
import { ACCEPTED_DESCRIPTION } from '../uploads/upload-types.js';
import { TranscribeBody, TranscribeResponse } from './transcription.schemas.js';
import { MAX_RUNNING, type TranscriptionService } from './transcription.service.js';
import { TRANSCRIBE_MODES } from './transcription.settings.js';

const DESCRIPTION =
  'Sends a voice recording of an order (or an intervention: `relpath` `ficheinter/<folder>/<name>`) to the speech-to-text server and answers its text. Needs the `write` right ' +
  "(403 AUTH_RIGHT_MISSING): the transcript is written into the object's folder, and a hosted server costs money per call. " +
  'An order the caller may not see: 404 ORDER_NOT_FOUND, as a missing one (an intervention: INTERVENTION_NOT_FOUND); a missing file: 404 FILE_NOT_FOUND; ' +
  `a file that is not a recording by its bytes (${ACCEPTED_DESCRIPTION.audio}): 415 UPLOAD_TYPE_UNSUPPORTED.\n\n` +
  'Settings, Dolibarr constants of the entity (llx_const; `dolcrypt:` values are decrypted with the instance unique id), ' +
  "each overridden by the environment variable of the same name: BERICHT_TRANSCRIBE_URL (the server's base address, required), " +
  'BERICHT_TRANSCRIBE_MODE (`' +
  TRANSCRIBE_MODES.join('` or `') +
  '`, default `whisper-asr`), BERICHT_TRANSCRIBE_API_KEY (optional, sent as ' +
  '`Authorization: Bearer`), BERICHT_TRANSCRIBE_LANG (default `de`; `auto` lets the server detect it), and the constant ' +
  'BERICHT_TRANSCRIBE_MODEL (`openai` mode, default `whisper-1`). Read on every call. A missing URL or an invalid setting (an address that is not http(s), ' +
  'holds credentials, `?` or `#`; an unknown mode; a language that is no code) is 503 TRANSCRIBE_NOT_CONFIGURED, whose message names no setting and which has no details ' +
  '(a technician reads it); the service logs a warn line naming each setting that is missing or invalid and why (never a value). ' +
  'Whether transcription is offered at all: GET /api/capabilities.php (`transcription`), read the same way.\n\n' +
  'Modes: `whisper-asr` speaks whisper-asr-webservice (github.com/ahmetoner/whisper-asr-webservice): ' +
  '`POST {url}/asr?task=transcribe&language=<lang>&output=json&encode=true`, the audio in the multipart field `audio_file`. ' +
  "`openai` speaks OpenAI's API and compatible servers: `POST {url}/v1/audio/transcriptions` (a `{url}` ending in `/v1` is not " +
  'doubled) with `file`, `model`, `language`, `response_format=json`. The audio is streamed from disk and sent as ' +
  "`audio.<ext>` of its detected type (the attachment's own name stays here).\n\n" +
  'Failures: each request to the server may take TRANSCRIBE_TIMEOUT_SECONDS (default 120), then 504 TRANSCRIBE_TIMEOUT; a ' +
  'refused or dropped connection is tried twice more (after 0.25 s and 0.75 s), then 502 TRANSCRIBE_FAILED; an HTTP error ' +
  "answer (not retried), or an answer without `text`: 502 TRANSCRIBE_FAILED with `details.status` (the server's status), " +
  '`details.reason` and for HTTP errors a short `details.excerpt` of its answer with key-like strings removed. ' +
  `At most ${MAX_RUNNING} recordings are sent at once per process; beyond a queue 503 TRANSCRIBE_BUSY.\n\n` +
  'Cache: the transcript is kept beside the recording as the hidden file `.<file name>.transcript.json` (left out of the ' +
  'attachment list). A later call with the same language answers it (`cached: true`) without asking the server, until the ' +
  'recording changes (size or modification time) or `force: true` is sent. A transcript that cannot be written is still answered.';

export async function transcriptionRoutes(app: FastifyInstance, deps: { transcription: TranscriptionService }): Promise<void> {
  const service = deps.transcription;

  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/api/transcribe.php',
    {
      schema: {
        tags: ['transcription'],
        summary: 'Turn a voice recording of an order into text',
        description: DESCRIPTION,
        body: TranscribeBody,
        response: {
          200: TranscribeResponse,
          400: ErrorResponse,
          401: ErrorResponse,
          403: ErrorResponse,
          404: ErrorResponse,
          415: ErrorResponse,
          502: ErrorResponse,
          503: ErrorResponse,
          504: ErrorResponse,
        },
      },
      config: { right: 'write' },
    },
    async (request) => service.transcribe(request.body, callerOf(request), request.log),
  );
}
