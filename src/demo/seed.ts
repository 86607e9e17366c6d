/**
 * Demo data for the standalone default: users with different rights, customers, suppliers,
 * orders with ref_client linked to users and a work description each, invoices, proposals, the
 * technician's week (orders and interventions the office gave him by contact and agenda), a
 * company with a logo, a few real photos (with Dolibarr thumbnails and ecm_files rows) in the order
 * folders, a catalogue of parts and services with barcodes and the technician's van (a warehouse
 * with stock, his default warehouse), material lines and a draft maintenance report on the first order, a report template
 * (a gas boiler's maintenance protocol: a checklist with four measured values), and an ODT cover-sheet template.
 *
 * Only ever on a database whose Dolibarr tables this service created (never a real Dolibarr),
 * and only while it has no users yet. Every demo user's password is DEMO_PASSWORD.
 *
 * One file, longer than most: the demo's rows, files and their links are one story read top to bottom.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../adapters/file-store.js';
import { addProduct, addWarehouse, setStock, type NewProduct } from './catalogue.js';
import { COVER_TEMPLATE_FILENAME, makeCoverTemplateOdt } from './cover-template.js';
import { SERVER_TZ_CONST } from '../dolibarr/time-zone.js';
import { defineItems, writeItems, type ItemDefinition } from '../modules/pages/checklist.js';
import { makeDemoLogo } from './logo.js';
import { writeThumbnails } from '../adapters/image.js';
import type { Config } from '../config.js';
import type { DbHandle } from '../db/database.js';
import { insertId, toDbDateTime } from '../db/dialect.js';
import { recordPlannedEvent } from '../dolibarr/agenda.js';
import { addDays, toDolibarrDateTime } from '../dolibarr/time.js';
import { isStandalone } from '../db/migrate.js';
import { CONTACT_TYPES } from '../db/migrations/0013-bericht-mail.js';
import { DEMO_MARKER, DEMO_PASSWORD } from './logins.js';
import { objectFolder } from '../dolibarr/documents.js';
import { ecmFileRef, entityRoot, md5Hex } from '../dolibarr/ecm.js';
import { createEcmFilesRepository } from '../dolibarr/ecm-files.repository.js';
import { hashPassword } from '../dolibarr/password.js';
import { RIGHTS_MODULE, type Right } from '../dolibarr/rights.js';

export { DEMO_PASSWORD, demoLogins } from './logins.js';

interface DemoUser {
  login: string;
  firstname: string;
  lastname: string;
  admin?: boolean;
  active?: boolean;
  rights?: Right[];
  group?: 'Techniker';
}

const USERS: DemoUser[] = [
  { login: 'techniker', firstname: 'Max', lastname: 'Mustermann', group: 'Techniker' },
  { login: 'meister', firstname: 'Erika', lastname: 'Meister', rights: ['read', 'write', 'delete', 'admin'] },
  { login: 'admin', firstname: 'Anna', lastname: 'Admin', admin: true, rights: ['read', 'write', 'delete', 'admin'] },
  { login: 'buero', firstname: 'Bernd', lastname: 'Büro', rights: ['read'] },
  { login: 'gast', firstname: 'Gustav', lastname: 'Gast' },
  { login: 'ehemalig', firstname: 'Otto', lastname: 'Ehemalig', active: false, rights: ['read', 'write'] },
];
const GROUP_RIGHTS: Right[] = ['read', 'write', 'delete'];

const CUSTOMERS = [
  { nom: 'Bäckerei Sonnenschein GmbH', alias: 'Sonnenschein', client: 1, town: 'München', zip: '80331', address: 'Marienplatz 3' },
  { nom: 'Hotel Alpenblick', alias: null, client: 1, town: 'Garmisch-Partenkirchen', zip: '82467', address: 'Zugspitzstraße 12' },
  { nom: 'Wohnbau Müller & Söhne KG', alias: 'Müller Wohnbau', client: 3, town: 'Augsburg', zip: '86150', address: 'Maximilianstraße 40' },
  { nom: 'Praxis Dr. Weiß', alias: null, client: 1, town: 'Rosenheim', zip: '83022', address: 'Innstraße 7' },
  { nom: 'Stadtwerke Freising', alias: 'SWF', client: 2, town: 'Freising', zip: '85354', address: 'Am Wörth 1' },
  { nom: 'Gasthaus Zur Post', alias: null, client: 1, town: 'Erding', zip: '85435', address: 'Landshuter Straße 2' },
];
/**
 * The technician's week (days from today; null: no appointment yet), the work, the customer (an
 * index of CUSTOMERS), whether the office keeps it as an order or as an intervention (Dolibarr's
 * module Interventions), and how the office gave it to him: as its contact (the order's
 * TECHNICIAN, the intervention's INTERVENING), by an appointment he owns in the agenda, or as
 * attendee of the master's appointment.
 */
