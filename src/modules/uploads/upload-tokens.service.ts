/**
 * Upload tokens (spec: Upload token): a link, shown as a QR code, that lets a second phone drop
 * photos into an order's folder without a login, until it expires. Only the token's SHA-256 is
 * stored, so whoever reads the database cannot use a link. An unknown token is "not found" (404),
 * an expired one "gone" (410).
 */
import { createHash, randomBytes } from 'node:crypto';
import QRCode from 'qrcode';
import type { Dialect } from '../../config.js';
import type { Db } from '../../db/database.js';
import { fromDbDateTime, insertId, toDbDateTime } from '../../db/dialect.js';
import { AppError } from '../../errors.js';
import type { Caller, ElementAccess, ElementRow } from '../access/element-access.js';

/** 32 random bytes, base64url: 43 characters. */
export const TOKEN_PATTERN = '^[A-Za-z0-9_-]{43}$';
export const tokenHash = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

export interface CreatedToken {
  token: string;
  expires: number;
  upload_url: string;
  qr_svg: string;
  qr_png: string;
}

export function createUploadTokenService(deps: { db: Db; dialect: Dialect; access: ElementAccess; entity: number; defaultHours: number }) {
  const { db, dialect, access, entity, defaultHours } = deps;

  return {
    async create(user: Caller, orderId: number, hours: number | undefined, baseUrl: string): Promise<CreatedToken> {
      const order = await access.getById('commande', orderId, user);
      if (!order) throw new AppError('ORDER_NOT_FOUND');
      const token = randomBytes(32).toString('base64url');
      const now = Date.now();
      const expires = Math.floor(now / 1000) + Math.round((hours ?? defaultHours) * 3600);
      await insertId(dialect, db.insertInto('bericht_upload_token').values({
        entity,
        token: tokenHash(token),
        element_type: 'commande',
        fk_element: order.id,
        fk_user_creat: user.id,
        datec: toDbDateTime(new Date(now)),
        date_expiry: toDbDateTime(expires),
      }));
      const url = `${baseUrl.replace(/\/+$/, '')}/public/upload.php?token=${token}`;
      return {
        token,
        expires,
        upload_url: url,
        qr_svg: await QRCode.toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }),
        qr_png: await QRCode.toDataURL(url, { errorCorrectionLevel: 'M', margin: 2, width: 512 }),
      };
    },

    /** The order a token uploads into and the user who made it; 404 unknown, 410 expired. */
    async resolve(token: string): Promise<{ order: ElementRow; userId: number; expires: number }> {
      const row = /^[A-Za-z0-9_-]{43}$/.test(token)
        ? await db.selectFrom('bericht_upload_token').selectAll().where('token', '=', tokenHash(token)).where('entity', '=', entity).executeTakeFirst()
        : undefined;
      if (!row) throw new AppError('UPLOAD_TOKEN_NOT_FOUND');
      const expires = fromDbDateTime(row.date_expiry) ?? 0;
      if (expires <= Math.floor(Date.now() / 1000)) throw new AppError('UPLOAD_TOKEN_EXPIRED');
      // The order as it is now, in the served entity (a deleted order ends the link too).
      const order = await db.selectFrom('commande').select(['rowid', 'ref', 'fk_soc']).where('rowid', '=', Number(row.fk_element)).where('entity', '=', entity).executeTakeFirst();
      if (!order || row.element_type !== 'commande') throw new AppError('UPLOAD_TOKEN_NOT_FOUND');
      return { order: { id: Number(order.rowid), ref: order.ref, fk_soc: Number(order.fk_soc) }, userId: Number(row.fk_user_creat), expires };
    },
  };
}

export type UploadTokenService = ReturnType<typeof createUploadTokenService>;
