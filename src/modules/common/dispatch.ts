/**
 * One route per `.php` path and method; the operation is chosen by `action` (DESIGN.md, Routing).
 * An unknown action is a 400 that names the known ones.
 */
import { AppError } from '../../errors.js';

export function chooseAction<A extends string>(action: string | undefined, known: readonly A[]): A | undefined {
  if (action === undefined || action === '') return undefined;
  if ((known as readonly string[]).includes(action)) return action as A;
  throw new AppError('ACTION_UNKNOWN', {
    message: `Unbekannte Aktion: ${action.slice(0, 40)}`,
    details: { known },
  });
}
