/**
 * A draft invoice of the visit (docs/dolibarr-writes.md): on the Dolibarr tables this service
 * created itself (the standalone default), what Dolibarr 22's installer has for it
 * (install/mysql/tables/*.sql with their keys, data/llx_c_payment_term.sql): the invoice's columns
 * it lacked, the invoice lines `llx_facturedet`, the order lines `llx_commandedet`, the prices per
 * customer level `llx_product_price` and per customer `llx_product_customer_price`, the payment
 * terms `llx_c_payment_term`, the customer's price level, payment terms and mode on
 * `llx_societe`, a product's `duration`; and what enabling the module Invoices writes
 * (`MAIN_MODULE_FACTURE`, the PDF model `FACTURE_ADDON_PDF` 'sponge'). A real Dolibarr database
 * is left alone.
 */
import { sql, type ColumnDataType, type Expression, type Kysely } from 'kysely';
import type { Dialect } from '../../config.js';
import { columnTypes } from '../dialect.js';
import { isStandalone, schemaTools } from './helpers.js';

/** Dolibarr's payment terms (llx_c_payment_term.sql): rowid, code, sortorder, label, invoice text, type_cdr, nbjour, decalage, deposit. */
export const DOLIBARR_PAYMENT_TERMS: ReadonlyArray<
  readonly [number, string, number, string, string, number, number, number | null, string | null]
> = [
  [1, 'RECEP', 1, 'Due upon receipt', 'Due upon receipt', 0, 1, null, null],
  [2, '30D', 2, '30 days', 'Due in 30 days', 0, 30, null, null],
  [3, '30DENDMONTH', 3, '30 days end of month', 'Due in 30 days, end of month', 1, 30, null, null],
  [4, '60D', 4, '60 days', 'Due in 60 days, end of month', 0, 60, null, null],
  [5, '60DENDMONTH', 5, '60 days end of month', 'Due in 60 days, end of month', 1, 60, null, null],
  [6, 'PT_ORDER', 6, 'Due on order', 'Due on order', 0, 1, null, null],
  [7, 'PT_DELIVERY', 7, 'Due on delivery', 'Due on delivery', 0, 1, null, null],
  [8, 'PT_5050', 8, '50 and 50', '50% on order, 50% on delivery', 0, 1, null, null],
  [9, '10D', 9, '10 days', 'Due in 10 days', 0, 10, null, null],
  [10, '10DENDMONTH', 10, '10 days end of month', 'Due in 10 days, end of month', 1, 10, null, null],
  [11, '14D', 11, '14 days', 'Due in 14 days', 0, 14, null, null],
  [12, '14DENDMONTH', 12, '14 days end of month', 'Due in 14 days, end of month', 1, 14, null, null],
  [13, 'DEP30PCTDEL', 13, '__DEPOSIT_PERCENT__% deposit', '__DEPOSIT_PERCENT__% deposit, remainder on delivery', 0, 1, null, '30'],
];

/**
 * Columns as Dolibarr's SQL declares them, one a line: `name type [notnull] [=default]`; types
 * `int`, `small`, `real`, `amount` (double(24,8)), `rate` (double(7,4)), `text`, `datetime`,
 * `date`, `vNNN` (varchar(NNN)).
 */
function columns(spec: string): Array<{ name: string; type: string; notNull: boolean; value: string | number | undefined }> {
  return spec
    .trim()
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [name, type, ...rest] = line.trim().split(/\s+/);
      const given = rest.find((r) => r.startsWith('='))?.slice(1);
      const value = given === undefined ? undefined : /^-?\d+(\.\d+)?$/.test(given) ? Number(given) : given.replace(/^'|'$/g, '');
      return { name: name!, type: type!, notNull: rest.includes('notnull'), value };
    });
}

const FACTURE_COLUMNS = `
subtype small
date_pointoftax date
remise_percent real =0
remise_absolue real =0
remise real =0
close_missing_amount amount
module_source v32
pos_source v32
fk_fac_rec_source int
increment v10
payment_reference v25
fk_input_reason int
fk_incoterms int
location_incoterms v255
fk_transport_mode int
prorata_discount real
situation_cycle_ref small
situation_counter small
situation_final small =0
retained_warranty real
retained_warranty_date_limit date
retained_warranty_fk_cond_reglement int
is_also_delivery_note small notnull =0
fk_multicurrency int
multicurrency_tx amount =1
multicurrency_total_ht amount =0
multicurrency_total_tva amount =0
multicurrency_total_ttc amount =0`;

