/**
 * The demo's maintenance visit, as a technician does it through the API on a demo database
 * (`fieldreport serve --demo`'s data): a report from the template *Wartung Gasheizung* with the
 * demo's cover sheet on the technician's first order, 7 photos taken on the visit (4:3, as a phone takes them), the
 * checklist answered (one defect with its note and photo, the flue gas loss above its limit
 * accepted with a reason, the rest OK), arrival and departure, the order's material lines, the
 * customer's signature with the sign-off. The test of the PDF's length (pdf-maintenance-visit) and
 * the cover benchmark (bench/cover.ts) make the same visit, one in process, one over HTTP.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { multipart } from './multipart.js';
import { signaturePng } from './signature.js';

const ASSETS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../assets/demo-photos');

/** One request: a JSON body or a multipart form; the answer's status and body. */
export type VisitCall = (request: {
  method: 'GET' | 'POST';
  url: string;
  json?: unknown;
  form?: { payload: Buffer; contentType: string };
}) => Promise<{ status: number; body: Buffer }>;

export const VISIT_SIGNER = 'Berta Sonnenschein';
export const VISIT_DEFECT = 'Abgasleitung dicht, fest und Mündung frei';
export const VISIT_DEFECT_NOTE = 'Mündung durch Vogelnest teilweise verlegt; Kunde informiert, Reinigung angeboten';
/**
 * The visit's photos as the phone takes them (4:3, held across), uploaded to the order, with
 * the titles their pages get (some longer than a line).
 */
export const VISIT_UPLOADS: Array<[asset: string, name: string, title: string]> = [
  ['Pflaster.jpg', 'Abgasmuendung.jpg', 'Abgasanlage: Mündung mit Vogelnest'],
  ['Kies_Unterbau.jpg', 'Brenner_vorher.jpg', 'Brenner vor der Reinigung: Beläge an Brennerstab und Wärmetauscherlamellen'],
  ['Rasen_Randbereich.jpg', 'Brenner_nachher.jpg', 'Brenner nach der Reinigung'],
  ['Pflaster_hochkant.jpg', 'Siphon.jpg', 'Siphon gereinigt und mit frischem Wasser befüllt, Kondensatschlauch geprüft'],
  ['Kies_Unterbau.jpg', 'Neutralisation.jpg', 'Neutralisation: Granulat erneuert (2 kg)'],
  ['Pflaster.jpg', 'Typenschild.jpg', 'Typenschild'],
  ['Rasen_Randbereich.jpg', 'Abgasmessung.jpg', 'Abgasmessung am Messstutzen'],
];
/** The photo the defect shows. */
const DEFECT_PHOTO = 'Abgasmuendung.jpg';

/** A photo of `asset` as a phone's camera takes it held across: 4:3, 1600 × 1200, a JPEG. */
async function phonePhoto(asset: string): Promise<Buffer> {
  return sharp(path.join(ASSETS, asset)).rotate().resize(1600, 1200, { fit: 'cover' }).jpeg({ quality: 85 }).toBuffer();
}
const VALUES: Record<string, number> = {
  'Anlagendruck (kalt)': 1.6,
  'Gas-Fließdruck am Gerät': 21,
  'CO im Abgas (unverdünnt)': 12,
  Abgasverlust: 11.2,
};
export const VISIT_OK_REASON = 'Brenner noch im Anlauf; Nachmessung bei Volllast ergab 9,8 %';

interface Item {
  id: string;
  label: string;
  unit: string | null;
  lower: number | null;
  upper: number | null;
}

export interface MaintenanceVisit {
  reportId: number;
  ref: string;
  orderId: number;
  token: string;
}

/**
 * Logs in as `login` (password `password`), and makes the visit up to the signature; the report
 * stays a draft. `send(token)` sends a request with the given token (or none). `cover`: the ODT
 * cover sheet's name (default: the first offered), or null for none.
 */