const WEEK: Array<{
  day: number | null;
  from: string;
  to: string;
  code: 'AC_RDV' | 'AC_INT';
  work: string;
  customer: number;
  kind: 'order' | 'intervention';
  by: Array<'contact' | 'agenda' | 'attendee'>;
}> = [
  { day: 0, from: '08:00', to: '09:30', code: 'AC_INT', work: 'Wartung Gas-Brennwertkessel', customer: 1, kind: 'order', by: ['agenda'] },
  {
    day: 0,
    from: '11:00',
    to: '12:00',
    code: 'AC_INT',
    work: 'Störung: kein Warmwasser',
    customer: 5,
    kind: 'intervention',
    by: ['contact', 'agenda'],
  },
  { day: 0, from: '14:30', to: '15:30', code: 'AC_RDV', work: 'Angebot Wärmepumpe besprechen', customer: 3, kind: 'order', by: ['agenda'] },
  { day: 1, from: '09:00', to: '12:00', code: 'AC_INT', work: 'Inbetriebnahme Wärmepumpe', customer: 2, kind: 'order', by: ['attendee'] },
  {
    day: 2,
    from: '13:00',
    to: '14:00',
    code: 'AC_INT',
    work: 'Jährliche Wartung Lüftungsanlage',
    customer: 4,
    kind: 'intervention',
    by: ['contact', 'agenda'],
  },
  { day: 4, from: '08:30', to: '10:00', code: 'AC_INT', work: 'Austausch Umwälzpumpe', customer: 0, kind: 'order', by: ['agenda'] },
  {
    day: null,
    from: '',
    to: '',
    code: 'AC_INT',
    work: 'Heizkörper entlüften, Druck prüfen',
    customer: 3,
    kind: 'order',
    by: ['contact'],
  },
];
/** The customer's contact person, one for each customer above (the address is made from the name). */
const CONTACTS: Array<[string, string]> = [
  ['Erika', 'Sonnenschein'],
  ['Josef', 'Huber'],
  ['Petra', 'Mueller'],
  ['Lena', 'Weiss'],
  ['Tobias', 'Brandl'],
  ['Anna', 'Wirt'],
];
const SUPPLIERS = [
  { nom: 'Heizungsgroßhandel Süd GmbH', town: 'Nürnberg', zip: '90402' },
  { nom: 'Rohr & Armatur AG', town: 'Regensburg', zip: '93047' },
];

/**
 * What each order is about (note_public), in order; the orders take them in turn. The first is the
 * boiler maintenance that the draft report documents.
 */
const WORK: string[] = [
  'Jährliche Wartung der Gas-Brennwerttherme Vaillant ecoTEC plus im Keller; Abgasmessung. Kunde wünscht Hinweis auf Verschleißteile.',
  'Vor-Ort-Termin für eine Luft-Wasser-Wärmepumpe: Aufstellort im Garten und Wanddurchführung für die Leitungen prüfen, Angebot folgt.',
  'Zuleitung für eine Wallbox (11 kW) in der Garage: Erdkabel im Kiesbett verlegen, Mauerdurchführung abdichten, Rasen wiederherstellen.',
  'Austausch des Warmwasserspeichers (300 l) im Heizraum; Altgerät entleeren, demontieren und entsorgen.',
  'Heizung im Obergeschoss wird nicht warm: Heizkörper entlüften, Anlagendruck prüfen, hydraulischen Abgleich kontrollieren.',
  'E-Check der elektrischen Anlage nach DGUV Vorschrift 3 in Küche und Gastraum; Prüfprotokoll erstellen.',
  'Backstube: zwei CEE-Steckdosen (16 A) für die neue Teigknetmaschine setzen, eigener Stromkreis mit FI/LS, Prüfung nach DIN VDE 0100-600.',
  'Undichtes Sicherheitsventil am Warmwasserspeicher tropft: Ventil tauschen, Ausdehnungsgefäß prüfen.',
  'Zählerschrank erneuern: Umbau auf Zählerplatz nach TAB, neuer FI/LS-Schutz für die Stromkreise im Erdgeschoss.',
  'Thermostatköpfe in allen Behandlungsräumen gegen programmierbare Köpfe tauschen; Heizkurve anpassen.',
  'Jährliche Wartung der Gas-Brennwerttherme Buderus Logamax plus GB192i; Abgasmessung.',
  'Umwälzpumpe der Heizung laut und ungeregelt: Austausch gegen Hocheffizienzpumpe, Anlage neu befüllen und entlüften.',
];

