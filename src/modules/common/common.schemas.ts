/** Schemas every module uses. */
import { Type } from 'typebox';

/** The one error shape (DESIGN.md, "Errors"). */
export const ErrorResponse = Type.Object({
  error: Type.String({ description: 'German message for people.' }),
  code: Type.String({ description: 'Stable code for programs, e.g. AUTH_LOGIN_FAILED.' }),
  details: Type.Optional(Type.Unknown()),
});
