import { Type, type Static } from 'typebox';

export const PermsSchema = Type.Object(
  {
    read: Type.Boolean(),
    write: Type.Boolean(),
    delete: Type.Boolean(),
    admin: Type.Boolean(),
  },
  { description: 'Report rights of the Dolibarr module `bericht`.' },
);

export const LoginBody = Type.Object({
  login: Type.String({
    description: 'Dolibarr login (or the e-mail address of exactly one user); trimmed. No control characters.',
    pattern: '^[^\\u0000-\\u001F\\u007F]*$',
  }),
  password: Type.String(),
});
export type LoginBody = Static<typeof LoginBody>;

export const LoginResponse = Type.Object({
  token: Type.String({ description: 'JWT, HS256, issuer `bericht-api`; claims sub, login, name, iat, exp, iss, perms.' }),
  expires: Type.Integer({ description: 'Expiry, Unix seconds (issue time + 7 days).' }),
  user: Type.Object({
    id: Type.Integer(),
    login: Type.String(),
    name: Type.String({ description: 'Full name, or the login when the user has no name.' }),
    admin: Type.Boolean({ description: "Dolibarr's administrator flag: sees all orders." }),
  }),
  perms: PermsSchema,
});
export type LoginResponse = Static<typeof LoginResponse>;