/** The lines of an invoice and of an order share most columns (llx_facturedet.sql, llx_commandedet.sql). */
const LINE_COLUMNS = `
fk_parent_line int
fk_product int
label v255
description text
vat_src_code v10 ='
tva_tx rate
localtax1_tx rate =0
localtax1_type v10
localtax2_tx rate =0
localtax2_type v10
qty real
remise_percent real =0
remise real =0
fk_remise_except int
subprice amount
subprice_ttc amount =0
price amount
total_ht amount
total_tva amount
total_localtax1 amount =0
total_localtax2 amount =0
total_ttc amount
product_type int =0
date_start datetime
date_end datetime
info_bits int =0
buy_price_ht amount =0
fk_product_fournisseur_price int
special_code int =0
rang int =0
fk_unit int
import_key v14
fk_multicurrency int
multicurrency_code v3
multicurrency_subprice amount =0
multicurrency_subprice_ttc amount =0
multicurrency_total_ht amount =0
multicurrency_total_tva amount =0
multicurrency_total_ttc amount =0
ref_ext v255
extraparams v255`;

const FACTUREDET_COLUMNS = `
fk_facture int notnull
${LINE_COLUMNS}
batch v128
fk_warehouse int
fk_contract_line int
fk_code_ventilation int notnull =0
situation_percent real =100
fk_prev_id int
fk_user_author int
fk_user_modif int`;

const COMMANDEDET_COLUMNS = `
fk_commande int notnull
${LINE_COLUMNS}
fk_commandefourndet int`;

const PRODUCT_PRICE_COLUMNS = `
entity int notnull =1
tms datetime
fk_product int notnull
date_price datetime notnull
price_level small =1
price amount
price_ttc amount
price_min amount
price_min_ttc amount
price_base_type v3 =HT
default_vat_code v10
tva_tx rate notnull =0
recuperableonly int notnull =0
localtax1_tx rate =0
localtax1_type v10 notnull =0
localtax2_tx rate =0
localtax2_type v10 notnull =0
fk_user_author int
price_label v255
tosell small =1
price_by_qty int notnull =0
fk_price_expression int
import_key v14
fk_multicurrency int
multicurrency_code v3
multicurrency_tx amount =1
multicurrency_price amount
multicurrency_price_ttc amount`;

const PRODUCT_CUSTOMER_PRICE_COLUMNS = `
entity int notnull =1
datec datetime
tms datetime
fk_product int notnull
fk_soc int notnull
ref_customer v128
date_begin date
date_end date
price amount =0
price_ttc amount =0
price_min amount =0
price_min_ttc amount =0
price_base_type v3 =HT
default_vat_code v10
tva_tx rate
recuperableonly int notnull =0
localtax1_tx rate =0
localtax1_type v10 notnull =0
localtax2_tx rate =0
localtax2_type v10 notnull =0
discount_percent real =0
fk_user int
price_label v255
import_key v14`;

const PAYMENT_TERM_COLUMNS = `
entity int notnull =1
code v16
sortorder small
active small =1
libelle v255
libelle_facture text
type_cdr small
nbjour small
decalage small
deposit_percent v63
module v32
position int notnull =0`;

