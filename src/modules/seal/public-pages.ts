/** The HTML of the public pages (public-check.routes.ts): German, self-contained, no script. */
import type { FastifyReply } from 'fastify';
import { localTime } from '../../dolibarr/time.js';
import { deviceTimeShown } from '../signatures/device-time.js';
import type { PublicCheck } from '../signatures/signatures.model.js';
import { strokesInWords } from '../signatures/strokes.js';
import type { CheckVerdict } from './pdf-check.js';

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function publicPageHeaders(reply: FastifyReply): void {
  reply.header('content-type', 'text/html; charset=utf-8');
  reply.header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'");
  reply.header('cache-control', 'no-store');
  reply.header('x-robots-tag', 'noindex');
}

/** The answer when the service has too many public checks at once (503), or this address has (429). */
export function busyPage(reply: FastifyReply, title: string, status: 429 | 503): FastifyReply {
  const text =
    status === 429
      ? 'Von Ihrer Adresse laufen gerade zu viele Prüfungen gleichzeitig. Bitte warten Sie, bis sie beendet sind, und versuchen Sie es dann erneut.'
      : 'Gerade werden zu viele Prüfungen gleichzeitig ausgeführt. Bitte versuchen Sie es in einigen Sekunden erneut.';
  return reply
    .code(status)
    .header('retry-after', '5')
    .send(page(title, `<p class="bad">✘ ${text}</p>`));
}

export function uploadForm(label = 'PDF prüfen'): string {
  return (
    '<form method="post" action="/public/verify_signature.php" enctype="multipart/form-data">' +
    '<p>Wählen Sie das PDF eines Berichts: hier wird geprüft, ob es von diesem Dienst versiegelt und seitdem unverändert ist. Die Datei wird nur geprüft, nicht gespeichert.</p>' +
    '<label for="file">PDF-Datei</label><br><input id="file" type="file" name="file" accept="application/pdf,.pdf" required> ' +
    `<button type="submit">${escapeHtml(label)}</button></form>`
  );
}

export function verdictHtml(verdict: CheckVerdict, timeZone: string): string {
  const when = (date: Date) => escapeHtml(localTime(date, timeZone, { seconds: true }));
  switch (verdict.verdict) {
    case 'not_pdf':
      return '<p class="bad" id="verdict" data-verdict="not_pdf">✘ Keine PDF-Datei: die gewählte Datei ist kein PDF.</p>';
    case 'too_costly':
      return (
        '<p class="bad" id="verdict" data-verdict="too_costly">✘ Nicht geprüft: diese Datei zu prüfen bräuchte mehr Rechenzeit oder Speicher, als eine Prüfung hier haben darf. ' +
        'Bitte später erneut versuchen.</p>'
      );
    case 'not_ours':
      return (
        '<p class="bad" id="verdict" data-verdict="not_ours">✘ Nicht von diesem Dienst: dieses PDF trägt kein Siegel dieses Dienstes.</p>' +
        (verdict.signer
          ? `<p>Es ist von „${escapeHtml(verdict.signer)}“ signiert, nicht mit dem Zertifikat dieses Dienstes.</p>`
          : '<p>Es ist nicht elektronisch signiert.</p>')
      );
    case 'altered': {
      const why = {
        content_changed: 'Sein Inhalt wurde nach dem Versiegeln geändert: das Siegel passt nicht mehr zu den Bytes der Datei.',
        signature_broken: 'Das Siegel selbst wurde beschädigt oder entfernt.',
        appended: 'Nach dem Versiegeln wurden Änderungen an die Datei angehängt.',
      }[verdict.why];
      return `<p class="bad" id="verdict" data-verdict="altered">✘ Verändert: dieses PDF ist ein Bericht dieses Dienstes${verdict.report ? ` (${escapeHtml(verdict.report.ref)}${verdict.report.version > 1 ? `, Version ${verdict.report.version}` : ''})` : ''}, wurde aber nach dem Versiegeln verändert.</p><p>${why} Maßgeblich ist das Original.</p>`;
    }
    case 'unaltered': {
      const rows = [
        verdict.report
          ? `<dt>Bericht</dt><dd>${escapeHtml(verdict.report.ref)}</dd><dt>Version</dt><dd>${verdict.report.version}</dd>`
          : '',
        verdict.report
          ? `<dt>Unterschrieben von</dt><dd>${verdict.report.signers.length > 0 ? verdict.report.signers.map(escapeHtml).join(', ') : '–'}</dd>`
          : '',
        `<dt>Versiegelt von</dt><dd>${escapeHtml(verdict.signer)}</dd>`,
        verdict.sealedAt ? `<dt>Versiegelt am</dt><dd>${when(verdict.sealedAt)}</dd>` : '',
        verdict.timestamp
          ? `<dt>Zeitstempel</dt><dd>${when(verdict.timestamp.at)}${verdict.timestamp.authority ? ` (${escapeHtml(verdict.timestamp.authority)})` : ''}</dd>`
          : '',
      ].join('');
      return `<p class="ok" id="verdict" data-verdict="unaltered">✔ Unverändert: dieses PDF wurde von diesem Dienst versiegelt und seitdem nicht verändert.</p><dl>${rows}</dl>`;
    }
  }
}

