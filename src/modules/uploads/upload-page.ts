/**
 * The page behind a QR upload link: made for a phone (camera button, several photos at once,
 * progress per photo, German text). It sends each photo to the same address, one at a time, as
 * the photo upload does (multipart, field `file`), with the phone's capture time (`taken_at_device`:
 * the file's time where the phone gives one, else the moment it was chosen); never a position (no
 * one switched that on here). Script and style carry a per-response nonce;
 * nothing else may run or load.
 */
import { localTime } from '../../dolibarr/time.js';
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const STYLE = `
body{font-family:system-ui,-apple-system,sans-serif;margin:0;padding:1rem;max-width:34rem;margin-inline:auto;line-height:1.45;color:#1b1f24}
h1{font-size:1.35rem;margin:.5rem 0}
.hint{color:#555;margin:.25rem 0 1rem}
.button{display:block;text-align:center;background:#1e5aa8;color:#fff;padding:1.1rem;border-radius:.75rem;font-size:1.15rem;font-weight:600;cursor:pointer}
.button:active{background:#174782}
input[type=file]{position:absolute;width:1px;height:1px;opacity:0}
ul{list-style:none;padding:0;margin:1rem 0}
li{padding:.6rem 0;border-bottom:1px solid #e3e6ea}
.name{display:block;overflow-wrap:anywhere}
progress{width:100%;height:.6rem}
.ok{color:#186a3b;font-weight:600}
.bad{color:#a31515;font-weight:600}
#summary{font-weight:600}
`;

const SCRIPT = `
(() => {
  const input = document.getElementById('photos');
  const list = document.getElementById('list');
  const summary = document.getElementById('summary');
  let done = 0, failed = 0, total = 0, queue = Promise.resolve();
  const pad = (n) => String(n).padStart(2, '0');
  // The phone's time as RFC 3339 with its offset (the service keeps it as the photo's capture time).
  function stamp(ms) {
    const offset = -new Date(ms).getTimezoneOffset();
    const local = new Date(ms + offset * 60000).toISOString().slice(0, 23);
    return local + (offset < 0 ? '-' : '+') + pad(Math.floor(Math.abs(offset) / 60)) + ':' + pad(Math.abs(offset) % 60);
  }
  function upload(file, row, taken) {
    return new Promise((resolve) => {
      const bar = row.querySelector('progress');
      const state = row.querySelector('.state');
      const xhr = new XMLHttpRequest();
      xhr.open('POST', location.href);
      xhr.upload.onprogress = (e) => { if (e.lengthComputable) bar.value = e.loaded / e.total; };
      xhr.onload = () => {
        let message = '';
        try { message = JSON.parse(xhr.responseText).error || ''; } catch (_) {}
        if (xhr.status === 201) { bar.value = 1; state.textContent = '✔ hochgeladen'; state.className = 'state ok'; done++; }
        else { state.textContent = '✘ ' + (message || 'Fehler ' + xhr.status); state.className = 'state bad'; failed++; }
        resolve();
      };
      xhr.onerror = () => { state.textContent = '✘ Keine Verbindung'; state.className = 'state bad'; failed++; resolve(); };
      const form = new FormData();
      form.append('taken_at_device', taken);
      form.append('file', file, file.name);
      xhr.send(form);
    }).then(() => {
      summary.textContent = done + ' von ' + total + ' Fotos hochgeladen' + (failed ? ', ' + failed + ' fehlgeschlagen' : '');
    });
  }
  input.addEventListener('change', () => {
    const now = Date.now();
    for (const file of Array.from(input.files || [])) {
      // Taken with the camera just now, or chosen from the gallery: the file's own time where the phone gives one.
      const taken = stamp(file.lastModified > 0 && file.lastModified <= now ? file.lastModified : now);
      total++;
      const row = document.createElement('li');
      const name = document.createElement('span');
      name.className = 'name';
      name.textContent = file.name;
      const bar = document.createElement('progress');
      bar.max = 1; bar.value = 0;
      const state = document.createElement('span');
      state.className = 'state';
      state.textContent = 'wartet …';
      row.append(name, bar, state);
      list.append(row);
      queue = queue.then(() => upload(file, row, taken));
    }
    input.value = '';
  });
})();
`;

function shell(nonce: string, title: string, body: string, script = false): string {
  return (
    `<!doctype html><html lang="de"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<meta name="robots" content="noindex"><title>${esc(title)}</title><style nonce="${nonce}">${STYLE}</style></head>` +
    `<body><main>${body}</main>${script ? `<script nonce="${nonce}">${SCRIPT}</script>` : ''}</body></html>`
  );
}

export function contentSecurityPolicy(nonce: string): string {
  return `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self' data: blob:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`;
}

/**
 * @param timeZone where the link's end is shown in local time, with its zone
 * @param intervention the link fills an intervention's folder (Dolibarr's "Serviceauftrag"), not an order's
 */
export function uploadPage(nonce: string, orderRef: string, expires: number, timeZone: string, intervention = false): string {
  const until = localTime(new Date(expires * 1000), timeZone);
  const [object, ofObject] = intervention ? ['zum Serviceauftrag', 'des Serviceauftrags'] : ['zum Auftrag', 'des Auftrags'];
  return shell(
    nonce,
    `Fotos zu ${orderRef}`,
    `<h1>Fotos ${object} ${esc(orderRef)}</h1>` +
      `<p class="hint">Die Fotos kommen direkt in die Unterlagen ${ofObject}. Dieser Link gilt bis ${esc(until)}. ` +
      `Mit jedem Foto wird die Uhrzeit des Telefons als Aufnahmezeit gesendet, kein Standort.</p>` +
      `<label class="button" for="photos">📷 Fotos aufnehmen oder auswählen</label>` +
      `<input id="photos" type="file" accept="image/jpeg,image/png,image/webp,image/heic,image/heif" multiple>` +
      `<ul id="list" aria-live="polite"></ul><p id="summary" role="status"></p>`,
    true,
  );
}

export function messagePage(nonce: string, title: string, text: string): string {
  return shell(nonce, title, `<h1>${esc(title)}</h1><p class="hint">${esc(text)}</p>`);
}
