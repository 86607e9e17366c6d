/**
 * Orders as the caller may see them (docs/architecture.md, Visibility): the list, the detail with customer
 * and reports, and the attachments. An order the caller may not see is ORDER_NOT_FOUND, exactly
 * like one that does not exist.
 */
import { roundTotal } from '../../dolibarr/price.js';
import { fromDolibarrDateTime } from '../../dolibarr/time.js';
import { reportStatus } from '../common/common.schemas.js';
import { fromDbDateTime } from '../../db/dialect.js';
import { objectFolder } from '../../dolibarr/documents.js';
import { AppError } from '../../errors.js';
import { isCustomer, type Caller, type ElementAccess } from '../access/element-access.js';
import { listOrderPhotos } from './order-photos.js';
import { ORDER_ALIAS, type OrderRepository, type reportsOf } from './orders.repository.js';
import {
  ORDER_STATUSES,
  type OrderCustomer,
  type OrderDetail,
  type OrderListItem,
  type OrderPhoto,
  type OrderReport,
} from './orders.schemas.js';

export interface Page {
  limit: number;
  offset: number;
}

interface OrderRowBase {
  rowid: number;
  ref: string;
  ref_client: string | null;
  fk_statut: number;
  fk_soc: number;
  date_commande: string | null;
  date_livraison: string | null;
  date_creation: string | null;
  total_ttc: number | string | null;
}

/** Dolibarr's own columns are wall times of its time zone; see time.ts. */
function orderFields(row: OrderRowBase, decimals: number, timeZone: string) {
  return {
    id: Number(row.rowid),
    ref: row.ref,
    ref_client: row.ref_client ?? null,
    status: Number(row.fk_statut),
    date: fromDolibarrDateTime(row.date_commande, timeZone),
    date_delivery: fromDolibarrDateTime(row.date_livraison, timeZone),
    date_creation: fromDolibarrDateTime(row.date_creation, timeZone),
    total_ttc: roundTotal(Number(row.total_ttc ?? 0), decimals),
  };
}

/** A report of an object's detail, from reportsOf (orders.repository.ts). */
export function reportOf(r: Awaited<ReturnType<typeof reportsOf>>[number]): OrderReport {
  return {
    id: Number(r.rowid),
    ref: r.ref,
    title: r.title,
    status: reportStatus(r.status),
    version: Number(r.version),
    page_count: Number(r.page_count ?? 0),
    datec: fromDbDateTime(r.datec),
  };
}

type NullableText = string | null | undefined;
/** An object's third party, with its master data when it is a customer (client 1, 2 or 3), else null. */
export function customerOf(row: {
  soc_id: number | null;
  client: number | string | null;
  nom: NullableText;
  name_alias: NullableText;
  code_client: NullableText;
  address: NullableText;
  zip: NullableText;
  town: NullableText;
  phone: NullableText;
  email: NullableText;
}): OrderCustomer | null {
  if (row.soc_id === null || !isCustomer(row.client)) return null;
  return {
    id: Number(row.soc_id),
    name: row.nom ?? null,
    name_alias: row.name_alias ?? null,
    code_client: row.code_client ?? null,
    address: row.address ?? null,
    zip: row.zip ?? null,
    town: row.town ?? null,
    phone: row.phone ?? null,
    email: row.email ?? null,
  };
}

/**
 * `status=0,1,2` as the sorted fk_statut values, each once (one key and one query for `2,1,0`
 * and `0,1,2,1`). The schema has checked the form; a value outside ORDER_STATUSES is refused here
 * too, so no caller can reach the query with one.
 */
export function parseStatusList(raw: string | undefined, statuses: readonly number[] = ORDER_STATUSES): number[] | undefined {
  if (raw === undefined) return undefined;
  const values = raw.split(',').map((item) => (/^-?\d+$/.test(item) ? Number(item) : NaN));
  if (values.some((v) => !statuses.includes(v))) {
    throw new AppError('VALIDATION_FAILED', {
      details: [{ field: 'querystring.status', message: `comma-separated values of ${statuses.join(', ')}` }],
    });
  }
  return [...new Set(values)].sort((a, b) => a - b);
}

export function createOrderService(deps: {
  orders: OrderRepository;
  access: ElementAccess;
  dataRoot: string;
  entity: number;
  totalDecimals: number;
  timeZone: string;
}) {
  const { orders, access, dataRoot, entity, totalDecimals, timeZone } = deps;

  return {
    /** `version`: the database's version read for this request before any of its queries (request.dataVersion), if any. */
    async listOrders(
      user: Caller,
      options: Page & { q?: string; status?: string; version?: string },
    ): Promise<{ items: OrderListItem[]; total: number }> {
      const q = options.q?.trim() || undefined;
      const { rows, total } = await orders.list(
        user,
        { q, status: parseStatusList(options.status), limit: options.limit, offset: options.offset },
        options.version,
      );
      // The customer is added to each row's fields rather than both spread into a new object: a
      // spread copies every field again, for every row.
      const items = rows.map((row) => {
        const item = orderFields(row, totalDecimals, timeZone) as OrderListItem;
        item.customer = isCustomer(row.client) ? { id: Number(row.fk_soc), name: row.nom ?? null } : null;
        return item;
      });
      return { items, total };
    },

    async getOrder(user: Caller, id: number): Promise<OrderDetail> {
      const row = await orders.getById(id, access.visible('commande', user, ORDER_ALIAS));
      if (!row) throw new AppError('ORDER_NOT_FOUND');
      return {
        ...orderFields(row, totalDecimals, timeZone),
        note_public: row.note_public ?? null,
        customer: customerOf(row),
        reports: (await orders.listReports(Number(row.rowid), entity)).map(reportOf),
      };
    },

    async listPhotos(user: Caller, id: number, page: Page): Promise<{ items: OrderPhoto[]; total: number }> {
      const order = await access.getById('commande', id, user);
      if (!order) throw new AppError('ORDER_NOT_FOUND');
      let folder;
      try {
        folder = objectFolder(dataRoot, entity, 'commande', order.ref);
      } catch {
        return { items: [], total: 0 }; // a ref that names no folder ('', '.', '..') has no files
      }
      return listOrderPhotos(folder.dir, folder.name, page);
    },
  };
}

export type OrderService = ReturnType<typeof createOrderService>;
