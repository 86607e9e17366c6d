/**
 * One route per `.php` path and method; the operation is chosen by `action` (docs/architecture.md, Routing).
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

/**
 * A query parameter an operation needs (the schema can only say "optional": which operation runs
 * depends on `action`), or 400 VALIDATION_FAILED naming it. `what` names it for people, e.g. "id (Seite)".
 */
export function requireParam<T>(value: T, field: string, options: { what?: string; why?: string } = {}): Exclude<T, undefined> {
  if (value !== undefined) return value as Exclude<T, undefined>;
  throw new AppError('VALIDATION_FAILED', {
    message: `${options.what ?? field} erforderlich`,
    details: [{ field: `querystring.${field}`, message: options.why ?? 'required' }],
  });
}
