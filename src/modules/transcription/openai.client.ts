/**
 * OpenAI's transcription API and the servers that copy it (hosted ones, and self-hosted such as
 * speaches / faster-whisper-server or LocalAI): `POST {url}/v1/audio/transcriptions` (`{url}`
 * ending in `/v1` is not doubled), multipart with `file` (name and content type set: the name's
 * extension tells the server the format), `model`, `language` (left out for `auto`) and
 * `response_format=json`; `Authorization: Bearer <key>`. It answers `{ text }`.
 */
import { openAsBlob } from 'node:fs';
import { postForm } from './stt-http.js';
import { readTranscript, type SttClient } from './stt-client.js';

/** `{url}/v1/audio/transcriptions`, from a base with or without `/v1` (or the endpoint itself). */
export function openAiEndpoint(url: string): string {
  if (/\/v1\/audio\/transcriptions$/.test(url)) return url;
  if (/\/v1$/.test(url)) return `${url}/audio/transcriptions`;
  return `${url}/v1/audio/transcriptions`;
}

export function createOpenAiClient(options: { url: string; apiKey: string | undefined; model: string; timeoutMs: number }): SttClient {
  const endpoint = openAiEndpoint(options.url);
  return {
    async transcribe(audio) {
      const answer = await postForm({
        url: endpoint,
        apiKey: options.apiKey,
        timeoutMs: options.timeoutMs,
        form: async () => {
          const form = new FormData();
          form.append('file', await openAsBlob(audio.file, { type: audio.mime }), audio.filename);
          form.append('model', options.model);
          if (audio.language !== 'auto') form.append('language', audio.language);
          form.append('response_format', 'json');
          return form;
        },
      });
      return readTranscript(answer);
    },
  };
}
