/**
 * whisper-asr-webservice (github.com/ahmetoner/whisper-asr-webservice, Docker image
 * onerahmet/openai-whisper-asr-webservice), the most used self-hosted Whisper server:
 * `POST {url}/asr?task=transcribe&language=<code>&output=json&encode=true`, multipart with the
 * audio in the field `audio_file`. It answers JSON `{ text, segments, language }`, labelled
 * text/plain, so the body is read as JSON whatever its content type says. `language` is left out
 * for `auto` (the server detects it). The server itself has no authentication; a key, when set,
 * goes as `Authorization: Bearer` for a proxy in front of it.
 */
import { openAsBlob } from 'node:fs';
import { postForm } from './stt-http.js';
import { readTranscript, type SttClient } from './stt-client.js';

export function createWhisperAsrClient(options: { url: string; apiKey: string | undefined; timeoutMs: number }): SttClient {
  // `{url}` may already name the endpoint.
  const endpoint = /\/asr$/.test(options.url) ? options.url : `${options.url}/asr`;
  return {
    async transcribe(audio) {
      const query = new URLSearchParams({ task: 'transcribe' });
      if (audio.language !== 'auto') query.set('language', audio.language);
      query.set('output', 'json');
      query.set('encode', 'true'); // through ffmpeg: WebM/Opus, M4A, MP3 and Ogg all become what Whisper reads
      const answer = await postForm({
        url: `${endpoint}?${query}`,
        apiKey: options.apiKey,
        timeoutMs: options.timeoutMs,
        form: async () => {
          const form = new FormData();
          form.append('audio_file', await openAsBlob(audio.file, { type: audio.mime }), audio.filename);
          return form;
        },
      });
      return readTranscript(answer);
    },
  };
}