export async function makeMaintenanceVisit(
  send: (token: string | null) => VisitCall,
  options: { login?: string; password?: string; cover?: string | null; earlierMinutes?: number } = {},
): Promise<MaintenanceVisit> {
  const anonymous = send(null);
  const auth = await ok(anonymous, 'POST', '/api/auth.php', { login: options.login ?? 'techniker', password: options.password ?? 'demo' });
  const token = (auth as { token: string }).token;
  const call = send(token);
  const templates = (await ok(call, 'GET', '/api/templates.php')) as { items: Array<{ id: number; template_label: string | null }> };
  const template = templates.items.find((t) => t.template_label === 'Wartung Gasheizung');
  if (!template) throw new Error('the demo template "Wartung Gasheizung" is missing');
  const reports = (await ok(call, 'GET', '/api/reports.php')) as { items: Array<{ title: string; fk_element: number }> };
  const draft = reports.items.find((r) => r.title === 'Wartung Gas-Brennwertheizung');
  if (!draft) throw new Error('the demo draft report on the first order is missing');
  const orderId = draft.fk_element;

  for (const [asset, name] of VISIT_UPLOADS) {
    const form = multipart([{ name: 'file', filename: name, type: 'image/jpeg', data: await phonePhoto(asset) }]);
    await ok(call, 'POST', `/api/orders.php?id=${orderId}&action=upload_photo`, undefined, form);
  }
  const cover =
    options.cover !== undefined
      ? options.cover
      : ((await ok(call, 'GET', '/api/odt_templates.php')) as { items: Array<{ name: string }> }).items[0]?.name;
  const created = (await ok(call, 'POST', '/api/templates.php?action=create_from_template', {
    template_id: template.id,
    fk_element: orderId,
    title: 'Jahreswartung Gas-Brennwertheizung',
    odt_template: cover ?? null,
  })) as { id: number; ref: string };
  const report = (await ok(call, 'GET', `/api/reports.php?id=${created.id}`)) as {
    pages: Array<{ id: number; layout: string; checklist: Item[] | null }>;
  };
  const checklist = report.pages.find((p) => p.layout === 'checklist');
  if (!checklist?.checklist) throw new Error('the template has no checklist');

  // Another visit of the same order is made earlier (the day before): its time on site must not overlap.
  const now = Math.floor(Date.now() / 1000) - (options.earlierMinutes ?? 0) * 60;
  const arrival = now - 95 * 60;
  const departure = now - 5 * 60;
  // Today's visit taps arrive and leave; an earlier one is entered by hand (an open arrival would reach until now).
  if (options.earlierMinutes) {
    const interval = { element_type: 'commande', fk_element: orderId, arrival, departure, reason: 'Nachgetragen' };
    await ok(call, 'POST', '/api/times.php?action=add', interval);
  } else await ok(call, 'POST', '/api/times.php?action=arrive', { element_type: 'commande', fk_element: orderId, at: arrival });

  // Photo pages go after the checklist, before the template's closing page.
  const add = (fields: object) => ok(call, 'POST', `/api/pages.php?action=add&bericht_id=${created.id}`, fields);
  for (const [, name, title] of VISIT_UPLOADS) await add({ source: name, title });
  const pages = (await ok(call, 'GET', `/api/reports.php?id=${created.id}`)) as { pages: Array<{ id: number; layout: string }> };
  const closing = pages.pages.find((p) => p.layout === 'title_only');
  if (closing) {
    const order = [...pages.pages.filter((p) => p.id !== closing.id).map((p) => p.id), closing.id];
    await ok(call, 'POST', `/api/pages.php?action=reorder&bericht_id=${created.id}`, { order });
    await ok(call, 'POST', `/api/pages.php?id=${closing.id}`, {
      note: 'Ionisationselektrode zeigt Verschleiß, Austausch bei der nächsten Wartung empfohlen. Nächste Wartung in 12 Monaten.',
    });
  }

  for (const item of checklist.checklist) {
    const value = VALUES[item.label];
    const answer: Record<string, unknown> = { item: item.id, state: 'ok' };
    if (value !== undefined) answer.value = value;
    if (item.label === VISIT_DEFECT) Object.assign(answer, { state: 'defect', note: VISIT_DEFECT_NOTE, photos: [DEFECT_PHOTO] });
    if (item.label === 'Abgasverlust') answer.ok_reason = VISIT_OK_REASON;
    await ok(call, 'POST', `/api/pages.php?action=check&id=${checklist.id}`, answer);
  }

  if (!options.earlierMinutes)
    await ok(call, 'POST', '/api/times.php?action=leave', { element_type: 'commande', fk_element: orderId, at: departure });
  const materials = (await ok(call, 'GET', `/api/materials.php?element_type=commande&fk_element=${orderId}`)) as {
    items: Array<{ label: string; qty: number; unit: string | null; note: string | null }>;
  };
  const order = (await ok(call, 'GET', `/api/orders.php?id=${orderId}`)) as { note_public: string | null };
  const signoff = {
    work: order.note_public,
    times: [{ arrival, departure }],
    materials: materials.items.map((m) => ({ label: m.label, qty: m.qty, unit: m.unit, note: m.note })),
    checklist: { items: checklist.checklist.length, ok: checklist.checklist.length - 1, defects: 1, na: 0, open: 0, outside_limits: 1 },
    pages: pages.pages.length,
    photos: VISIT_UPLOADS.length,
    missing: [],
  };
  const form = multipart([
    { name: 'signer_name', type: 'text/plain; charset=utf-8', data: VISIT_SIGNER },
    { name: 'signoff', filename: 'signoff.json', type: 'application/json', data: JSON.stringify(signoff) },
    { name: 'file', filename: 'signature.png', type: 'image/png', data: await signaturePng() },
  ]);
  await ok(call, 'POST', `/api/pages.php?action=signature&bericht_id=${created.id}`, undefined, form);
  return { reportId: created.id, ref: created.ref, orderId, token };
}

/** `call`'s answer as JSON when 2xx, else an error with its body. */
export async function ok(
  call: VisitCall,
  method: 'GET' | 'POST',
  url: string,
  json?: unknown,
  form?: { payload: Buffer; contentType: string },
): Promise<unknown> {
  const res = await call({ method, url, json, form });
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${res.body.toString('utf8').slice(0, 500)}`);
  const text = res.body.toString('utf8');
  return text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : res.body;
}
