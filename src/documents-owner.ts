/**
 * Beside a real Dolibarr the service writes into Dolibarr's documents folder (a report's PDF, its
 * copies in the order's and the intervention's folders). Dolibarr's web server later writes there
 * too: its own PDF of the intervention when the office validates it, into the folder this service
 * made. A process running as another user than the folder's owner (root, say) makes folders the
 * web server cannot write into, and Dolibarr then fails with "Unable to create output file". Said
 * once at start (docs/operating.md).
 */
import { statSync } from 'node:fs';

/** The warning to log, or null when this process is the owner of the documents folder (or cannot tell). */
export function documentsOwnerWarning(dataRoot: string, uid: number | undefined = process.getuid?.()): string | null {
  if (uid === undefined) return null;
  let owner: number;
  try {
    owner = statSync(dataRoot).uid;
  } catch {
    return null;
  }
  if (owner === uid) return null;
  return (
    `the documents folder ${dataRoot} belongs to user ${owner}, this process runs as user ${uid}: ` +
    "folders and files it makes there (reports, their copies with the order and the intervention) are not writable for Dolibarr's web server, " +
    'which then cannot write its own PDFs into them; run the service as the owner of the documents folder'
  );
}
