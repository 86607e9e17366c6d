/**
 * Upload tokens (docs/api-contract.md, Upload token): a link, shown as a QR code, that lets a second phone drop
 * photos into an order's folder without a login, until it expires. Only the token's SHA-256 is
 * stored, so whoever reads the database cannot use a link. An unknown token is "not found" (404),
 * an expired one "gone" (410).
 *
 * A link acts for the user who made it, and only as long as that user could do the same: on every
 * use the maker must still be active (and within its validity dates), hold the write right and see
 * the order; otherwise the link is gone (410 UPLOAD_TOKEN_REVOKED). No link lives longer than
 * UPLOAD_TOKEN_MAX_DAYS after it was made, also one made under a longer limit before. Whoever may
 * write to the order (write right, order visible) lists its live links and revokes any of them:
 * the office or a colleague must be able to end the link of a lost phone.
 */
import { createHash, randomBytes } from 'node:crypto';
import QRCode from 'qrcode';
import type { Dialect } from '../../config.js';
import type { Db } from '../../db/database.js';
import { fromDbDateTime, insertId, toDbDateTime } from '../../db/dialect.js';
import { AppError } from '../../errors.js';
import { notFoundCode, type Caller, type ElementAccess, type ElementRow } from '../access/element-access.js';
import type { AuthUser, CurrentUser } from '../auth/auth.service.js';

/** 32 random bytes, base64url: 43 characters. */
export const TOKEN_PATTERN = '^[A-Za-z0-9_-]{43}$';
export const tokenHash = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

export interface CreatedToken {
  id: number;
  token: string;
  expires: number;
  upload_url: string;
  qr_svg: string;
  qr_png: string;
}

export interface LiveLink {
  id: number;
  /** Unix seconds. */
  created: number;
  expires: number;
  created_by: { id: number; name: string };
}

/** What a link uploads into: an order's folder or an intervention's. */
export type LinkTarget = 'commande' | 'fichinter';
const linkTarget = (elementType: string): LinkTarget | undefined =>
  elementType === 'commande' || elementType === 'fichinter' ? elementType : undefined;