export function page(title: string, body: string): string {
  return (
    `<!doctype html><html lang="de"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>` +
    '<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;line-height:1.5}.ok{color:#186a3b;font-weight:bold}.bad{color:#a31515;font-weight:bold}dt{font-weight:bold;margin-top:.5rem}dd{margin:0;overflow-wrap:anywhere}form{margin-top:1.5rem}label{font-weight:bold}input[type=file]{min-height:44px;margin:.5rem 0;max-width:100%;font-size:1rem}button{min-height:44px;padding:0 1rem;font-size:1rem}</style>' +
    `</head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`
  );
}

/** The check of one signature by its code: the verdict, the report, the signer, the times and the strokes. */
export function signatureCheckHtml(result: PublicCheck, timeZone: string): string {
  const status = result.verified
    ? `<p class="ok">✔ Gültig: ${result.covers_visit ? 'was unterschrieben wurde, ist unverändert' : 'die unterschriebenen Seiten sind unverändert'}.</p>`
    : `<p class="bad">✘ Nicht gültig: ${escapeHtml(result.message)}.</p>`;
  // The phone's time and the server's, when they are more than a minute apart; else one time, as before.
  const device = deviceTimeShown(result.device_time);
  const server = (seconds: boolean) =>
    result.signed_at === null ? '' : localTime(new Date(result.signed_at * 1000), timeZone, { seconds });
  const times = device
    ? `<dt>Unterschrieben (Gerät)</dt><dd>${escapeHtml(`${device.time} (${device.zone})`)}${device.mark ? ` <span class="bad">– ${escapeHtml(device.mark)}</span>` : ''}</dd>` +
      `<dt>Empfangen (Server)</dt><dd>${escapeHtml(server(true))}</dd>`
    : `<dt>Unterschrieben</dt><dd>${escapeHtml(server(false))}</dd>`;
  // What the sealed metadata says of the recorded strokes (its file is checked with the rest).
  const words = result.strokes ? strokesInWords(result.strokes) : undefined;
  const strokes = words
    ? `<dt>Strichaufzeichnung</dt><dd>${escapeHtml(words.counts)}</dd><dt>Dauer des Unterschreibens</dt><dd>${escapeHtml(words.duration)}</dd>`
    : result.strokes === null
      ? '<dt>Strichaufzeichnung</dt><dd>keine</dd>'
      : '';
  // What the signature covers, and (counts only) what of the visit changed since and it does not cover.
  const covers =
    result.covers_visit === undefined
      ? ''
      : `<dt>Umfang</dt><dd>${result.covers_visit ? 'die Seiten des Berichts, die Arbeiten, die Zeiten vor Ort und das Material, wie sie bei der Unterschrift angezeigt wurden' : 'die Seiten des Berichts'}</dd>` +
        (result.verified && result.not_covered
          ? `<dt>Nicht gedeckt</dt><dd class="bad">seit der Unterschrift ${escapeHtml(result.not_covered)}</dd>`
          : '');
  return `${status}<dl><dt>Bericht</dt><dd>${escapeHtml(result.report_ref)}</dd><dt>Unterzeichner</dt><dd>${escapeHtml(result.signer_name)}</dd>${times}${strokes}${covers}</dl>`;
}