/**
 * Real photographs (CC0, see assets/demo-photos/README.md), placed in the first orders' folders
 * under names that fit each order's work: [file in assets/demo-photos, name in the order folder].
 */
const PHOTO_DIR = new URL('../../assets/demo-photos/', import.meta.url);
const ORDER_PHOTOS: Array<Array<[asset: string, name: string]>> = [
  [
    ['Pflaster.jpg', 'Schornstein_Mauerwerk.jpg'],
    ['Kies_Unterbau.jpg', 'Neutralisationsgranulat.jpg'],
  ],
  [
    ['Rasen_Randbereich.jpg', 'Aufstellort_Garten.jpg'],
    ['Pflaster_hochkant.jpg', 'Hauswand_Durchfuehrung.jpg'],
  ],
  [
    ['Pflaster.jpg', 'Garagenwand.jpg'],
    ['Kies_Unterbau.jpg', 'Kabelgraben_Kiesbett.jpg'],
    ['Rasen_Randbereich.jpg', 'Rasen_wiederhergestellt.jpg'],
  ],
];

interface DemoPage {
  layout: 'photo' | 'before_after' | 'title_only' | 'checklist';
  title: string;
  note?: string;
  /** A checklist's items. */
  items?: ItemDefinition[];
  /** Photo names in the first order's folder. */
  a?: string;
  b?: string;
}

/**
 * The maintenance of a gas condensing boiler as a checklist: the steps of the yearly service, and
 * four measured values with the limits a heating engineer works to: the system's water pressure of
 * a detached house (1.0 to 2.0 bar cold), the gas flow pressure at the appliance for natural gas H
 * (DVGW G 600: 18 to 25 mbar), CO in the undiluted flue gas (at most 1000 ppm, DVGW G 660), and the
 * flue gas loss (at most 10 % for 25 to 50 kW, 1. BImSchV § 10).
 */
const CHECKLIST_TITLE = 'Prüfliste Gas-Brennwertheizung';
const CHECKLIST: ItemDefinition[] = [
  { label: 'Sichtprüfung Heizgerät, Aufstellraum und Verbrennungsluftzufuhr' },
  { label: 'Abgasleitung dicht, fest und Mündung frei' },
  { label: 'Brenner und Wärmetauscher gereinigt' },
  { label: 'Brennerdichtung erneuert' },
  { label: 'Zünd- und Ionisationselektrode geprüft und eingestellt' },
  { label: 'Siphon gereinigt und befüllt' },
  { label: 'Neutralisation geprüft, Granulat ausreichend' },
  { label: 'Gasleitung und Gasarmaturen dicht' },
  { label: 'Anlagendruck (kalt)', unit: 'bar', lower: 1, upper: 2 },
  { label: 'Gas-Fließdruck am Gerät', unit: 'mbar', lower: 18, upper: 25 },
  { label: 'CO im Abgas (unverdünnt)', unit: 'ppm', upper: 1000 },
  { label: 'Abgasverlust', unit: '%', upper: 10 },
  { label: 'Sicherheitseinrichtungen und Regelung geprüft, Anlage übergeben' },
];

/** The draft report on the first order: the boiler maintenance, as a technician documents it. */
const DRAFT_TITLE = 'Wartung Gas-Brennwertheizung';
const DRAFT_PAGES: DemoPage[] = [
  { layout: 'checklist', title: CHECKLIST_TITLE, items: CHECKLIST },
  {
    layout: 'photo',
    title: 'Abgasanlage: Schornstein',
    a: 'Schornstein_Mauerwerk.jpg',
    note: 'Mauerwerk ohne Risse und Durchfeuchtung; Abgasleitung im Schacht fest, Mündung frei.',
  },
  {
    layout: 'photo',
    title: 'Neutralisation des Kondensats',
    a: 'Neutralisationsgranulat.jpg',
    note: 'Granulat in der Neutralisationsbox verbraucht und erneuert (2 kg); Kondensatablauf frei.',
  },
  {
    layout: 'title_only',
    title: 'Hinweise und Empfehlungen',
    note: 'Ionisationselektrode zeigt Verschleiß, Austausch bei der nächsten Wartung empfohlen.',
  },
];
/** The material used on the first order, as the technician enters it. */
const DRAFT_MATERIAL: Array<{ label: string; qty: number; unit: string; note?: string }> = [
  { label: 'Dichtungssatz Brenner', qty: 1, unit: 'Stk' },
  { label: 'Zündelektrode', qty: 1, unit: 'Stk' },
  { label: 'Neutralisationsgranulat', qty: 2, unit: 'kg' },
  { label: 'Reinigungsmittel Wärmetauscher', qty: 0.5, unit: 'l' },
];