export function invoiceLines(dialect: Dialect, prefix: string) {
  const ty = columnTypes(dialect);
  const typeOf = (type: string): ColumnDataType | Expression<unknown> => {
    if (type === 'int') return 'integer';
    if (type === 'small') return ty.smallint;
    if (type === 'real') return 'real';
    if (type === 'amount') return ty.amount;
    if (type === 'rate') return ty.double;
    if (type === 'text') return ty.text;
    if (type === 'datetime') return ty.datetime;
    if (type === 'date') return ty.date;
    if (/^v\d+$/.test(type)) return `varchar(${type.slice(1)})` as ColumnDataType;
    throw new Error(`column type ${type}`);
  };
  return {
    async up(db: Kysely<any>): Promise<void> {
      if (!(await isStandalone(db))) return;
      const { table, index } = schemaTools(db, dialect, prefix, 'database');
      const existing = await db.introspection.getTables();
      const has = (name: string) => new Set(existing.find((t) => t.name === `${prefix}${name}`)?.columns.map((c) => c.name) ?? []);

      /** Adds the columns a table lacks (MariaDB's DDL is not transactional: a run cut short is repeated). */
      async function complete(name: string, spec: string) {
        const there = has(name);
        for (const c of columns(spec)) {
          if (there.has(c.name)) continue;
          await db.schema
            .alterTable(name)
            .addColumn(c.name, typeOf(c.type), (b) => {
              let col = c.value === undefined ? b : b.defaultTo(c.value);
              if (c.notNull) col = col.notNull();
              return col;
            })
            .execute();
        }
      }
      async function create(name: string, spec: string) {
        let builder = table(name);
        for (const c of columns(spec))
          builder = builder.addColumn(c.name, typeOf(c.type), (b) => {
            let col = c.value === undefined ? b : b.defaultTo(c.value);
            if (c.notNull) col = col.notNull();
            return col;
          });
        await builder.execute();
      }

      await complete('facture', FACTURE_COLUMNS);
      await complete('societe', 'price_level small\ncond_reglement small\nmode_reglement small');
      await complete('product', 'duration v6');
      await create('facturedet', FACTUREDET_COLUMNS);
      await index('idx_facturedet_fk_facture', 'facturedet', ['fk_facture']);
      await index('idx_facturedet_fk_product', 'facturedet', ['fk_product']);
      await create('commandedet', COMMANDEDET_COLUMNS);
      await index('idx_commandedet_fk_commande', 'commandedet', ['fk_commande']);
      await index('idx_commandedet_fk_product', 'commandedet', ['fk_product']);
      await create('product_price', PRODUCT_PRICE_COLUMNS);
      await index('idx_product_price_fk_product', 'product_price', ['fk_product']);
      await create('product_customer_price', PRODUCT_CUSTOMER_PRICE_COLUMNS);
      await index('idx_product_customer_price_fk_product', 'product_customer_price', ['fk_product']);
      await index('idx_product_customer_price_fk_soc', 'product_customer_price', ['fk_soc']);
      await create('c_payment_term', PAYMENT_TERM_COLUMNS);
      const terms = new Set((await db.selectFrom('c_payment_term').select('rowid').execute()).map((r) => Number(r.rowid)));
      for (const [rowid, code, sortorder, libelle, libelle_facture, type_cdr, nbjour, decalage, deposit_percent] of DOLIBARR_PAYMENT_TERMS)
        if (!terms.has(rowid))
          await db
            .insertInto('c_payment_term')
            // The deposit terms come inactive, as in Dolibarr's data.
            .values({
              rowid,
              entity: 1,
              code,
              sortorder,
              active: code === 'DEP30PCTDEL' ? 0 : 1,
              libelle,
              libelle_facture,
              type_cdr,
              nbjour,
              decalage,
              deposit_percent,
              position: 0,
            })
            .execute();
      // The rows above came with their ids: PostgreSQL's sequence goes on after them.
      if (dialect === 'postgres')
        await sql`select setval(pg_get_serial_sequence(${`${prefix}c_payment_term`}, 'rowid'), (select max(rowid) from ${sql.table('c_payment_term')}))`.execute(
          db,
        );
      const known = new Set(
        (await db.selectFrom('const').select('name').where('name', 'in', ['MAIN_MODULE_FACTURE', 'FACTURE_ADDON_PDF']).execute()).map(
          (r) => r.name as string,
        ),
      );
      for (const [name, value] of [
        ['MAIN_MODULE_FACTURE', '1'],
        ['FACTURE_ADDON_PDF', 'sponge'],
      ] as const)
        if (!known.has(name)) await db.insertInto('const').values({ name, entity: 0, value, type: 'chaine', visible: 0 }).execute();
    },
  };
}
