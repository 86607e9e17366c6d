/**
 * What the service offers beyond the contract's basics (GET /api/capabilities.php), read once per login
 * and kept with the login's other reads on the phone: the app offers speech-to-text only where the
 * service has it configured, instead of a button that can only fail.
 */
import { api, unwrap } from '../../api/client';
import type { Capabilities } from '../../api/types';
import { readCache, writeCache } from '../store/cache';

export const capabilities = $state<Capabilities>({ transcription: false });

/** Reads them from the service (after a login), or from the phone when they were read before. */
export async function loadCapabilities(options: { fresh?: boolean } = {}): Promise<void> {
  if (!options.fresh) {
    const kept = await readCache<Capabilities>('capabilities');
    if (kept) {
      Object.assign(capabilities, kept.value);
      return;
    }
  }
  try {
    const answer = await unwrap(api.GET('/api/capabilities.php', {}));
    Object.assign(capabilities, answer);
    await writeCache('capabilities', answer);
  } catch {
    // Offline or refused: nothing is offered that needs it; the next start asks again.
  }
}

/** After a logout: nothing is known of the next person's service. */
export function forgetCapabilities(): void {
  capabilities.transcription = false;
}
