/** Use cases of GET /api/customers.php: the customer list and one customer's detail. */
import { roundTotal } from '../../dolibarr/price.js';
import { fromDolibarrDateTime } from '../../dolibarr/time.js';
import { reportStatus } from '../common/common.schemas.js';
import { fromDbDateTime } from '../../db/dialect.js';
import { AppError } from '../../errors.js';
import type { Caller } from '../access/element-access.js';
import type { CustomerRepository } from './customers.repository.js';
import { DETAIL_LIMITS, type CustomerDetail, type CustomerList } from './customers.schemas.js';

export interface CustomerService {
  listCustomers(user: Caller, options: { q?: string; limit: number; offset: number }): Promise<CustomerList>;
  getCustomer(id: number, user: Caller): Promise<CustomerDetail>;
}

const int = (value: number | string) => Number(value);

export function createCustomerService(deps: { customers: CustomerRepository; totalDecimals: number; timeZone: string }): CustomerService {
  const { customers, totalDecimals, timeZone } = deps;

  return {
    async listCustomers(user, { q, limit, offset }) {
      const search = q?.trim();
      const { rows, total } = await customers.list(user, { q: search || undefined, limit, offset });
      return {
        items: rows.map((r) => ({
          id: int(r.rowid),
          name: r.nom,
          name_alias: r.name_alias,
          code_client: r.code_client,
          town: r.town,
          zip: r.zip,
          email: r.email,
          phone: r.phone,
          status: int(r.status),
          report_count: int(r.report_count),
        })),
        total,
      };
    },

    async getCustomer(id, user) {
      const row = await customers.getById(id, user);
      // Unknown and invisible alike: no existence leaks (docs/architecture.md, Status codes).
      if (!row) throw new AppError('CUSTOMER_NOT_FOUND');
      const [orders, invoices, reports] = await Promise.all([
        customers.listOrders(id, user, DETAIL_LIMITS.orders),
        customers.listInvoices(id, user, DETAIL_LIMITS.invoices),
        customers.listReports(id, user, DETAIL_LIMITS.reports),
      ]);
      return {
        id: int(row.rowid),
        name: row.nom,
        name_alias: row.name_alias,
        code_client: row.code_client,
        address: row.address,
        zip: row.zip,
        town: row.town,
        phone: row.phone,
        email: row.email,
        url: row.url,
        tva_intra: row.tva_intra,
        status: int(row.status),
        note_public: row.note_public,
        orders: orders.map((o) => ({
          id: int(o.rowid),
          ref: o.ref,
          ref_client: o.ref_client,
          status: int(o.fk_statut),
          date: fromDolibarrDateTime(o.date_commande, timeZone),
        })),
        invoices: invoices.map((f) => ({
          id: int(f.rowid),
          ref: f.ref,
          ref_client: f.ref_client,
          type: int(f.type),
          status: int(f.fk_statut),
          paid: int(f.paye) === 1,
          date: fromDolibarrDateTime(f.datef, timeZone),
          total_ttc: f.total_ttc === null ? null : roundTotal(Number(f.total_ttc), totalDecimals),
        })),
        reports: reports.map((b) => ({
          id: int(b.rowid),
          ref: b.ref,
          title: b.title,
          status: reportStatus(b.status),
          parent_ref: b.parent_ref,
          element_type: b.element_type === 'facture' || b.element_type === 'fichinter' ? b.element_type : ('commande' as const),
          datec: fromDbDateTime(b.datec),
        })),
      };
    },
  };
}
