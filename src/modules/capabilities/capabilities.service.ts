/**
 * What this service offers the app, read by the app once per login so it can hide what would only
 * fail (a microphone button for text when no speech-to-text server is set up). Read per request:
 * an administrator may change Dolibarr's setup at any time.
 */
import type { Config } from '../../config.js';
import type { ConstRepository } from '../../dolibarr/const.repository.js';
import { readTranscribeSettings } from '../transcription/transcription.settings.js';

export interface Capabilities {
  /** Speech-to-text is set up and usable for the served entity (POST /api/transcribe.php can work). */
  transcription: boolean;
}

export function createCapabilitiesService(deps: { consts: ConstRepository; config: Pick<Config, 'transcribe'> }) {
  const { consts, config } = deps;
  return {
    async capabilities(): Promise<Capabilities> {
      // The very reading the transcription endpoint uses: offered exactly when it would not answer 503 TRANSCRIBE_NOT_CONFIGURED.
      return { transcription: (await readTranscribeSettings(consts, config.transcribe)).ok };
    },
  };
}

export type CapabilitiesService = ReturnType<typeof createCapabilitiesService>;