export function createUploadTokenService(deps: {
  db: Db;
  dialect: Dialect;
  access: ElementAccess;
  entity: number;
  defaultHours: number;
  /** UPLOAD_TOKEN_MAX_DAYS. */
  maxDays: number;
  currentUser: (id: number) => Promise<CurrentUser | undefined>;
}) {
  const { db, dialect, access, entity, defaultHours, maxDays, currentUser } = deps;
  const maxSeconds = maxDays * 86_400;

  type Row = { rowid: number; fk_element: number; element_type: string; fk_user_creat: number; datec: unknown; date_expiry: string };
  /** A link's end: its own expiry, or UPLOAD_TOKEN_MAX_DAYS after it was made, whichever is first. */
  const endOf = (row: Pick<Row, 'datec' | 'date_expiry'>) => {
    const expiry = fromDbDateTime(row.date_expiry) ?? 0;
    const made = fromDbDateTime(row.datec as string | null);
    return made === null ? expiry : Math.min(expiry, made + maxSeconds);
  };
  /**
   * The maker, when it may still write to the order as the link does, and has not ended what it
   * did before since the link was made (a logout everywhere, a password change, a deactivation:
   * a link made in that second ends with it).
   */
  async function makerOf(
    row: Pick<Row, 'fk_user_creat' | 'fk_element' | 'element_type' | 'datec'>,
    lookup = currentUser,
  ): Promise<AuthUser | undefined> {
    const maker = await lookup(row.fk_user_creat);
    if (!maker?.perms.read || !maker.perms.write) return undefined;
    const made = fromDbDateTime(row.datec as string | null);
    // Against the clock's second of the void, not the iats it covers (which may be a few seconds
    // ahead): a link made after the void lives.
    if (maker.voidedAt !== null && (made === null || made <= maker.voidedAt)) return undefined;
    const type = linkTarget(row.element_type);
    return type && (await access.getById(type, row.fk_element, maker)) ? maker : undefined;
  }

  return {
    async create(
      user: Caller,
      orderId: number,
      hours: number | undefined,
      baseUrl: string,
      type: LinkTarget = 'commande',
    ): Promise<CreatedToken> {
      const order = await access.getById(type, orderId, user);
      if (!order) throw new AppError(notFoundCode(type));
      if (hours !== undefined && hours > maxDays * 24) {
        throw new AppError('VALIDATION_FAILED', {
          message: `Ein Upload-Link gilt höchstens ${maxDays} Tage (${maxDays * 24} Stunden)`,
          details: [{ field: 'body.hours', message: `at most ${maxDays * 24}` }],
        });
      }
      const token = randomBytes(32).toString('base64url');
      const now = Date.now();
      const expires = Math.floor(now / 1000) + Math.round(Math.min(hours ?? defaultHours, maxDays * 24) * 3600);
      const id = await insertId(
        dialect,
        db.insertInto('bericht_upload_token').values({
          entity,
          token: tokenHash(token),
          element_type: type,
          fk_element: order.id,
          fk_user_creat: user.id,
          datec: toDbDateTime(new Date(now)),
          date_expiry: toDbDateTime(expires),
        }),
      );
      const url = `${baseUrl.replace(/\/+$/, '')}/public/upload.php?token=${token}`;
      return {
        id,
        token,
        expires,
        upload_url: url,
        qr_svg: await QRCode.toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }),
        qr_png: await QRCode.toDataURL(url, { errorCorrectionLevel: 'M', margin: 2, width: 512 }),
      };
    },

    /** The order a token uploads into and the user who made it; 404 unknown, 410 expired or its maker's right gone. */
    async resolve(token: string): Promise<{ order: ElementRow & { type: LinkTarget }; userId: number; expires: number }> {
      const row = /^[A-Za-z0-9_-]{43}$/.test(token)
        ? await db
            .selectFrom('bericht_upload_token')
            .selectAll()
            .where('token', '=', tokenHash(token))
            .where('entity', '=', entity)
            .executeTakeFirst()
        : undefined;
      if (!row) throw new AppError('UPLOAD_TOKEN_NOT_FOUND');
      const expires = endOf(row);
      if (expires <= Math.floor(Date.now() / 1000)) throw new AppError('UPLOAD_TOKEN_EXPIRED');
      // The order (intervention) as it is now, in the served entity (a deleted one ends the link too).
      const type = linkTarget(row.element_type);
      const order =
        type &&
        (await db
          .selectFrom(`${type} as o` as 'commande as o')
          .select(['o.rowid', 'o.ref', 'o.fk_soc'])
          .where('o.rowid', '=', row.fk_element)
          .where('o.entity', '=', entity)
          .executeTakeFirst());
      if (!type || !order) throw new AppError('UPLOAD_TOKEN_NOT_FOUND');
      if (!(await makerOf(row))) throw new AppError('UPLOAD_TOKEN_REVOKED');
      return {
        order: { id: order.rowid, ref: order.ref, fk_soc: order.fk_soc, type },
        userId: row.fk_user_creat,
        expires,
      };
    },

    /** The order's links that work now (not expired, their maker still may write to the order), newest first. */
    async list(user: Caller, orderId: number, type: LinkTarget = 'commande'): Promise<LiveLink[]> {
      const order = await access.getById(type, orderId, user);
      if (!order) throw new AppError(notFoundCode(type));
      const rows = await db
        .selectFrom('bericht_upload_token')
        .select(['rowid', 'fk_element', 'element_type', 'fk_user_creat', 'datec', 'date_expiry'])
        .where('entity', '=', entity)
        .where('element_type', '=', type)
        .where('fk_element', '=', order.id)
        .where('date_expiry', '>', toDbDateTime(new Date()))
        .orderBy('rowid', 'desc')
        .limit(200)
        .execute();
      const now = Math.floor(Date.now() / 1000);
      // Each maker read once for the list.
      const makers = new Map<number, Promise<CurrentUser | undefined>>();
      const lookup = (id: number) => {
        if (!makers.has(id)) makers.set(id, currentUser(id));
        return makers.get(id)!;
      };
      const live: LiveLink[] = [];
      for (const row of rows) {
        const expires = endOf(row);
        if (expires <= now) continue;
        const maker = await makerOf(row, lookup);
        if (!maker) continue;
        live.push({
          id: row.rowid,
          created: fromDbDateTime(row.datec as string | null) ?? 0,
          expires,
          created_by: { id: maker.id, name: maker.name },
        });
      }
      return live;
    },

    /**
     * Ends a link at once (the row goes). Idempotent: a link that is gone already (revoked, expired
     * and cleaned up) is fine; a link of an order the caller does not see is "not found".
     */
    async revoke(user: Caller, id: number): Promise<void> {
      const row = await db
        .selectFrom('bericht_upload_token')
        .select(['rowid', 'element_type', 'fk_element'])
        .where('rowid', '=', id)
        .where('entity', '=', entity)
        .executeTakeFirst();
      // Unknown and not visible answer alike: which link ids exist is not told.
      const type = row ? linkTarget(row.element_type) : undefined;
      if (!row || !type || !(await access.getById(type, row.fk_element, user))) throw new AppError('UPLOAD_TOKEN_NOT_FOUND');
      await db.deleteFrom('bericht_upload_token').where('rowid', '=', id).where('entity', '=', entity).execute();
    },
  };
}

export type UploadTokenService = ReturnType<typeof createUploadTokenService>;