/** The report template: the maintenance checklist, then a page for what the customer should know. */
const TEMPLATE_TITLE = 'Wartungsprotokoll Gas-Brennwertheizung';
const TEMPLATE_LABEL = 'Wartung Gasheizung';
const TEMPLATE_PAGES: DemoPage[] = [
  { layout: 'checklist', title: CHECKLIST_TITLE, items: CHECKLIST },
  { layout: 'title_only', title: 'Hinweise und Empfehlungen', note: 'Verschleißteile, empfohlene Arbeiten, nächste Wartung.' },
];

function ref(prefix: string, at: Date, n: number): string {
  const yymm = at.toISOString().slice(2, 7).replace('-', '');
  return `${prefix}${yymm}-${String(n).padStart(4, '0')}`;
}

/**
 * The demo's catalogue: parts with an EAN-13 (a Code 128 text for one), a serial-numbered pump, a
 * service for the labour, one item no longer on sale; the units are Dolibarr's (llx_c_units.code).
 */
const CATALOGUE: Array<Omit<NewProduct, 'entity'>> = [
  { ref: 'DICHT-BR-01', label: 'Dichtungssatz Brenner', price: 12.5, unit: 'SET', barcode: '4260123450014' },
  { ref: 'CU-15', label: 'Kupferrohr 15 mm', price: 8.4, unit: 'M', barcode: '4260123450021' },
  { ref: 'CU-22', label: 'Kupferrohr 22 mm', price: 12.9, unit: 'M', barcode: '4260123450038' },
  { ref: 'FIT-15-W', label: 'Pressfitting Winkel 15 mm', price: 3.2, unit: 'P', barcode: '4260123450045' },
  { ref: 'DUESE-045', label: 'Brennerdüse 0,45 gph 60° S', price: 9.8, unit: 'P', barcode: '4260123450052' },
  { ref: 'FILTER-OEL', label: 'Ölfiltereinsatz Siku 40 µm', price: 6.9, unit: 'P', barcode: '4260123450069' },
  { ref: 'ZUEND-EL', label: 'Zündelektrode Blockelektrode', price: 18.4, unit: 'P', barcode: '4260123450076' },
  { ref: 'ENTL-VENT', label: 'Schnellentlüfter 3/8"', price: 7.5, unit: 'P', barcode: 'C128-ENTL-VENT-38' },
  { ref: 'FROSTSCHUTZ', label: 'Frostschutzmittel Heizung', price: 4.1, unit: 'L', barcode: '4260123450083' },
  { ref: 'PUMPE-UPM3', label: 'Hocheffizienzpumpe UPM3 25-70', price: 189, unit: 'P', batch: 2 },
  { ref: 'DICHT-ALT', label: 'Dichtungssatz Brenner (alte Bauart)', price: 9.9, unit: 'SET', tosell: false },
  { ref: 'ARBEIT-STD', label: 'Arbeitsstunde Techniker', price: 65, unit: 'H', service: true, duration: '1h' },
  { ref: 'ANFAHRT', label: 'Anfahrtspauschale', price: 35, service: true },
];

/** What the van carries: ref and quantity (and the serial numbers of a product that keeps them). */
const VAN_STOCK: Array<[string, number, Array<[string, number]>?]> = [
  ['DICHT-BR-01', 6],
  ['CU-15', 12.5],
  ['CU-22', 6],
  ['FIT-15-W', 24],
  ['DUESE-045', 4],
  ['FILTER-OEL', 5],
  ['ZUEND-EL', 2],
  ['ENTL-VENT', 3],
  ['FROSTSCHUTZ', 10],
  ['PUMPE-UPM3', 1, [['UPM3-2611-0042', 1]]],
];

/** The demo company's zone (Garching, Bavaria), when TIME_ZONE names none: it becomes Dolibarr's MAIN_SERVER_TZ. */
export const DEMO_TIME_ZONE = 'Europe/Berlin';

export async function seedDemo(
  handle: DbHandle,
  given: Pick<Config, 'entity' | 'dataRoot' | 'timeZone' | 'timeZoneSet'>,
): Promise<boolean> {
  // Dolibarr's dates are written in the zone the demo then names as Dolibarr's (MAIN_SERVER_TZ).
  const config = { ...given, timeZone: given.timeZoneSet ? given.timeZone : DEMO_TIME_ZONE };
  const { db, dialect } = handle;
  if (!(await isStandalone(db))) return false;
  const anyUser = await db.selectFrom('user').select('rowid').limit(1).executeTakeFirst();
  if (anyUser) return false;

  const entity = config.entity;
  const now = new Date();
  const daysAgo = (d: number) => new Date(now.getTime() - d * 86_400_000);
  // Dolibarr's tables hold wall times of its time zone (time.ts); the module's own keep UTC.
  const dt = (date: Date) => toDolibarrDateTime(date, config.timeZone);
  const passCrypted = await hashPassword(DEMO_PASSWORD);

  const photos: Array<{ orderId: number; orderRef: string; asset: string; name: string }> = [];

  await db.transaction().execute(async (trx) => {
    const rights = await trx
      .selectFrom('rights_def')
      .select(['id', 'perms'])
      .where('module', '=', RIGHTS_MODULE)
      .where('entity', '=', entity)
      .execute();
    const rightId = (r: Right) => rights.find((x) => x.perms === r)!.id;

    const groupId = await insertId(
      dialect,
      trx.insertInto('usergroup').values({ nom: 'Techniker', entity, note: 'Techniker im Außendienst', datec: dt(now) }),
    );
    for (const r of GROUP_RIGHTS)
      await trx
        .insertInto('usergroup_rights')
        .values({ entity, fk_usergroup: groupId, fk_id: rightId(r) })
        .execute();

    const userIds = new Map<string, number>();
    for (const u of USERS) {
      const userId = await insertId(
        dialect,
        trx.insertInto('user').values({
          entity,
          login: u.login,
          pass_crypted: passCrypted,
          firstname: u.firstname,
          lastname: u.lastname,
          email: `${u.login}@example.com`,
          admin: u.admin ? 1 : 0,
          statut: u.active === false ? 0 : 1,
          datec: dt(now),
        }),
      );
      userIds.set(u.login, userId);
      for (const r of u.rights ?? [])
        await trx
          .insertInto('user_rights')
          .values({ entity, fk_user: userId, fk_id: rightId(r) })
          .execute();
      if (u.group) await trx.insertInto('usergroup_user').values({ entity, fk_user: userId, fk_usergroup: groupId }).execute();
    }

    const customerIds: number[] = [];
    for (const [i, c] of CUSTOMERS.entries()) {
      customerIds.push(
        await insertId(
          dialect,
          trx.insertInto('societe').values({
            nom: c.nom,
            name_alias: c.alias,
            entity,
            client: c.client,
            fournisseur: 0,
            status: 1,
            code_client: `CU${ref('', daysAgo(400), i + 1)}`,
            address: c.address,
            zip: c.zip,
            town: c.town,
            phone: `+49 89 ${String(4711000 + i * 37)}`,
            email: `info@kunde${i + 1}.example`,
            datec: dt(daysAgo(400 - i)),
          }),
        ),
      );
    }
    // A contact person at each customer, linked to its orders as the customer contact (Dolibarr's
    // element_contact): the app proposes them when a report is sent.
    const contactIds: number[] = [];
    for (const [i, name] of CONTACTS.entries()) {
      contactIds.push(
        await insertId(
          dialect,
          trx.insertInto('socpeople').values({
            fk_soc: customerIds[i % customerIds.length]!,
            entity,
            firstname: name[0],
            lastname: name[1],
            email: `${name[0].toLowerCase()}.${name[1].toLowerCase()}@kunde${(i % customerIds.length) + 1}.example`,
            statut: 1,
            datec: dt(daysAgo(390 - i)),
          }),
        ),
      );
    }
    for (const [i, s] of SUPPLIERS.entries()) {
      await trx
        .insertInto('societe')
        .values({
          nom: s.nom,
          entity,
          client: 0,
          fournisseur: 1,
          status: 1,
          code_fournisseur: `SU${ref('', daysAgo(500), i + 1)}`,
          town: s.town,
          zip: s.zip,
          datec: dt(daysAgo(500)),
        })
        .execute();
    }

    // Orders: each technician is linked to several, through different fk_user_* columns.
    const people = ['techniker', 'meister', 'admin', 'techniker', 'meister', 'techniker'];
    const orders: Array<{ id: number; ref: string; soc: number }> = [];
    for (let i = 0; i < 12; i++) {
      const at = daysAgo(60 - i * 5);
      const author = userIds.get(people[i % people.length]!)!;
      const draft = i === 11;
      const orderId = await insertId(
        dialect,
        trx.insertInto('commande').values({
          ref: draft ? 'PROV' : ref('CO', at, i + 1),
          entity,
          ref_client: `Auftrag ${4711 + i * 3}`,
          fk_soc: customerIds[i % customerIds.length]!,
          fk_statut: draft ? 0 : [1, 2, 3][i % 3]!,
          fk_user_author: author,
          fk_user_valid: draft ? null : i % 4 === 0 ? userIds.get('techniker')! : author,
          total_ht: 250 + i * 120,
          total_tva: (250 + i * 120) * 0.19,
          total_ttc: (250 + i * 120) * 1.19,
          date_creation: dt(at),
          date_valid: draft ? null : dt(at),
          date_commande: dt(at).slice(0, 10),
          date_livraison: dt(daysAgo(50 - i * 5)),
          note_public: WORK[i % WORK.length]!,
          tms: dt(at),
        }),
      );
      // Dolibarr names a draft '(PROV<rowid>)'.
      const orderRef = draft ? `(PROV${orderId})` : ref('CO', at, i + 1);
      if (draft) await trx.updateTable('commande').set({ ref: orderRef }).where('rowid', '=', orderId).execute();
      orders.push({ id: orderId, ref: orderRef, soc: customerIds[i % customerIds.length]! });
      const contact = contactIds[i % customerIds.length];
      if (contact !== undefined) {
        const type = CONTACT_TYPES.find((t) => t.element === 'commande' && t.code === 'CUSTOMER')!.rowid;
        await trx
          .insertInto('element_contact')
          .values({ element_id: orderId, fk_c_type_contact: type, fk_socpeople: contact, statut: 4, datecreate: dt(at) })
          .execute();
      }
    }

    // The technician's week as the office plans it in Dolibarr: orders and interventions the
    // office made and validated, given to him as their contact or by an appointment in the agenda
    // (owner, or attendee of the master's), today and on the next days, at the customer's.
    const office = userIds.get('buero')!;
    const technician = userIds.get('techniker')!;

    // The catalogue the technician takes parts from, and his van: a warehouse of its own, his
    // default warehouse (the user card's), stocked as the office's stock corrections leave it.
    const productIds = new Map<string, number>();
    for (const p of CATALOGUE) productIds.set(p.ref, await addProduct(trx, dialect, { ...p, entity, author: office }));
    const van = await addWarehouse(trx, dialect, {
      ref: 'Fahrzeug M-FR 1042',
      description: 'Servicewagen Max Mustermann',
      entity,
      author: office,
    });
    await trx.updateTable('user').set({ fk_warehouse: van }).where('rowid', '=', technician).execute();
    for (const [ref, qty, lots] of VAN_STOCK) await setStock(trx, productIds.get(ref)!, van, qty, lots, entity);
    const today = dt(now).slice(0, 10);
    const contactType = async (element: string, code: string) =>
      (
        await trx
          .selectFrom('c_type_contact')
          .select('rowid')
          .where('element', '=', element)
          .where('source', '=', 'internal')
          .where('code', '=', code)
          .executeTakeFirstOrThrow()
      ).rowid;
    const givenAs = { order: await contactType('commande', 'TECHNICIAN'), intervention: await contactType('fichinter', 'INTERVENING') };
    let interventions = 0;
    for (const [n, visit] of WEEK.entries()) {
      const customer = customerIds[visit.customer]!;
      const made = dt(daysAgo(3 + n));
      let element: { type: 'commande' | 'fichinter'; id: number };
      if (visit.kind === 'order') {
        const orderRef = ref('CO', now, 13 + n);
        const orderId = await insertId(
          dialect,
          trx.insertInto('commande').values({
            ref: orderRef,
            entity,
            ref_client: `Auftrag ${4800 + n * 7}`,
            fk_soc: customer,
            fk_statut: 1,
            fk_user_author: office,
            fk_user_valid: office,
            total_ht: 180 + n * 95,
            total_tva: (180 + n * 95) * 0.19,
            total_ttc: (180 + n * 95) * 1.19,
            date_creation: made,
            date_valid: made,
            date_commande: made.slice(0, 10),
            note_public: visit.work,
            tms: made,
          }),
        );
        orders.push({ id: orderId, ref: orderRef, soc: customer });
        element = { type: 'commande', id: orderId };
      } else {
        // As Dolibarr's intervention card writes a validated one (Fichinter::create, setValid).
        interventions += 1;
        const day = visit.day === null ? null : addDays(today, visit.day);
        const id = await insertId(
          dialect,
          trx.insertInto('fichinter').values({
            ref: ref('FI', now, interventions),
            entity,
            ref_client: `Meldung ${900 + n}`,
            fk_soc: customer,
            fk_projet: 0,
            fk_contrat: 0,
            fk_statut: 1,
            fk_user_author: office,
            fk_user_modif: office,
            fk_user_valid: office,
            datec: made,
            date_valid: made,
            dateo: day,
            datee: day,
            duree: 0,
            description: visit.work,
            note_public: visit.work,
            model_pdf: 'soleil',
            tms: made,
          }),
        );
        element = { type: 'fichinter', id };
      }
      if (visit.by.includes('contact')) {
        await trx
          .insertInto('element_contact')
          .values({ element_id: element.id, fk_c_type_contact: givenAs[visit.kind], fk_socpeople: technician, statut: 4, datecreate: made })
          .execute();
      }
      if (visit.day === null) continue;
      const owner = visit.by.includes('attendee') ? userIds.get('meister')! : technician;
      const day = addDays(today, visit.day);
      await recordPlannedEvent(trx, dialect, {
        entity,
        code: visit.code,
        label: visit.work,
        datep: `${day} ${visit.from}:00`,
        datep2: `${day} ${visit.to}:00`,
        socId: customer,
        elementType: element.type,
        elementId: element.id,
        authorId: office,
        ownerId: owner,
        attendeeIds: [technician],
        datec: dt(daysAgo(2)),
      });
    }

    for (let i = 0; i < 5; i++) {
      const order = orders[i]!;
      const at = daysAgo(40 - i * 6);
      const invoiceId = await insertId(
        dialect,
        trx.insertInto('facture').values({
          ref: ref('FA', at, i + 1),
          entity,
          ref_client: `Auftrag ${4711 + i * 3}`,
          fk_soc: order.soc,
          type: 0,
          fk_statut: i < 3 ? 2 : 1,
          paye: i < 3 ? 1 : 0,
          fk_user_author: userIds.get(people[i]!)!,
          fk_user_valid: userIds.get('meister')!,
          total_ht: 300 + i * 90,
          total_tva: (300 + i * 90) * 0.19,
          total_ttc: (300 + i * 90) * 1.19,
          datec: dt(at),
          datef: dt(at).slice(0, 10),
          date_valid: dt(at),
          date_lim_reglement: dt(daysAgo(10 - i * 6)).slice(0, 10),
          tms: dt(at),
        }),
      );
      await trx
        .insertInto('element_element')
        .values({ fk_source: order.id, sourcetype: 'commande', fk_target: invoiceId, targettype: 'facture' })
        .execute();
    }

    for (let i = 0; i < 4; i++) {
      const order = orders[i + 2]!;
      const at = daysAgo(75 - i * 5);
      const proposalId = await insertId(
        dialect,
        trx.insertInto('propal').values({
          ref: ref('PR', at, i + 1),
          entity,
          ref_client: `Anfrage ${900 + i}`,
          fk_soc: order.soc,
          fk_statut: [2, 2, 1, 3][i]!,
          fk_user_author: userIds.get(people[i + 2]!)!,
          total_ht: 280 + i * 110,
          total_tva: (280 + i * 110) * 0.19,
          total_ttc: (280 + i * 110) * 1.19,
          datec: dt(at),
          datep: dt(at).slice(0, 10),
          fin_validite: dt(daysAgo(45 - i * 5)),
          tms: dt(at),
        }),
      );
      await trx
        .insertInto('element_element')
        .values({ fk_source: proposalId, sourcetype: 'propal', fk_target: order.id, targettype: 'commande' })
        .execute();
    }

    const company: Array<[string, string]> = [
      ['MAIN_INFO_SOCIETE_NOM', 'Muster Haustechnik GmbH'],
      ['MAIN_INFO_SOCIETE_ADDRESS', 'Industriestraße 5'],
      ['MAIN_INFO_SOCIETE_ZIP', '85748'],
      ['MAIN_INFO_SOCIETE_TOWN', 'Garching'],
      ['MAIN_INFO_SOCIETE_MAIL', 'service@muster-haustechnik.example'],
      ['MAIN_INFO_SOCIETE_TEL', '+49 89 1234560'],
      ['MAIN_INFO_SOCIETE_LOGO', 'logo.png'],
      ['MAIN_INFO_TVAINTRA', 'DE123456789'],
      [SERVER_TZ_CONST, config.timeZone],
      // The labour a visit's draft invoice bills (hours of time on site).
      ['BERICHT_LABOUR_SERVICE', 'ARBEIT-STD'],
      [
        DEMO_MARKER,
        USERS.filter((u) => u.active !== false && (u.rights?.includes('read') || u.group))
          .map((u) => u.login)
          .join(','),
      ],
    ];
    for (const [name, value] of company)
      await trx.insertInto('const').values({ name, entity, value, type: 'chaine', visible: 0 }).execute();

    for (const [i, files] of ORDER_PHOTOS.entries()) {
      const order = orders[i]!;
      for (const [asset, name] of files) photos.push({ orderId: order.id, orderRef: order.ref, asset, name });
    }

    // A draft report on the first order (two of its photos and the steps of the maintenance), its
    // material, and a template.
    const prefix = `BR${toDbDateTime(now).slice(2, 4)}${toDbDateTime(now).slice(5, 7)}-`;
    const report = (n: number, values: { title: string; element: number | null; template: string | null; creator: number }) =>
      insertId(
        dialect,
        trx.insertInto('bericht').values({
          ref: `${prefix}${String(n).padStart(4, '0')}`,
          entity,
          element_type: values.element === null ? null : 'commande',
          fk_element: values.element,
          title: values.title,
          format: 'A4',
          orientation: 'portrait',
          odt_template: values.element === null ? null : COVER_TEMPLATE_FILENAME,
          status: 0,
          version: 1,
          is_template: values.template ? 1 : 0,
          template_label: values.template,
          fk_user_creat: values.creator,
          datec: toDbDateTime(now),
          tms: toDbDateTime(now),
        }),
      );
    const first = orders[0]!;
    const reportId = await report(1, { title: DRAFT_TITLE, element: first.id, template: null, creator: technician });
    const templateId = await report(2, { title: TEMPLATE_TITLE, element: null, template: TEMPLATE_LABEL, creator: userIds.get('admin')! });
    const folder = `commande/${objectFolder(config.dataRoot, entity, 'commande', first.ref).name}`;
    for (const [bericht, pages] of [
      [reportId, DRAFT_PAGES],
      [templateId, TEMPLATE_PAGES],
    ] as const) {
      for (const [index, page] of pages.entries()) {
        await trx
          .insertInto('bericht_page')
          .values({
            fk_bericht: bericht,
            page_order: index + 1,
            title: page.title,
            note: page.note ?? null,
            rotation: 0,
            layout: page.layout,
            source_path: page.a ? `${folder}/${page.a}` : null,
            source_path_2: page.b ? `${folder}/${page.b}` : null,
            checklist: page.items ? writeItems(defineItems([], page.items)) : null,
            datec: toDbDateTime(now),
            tms: toDbDateTime(now),
          })
          .execute();
      }
    }
    for (const line of DRAFT_MATERIAL) {
      await trx
        .insertInto('bericht_material')
        .values({
          entity,
          element_type: 'commande',
          fk_element: first.id,
          label: line.label,
          qty: line.qty,
          unit: line.unit,
          note: line.note ?? null,
          fk_user_creat: technician,
          datec: toDbDateTime(now),
        })
        .execute();
    }
  });

  // Files after the rows: an interrupted seed leaves rows without photos, never photos without rows.
  const root = entityRoot(config.dataRoot, entity);
  const saltRow = await db
    .selectFrom('const')
    .select('value')
    .where('name', '=', 'MAIN_SECURITY_SALT')
    .where('entity', 'in', [0, entity])
    .orderBy('entity', 'desc')
    .executeTakeFirst();
  const salt = saltRow?.value ?? '';
  const logo = await makeDemoLogo();
  await writeFileAtomic(path.join(root, 'mycompany', 'logos', 'logo.png'), logo);
  // The cover-sheet template, where Dolibarr keeps document templates (doctemplates/<module>/), with the same logo.
  await writeFileAtomic(path.join(root, 'doctemplates', 'bericht', COVER_TEMPLATE_FILENAME), Buffer.from(await makeCoverTemplateOdt(logo)));
  // As an upload writes them: Dolibarr's folder of the order, thumbnails, and the ecm_files row.
  const ecm = createEcmFilesRepository(db, { dialect, timeZone: config.timeZone });
  for (const photo of photos) {
    const data = await readFile(new URL(photo.asset, PHOTO_DIR));
    const folder = objectFolder(config.dataRoot, entity, 'commande', photo.orderRef);
    const file = path.join(folder.dir, photo.name);
    await writeFileAtomic(file, data);
    await writeThumbnails(file);
    await ecm.create({
      ref: ecmFileRef(salt, folder.filepath, photo.name),
      label: md5Hex(data),
      entity,
      filepath: folder.filepath,
      filename: photo.name,
      srcObjectType: 'commande',
      srcObjectId: photo.orderId,
      fullpathOrig: photo.name,
      fkUserC: null,
    });
  }
  return true;
}
