/**
 * The public pages of a report's proof, reachable without login: the check behind a signature's
 * QR code (/public/verify_signature.php?code=…), the check of an uploaded report PDF (a POST to the
 * same address: sealed by this instance and unaltered, altered, not ours, or no PDF) and the seal's
 * certificate (/api/seal_certificate.php).
 *
 * Public work is bounded apart from a technician's: bodies being received, files waiting for and
 * held by a check worker, and checks per client address each have a cap, and every slot is freed
 * however a request ends (answered, refused, timed out, or its client gone).
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { CheckBusy } from '../../adapters/pdf-check-pool.js';
import { AppError } from '../../errors.js';
import { SETTINGS } from '../../settings.js';
import { addressKey, createKeyedCounter, createLimiter } from '../common/limiter.js';
import { SHOWN_APART_SECONDS } from '../signatures/device-time.js';
import type { SignatureService } from '../signatures/signatures.service.js';
import { CHECK_WORKERS, MAX_CHECK_BYTES } from './pdf-check.js';
import type { PdfSeal } from './pdf-seal.js';
import { busyPage, page, publicPageHeaders, signatureCheckHtml, uploadForm, verdictHtml } from './public-pages.js';

/** The public pages' refusal when the service has too much public work: 503 (all clients) or 429 (this address). */
class PublicBusy extends Error {
  constructor(readonly status: 429 | 503) {
    super(status === 429 ? 'too many public checks from this address' : 'too many public checks');
  }
}

/** The client of a public check closed its connection: nothing is answered. */
class ClientGone extends Error {}

/** An upload to the public check sent nothing for the idle time. */
class UploadIdle extends Error {}

/** An upload to the public check took longer than its time to arrive in all. */
class UploadTooSlow extends Error {}

/**
 * An abort signal for the request: aborted when its client closes the connection before the
 * answer was sent (while it waits for a slot, while its body arrives, while it is checked).
 */
function clientGone(request: FastifyRequest, reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const gone = () => {
    if (!reply.raw.writableFinished) controller.abort(new ClientGone('the client closed the connection'));
  };
  // A connection closed before the handler ran has emitted its 'close' already.
  if (request.raw.socket?.destroyed || reply.raw.destroyed) gone();
  else reply.raw.once('close', gone);
  return controller.signal;
}

/** Public uploads whose body is being received at once, per process (each up to MAX_CHECK_BYTES in memory); beyond, 503. */
export const CHECK_RECEIVING = 8;
/** Uploaded PDFs waiting for a check worker, per process; beyond, 503. */
export const CHECK_WAITING = 8;
/** Uploads of one client address in flight (received, waiting or checked) at once; beyond, 429. */
export const CHECK_UPLOADS_PER_ADDRESS = 4;
/** Checks of a signature's code (the QR code's link) of one client address in flight at once; beyond, 429. */
export const CODE_CHECKS_PER_ADDRESS = 2;

/** What the public checks of an app hold now, by its PDF seal (the app's `pdfSeal`): for tests and logs. */
const publicLoads = new WeakMap<PdfSeal, () => PublicCheckLoad>();
export interface PublicCheckLoad {
  receiving: { running: number; waiting: number };
  checks: { running: number; waiting: number };
  uploadAddresses: number;
  codeCheckAddresses: number;
  codeChecks: { running: number; waiting: number };
  filesHashed: number;
}
export function publicCheckLoad(pdfSeal: PdfSeal): PublicCheckLoad | undefined {
  return publicLoads.get(pdfSeal)?.();
}

export async function publicCheckRoutes(
  app: FastifyInstance,
  deps: { signatures: SignatureService; pdfSeal: PdfSeal; timeZone: string; uploadIdleMs: number },
): Promise<void> {
  const { signatures } = deps;
  // The public check of an uploaded PDF has pools of its own, apart from a technician's work: the
  // bodies being received (memory), and the files being read in worker threads (CPU).
  const receiving = createLimiter(CHECK_RECEIVING, 0, () => new PublicBusy(503));
  const checks = createLimiter(CHECK_WORKERS, CHECK_WAITING, () => new PublicBusy(503));
  const uploadsByAddress = createKeyedCounter(CHECK_UPLOADS_PER_ADDRESS);
  const codeChecksByAddress = createKeyedCounter(CODE_CHECKS_PER_ADDRESS);
  publicLoads.set(deps.pdfSeal, () => {
    const load = signatures.load();
    return {
      receiving: receiving.load(),
      checks: checks.load(),
      uploadAddresses: uploadsByAddress.keys(),
      codeCheckAddresses: codeChecksByAddress.keys(),
      codeChecks: load.publicChecks,
      filesHashed: load.filesHashed,
    };
  });
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();

  typed.get(
    '/public/verify_signature.php',
    {
      schema: {
        tags: ['signatures'],
        summary: 'Public check of a signature (the QR code on the signature page)',
        description:
          'No token needed: the unguessable `code` of one signature. An HTML page with the report ref, the signer, the time and the verification result, and nothing else, ' +
          "taken from the sealed metadata. When the phone sent the moment of signing and it differs from the server's time of receipt by more than " +
          `${SHOWN_APART_SECONDS} s, two rows: "Unterschrieben (Gerät)" (the phone's time in its zone, or at its offset) and "Empfangen (Server)", ` +
          'with "unplausibel: …" beside an implausible device time; else one row "Unterschrieben". With a stroke record, "Strichaufzeichnung" (strokes, samples and the pointer types) ' +
          'and "Dauer des Unterschreibens" (first touch to last lift); without one, "Strichaufzeichnung: keine". Unknown code: 404 page. Without a code: the form to check a report PDF (POST). ' +
          `Public checks have a pool of their own, apart from a technician's signing and checking: at most ${CODE_CHECKS_PER_ADDRESS} checks of one client address (an IPv6 client counted by its /64) at once (429 page beyond, Retry-After: 5), ` +
          "a few at once per process beyond which a short queue waits (503 page beyond, Retry-After: 5). A check remembers the SHA-256 of each file it read by the file's identity " +
          '(device, inode, size, modification and change time) and hashes again whatever changed, in this process or elsewhere.',
        querystring: Type.Object({ code: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) }),
        produces: ['text/html'],
      },
      config: { auth: 'public' },
    },
    async (request, reply) => {
      publicPageHeaders(reply);
      // Without a code: the form to check a PDF file (a check worker is started meanwhile).
      if (request.query.code === undefined) {
        deps.pdfSeal.warmCheck();
        return reply.send(page('Prüfung eines Berichts', uploadForm()));
      }
      if (!/^[A-Za-z0-9_-]{16,64}$/.test(request.query.code))
        return reply.code(404).send(page('Unterschrift nicht gefunden', '<p>Zu diesem Prüfcode gibt es keine Unterschrift.</p>'));
      const release = codeChecksByAddress.acquire(addressKey(request.ip));
      if (!release) return busyPage(reply, 'Prüfung einer Unterschrift', 429);
      let result;
      try {
        result = await signatures.verifyByCode(request.query.code, clientGone(request, reply));
      } catch (error) {
        if (error instanceof ClientGone)
          return reply.code(400).send(page('Prüfung einer Unterschrift', '<p class="bad">✘ Die Verbindung wurde getrennt.</p>'));
        if (error instanceof AppError && error.code === 'SIGNATURE_BUSY') return busyPage(reply, 'Prüfung einer Unterschrift', 503);
        throw error;
      } finally {
        release();
      }
      if (!result)
        return reply.code(404).send(page('Unterschrift nicht gefunden', '<p>Zu diesem Prüfcode gibt es keine Unterschrift.</p>'));
      return reply.send(page('Prüfung einer Unterschrift', signatureCheckHtml(result, deps.timeZone)));
    },
  );

  typed.post(
    '/public/verify_signature.php',
    {
      schema: {
        tags: ['signatures'],
        summary: 'Public check of a report PDF (uploaded)',
        description:
          'No token needed. multipart/form-data with a PDF in the field `file` (at most ' +
          `${MAX_CHECK_BYTES / (1024 * 1024)} MB` +
          '; read in memory and never stored). ' +
          'An HTML page that says, in words, which of four it is: a report sealed by this service and unaltered (with the report ref, version, the customers who signed, ' +
          'when it was sealed and, when present, the trusted time of its time stamp); a report of this service altered after sealing (its content changed, its seal damaged, ' +
          'or changes appended after the seal); a PDF this service did not seal (naming who else signed it, if anyone); or a file that is no PDF. ' +
          'Answers 200 for each of the four; 400 without a file, 413 beyond the size limit (each as a page saying so). ' +
          `The file is read by a worker thread within PDF_CHECK_BUDGET_MS (default ${SETTINGS.PDF_CHECK_BUDGET_MS.default} ms) of its arrival, waiting for a worker included, and a memory limit; beyond either the worker is stopped and the answer is 422, a page saying the check was too costly (\`data-verdict="too_costly"\`); ` +
          'a file still waiting for a worker when half of that time is spent, or finding one free with less than half of it left, is refused as one too many (503); a worker is never stopped for time a file spent waiting. ' +
          `An upload that sends nothing for UPLOAD_IDLE_SECONDS (default ${SETTINGS.UPLOAD_IDLE_SECONDS.default}), or whose body has not arrived in all within PDF_CHECK_RECEIVE_SECONDS (default ${SETTINGS.PDF_CHECK_RECEIVE_SECONDS.default}), is 408 (a page; the connection is closed); ` +
          'once the file part has arrived the rest of the body is not read (the answer then closes the connection). ' +
          `At most ${CHECK_UPLOADS_PER_ADDRESS} uploads of one client address (an IPv6 client counted by its /64, an IPv4-mapped one as its IPv4 address) at once (429 page beyond), ` +
          `at most ${CHECK_RECEIVING} bodies received at once per process and ${CHECK_WAITING} files waiting for a worker (503 page beyond, the connection closed); each answer with Retry-After: 5. ` +
          "A body being received holds no worker: a slow upload delays nobody else's check.",
        consumes: ['multipart/form-data'],
        produces: ['text/html'],
      },
      config: { auth: 'public' },
    },
    async (request, reply) => {
      publicPageHeaders(reply);
      const title = 'Prüfung eines Berichts';
      const release = uploadsByAddress.acquire(addressKey(request.ip));
      // The body is not read: the connection cannot carry another request.
      if (!release) return busyPage(reply.header('connection', 'close'), title, 429);
      const signal = clientGone(request, reply);
      // A worker loads its code while the body arrives, so the check's budget is not spent on that.
      deps.pdfSeal.warmCheck();
      try {
        // The body first (without holding a check worker), then a worker for the file.
        const received = await receiving(() => receiveUpload(request, signal), signal);
        if ('status' in received) {
          if (received.close) reply.header('connection', 'close');
          return reply.code(received.status).send(page(title, `<p class="bad">✘ ${received.message}</p>${uploadForm()}`));
        }
        // The file is here but the body is not over (more parts, or bytes after its end): not read, the connection closed with the answer.
        if (received.close) reply.header('connection', 'close');
        // Answered within the budget from the file's arrival. A file that waits for a worker
        // longer than half of it, or finds one free with less than half left, is one too many
        // (503); a worker is never stopped for time a file spent waiting.
        const arrived = Date.now();
        const budget = deps.pdfSeal.checkBudgetMs;
        const verdict = await checks(
          () => deps.pdfSeal.check(received.bytes, budget, arrived),
          AbortSignal.any([signal, AbortSignal.timeout(Math.ceil(budget / 2))]),
        ).catch((error: unknown) => {
          if (error instanceof DOMException && error.name === 'TimeoutError') throw new PublicBusy(503);
          if (error instanceof CheckBusy) throw new PublicBusy(503);
          throw error;
        });
        if (verdict.verdict === 'too_costly') {
          return reply.code(422).send(page(title, `${verdictHtml(verdict, deps.timeZone)}${uploadForm('Andere Datei prüfen')}`));
        }
        return reply.send(page(title, `${verdictHtml(verdict, deps.timeZone)}${uploadForm('Weitere Datei prüfen')}`));
      } catch (error) {
        // Nobody is left to read an answer; the connection is gone.
        if (error instanceof ClientGone) return reply.code(400).send(page(title, '<p class="bad">✘ Die Verbindung wurde getrennt.</p>'));
        if (error instanceof PublicBusy) {
          // The body is not read: the connection cannot carry another request.
          reply.header('connection', 'close');
          return busyPage(reply, title, error.status);
        }
        throw error;
      } finally {
        release();
      }
    },
  );

  type Received = { bytes: Buffer; close: boolean } | { status: 400 | 408 | 413; message: string; close?: boolean };

  /**
   * Reads the uploaded PDF into memory, within MAX_CHECK_BYTES. A body that sends nothing for the
   * idle time (UPLOAD_IDLE_SECONDS) is 408, with the connection closed; a client that hangs up
   * ends it at once (ClientGone), whatever the multipart parser does with the cut-off body.
   */
  async function receiveUpload(request: FastifyRequest, signal: AbortSignal): Promise<Received> {
    const tooLarge = { status: 413, message: `Die Datei ist zu groß: höchstens ${MAX_CHECK_BYTES / (1024 * 1024)} MB.` } as const;
    if (!request.isMultipart()) return { status: 400, message: 'Bitte eine PDF-Datei wählen.' };
    signal.throwIfAborted();
    let stop: (error: Error) => void = () => undefined;
    const stopped = new Promise<never>((_resolve, reject) => (stop = reject));
    const onAbort = () => stop(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    const idle = setTimeout(() => stop(new UploadIdle()), deps.uploadIdleMs);
    // However steadily it trickles, a body has this long to arrive in all.
    const whole = setTimeout(() => stop(new UploadTooSlow()), deps.pdfSeal.checkReceiveMs);
    const refresh = () => idle.refresh();
    const read = (async (): Promise<Received> => {
      let upload: Buffer | undefined;
      const parts = request.parts({ limits: { fileSize: MAX_CHECK_BYTES + 1, files: 1 } })[Symbol.asyncIterator]();
      const first = parts.next(); // starts the parser, which reads the request from here on
      request.raw.on('data', refresh);
      // Parts up to the file; once it is here, the rest of the body (other parts, anything after the
      // last boundary) is not read: the answer closes the connection when the body is not complete.
      for (let step = await first; !step.done; step = await parts.next()) {
        const part = step.value;
        if (part.type !== 'file') continue;
        if (part.fieldname !== 'file') {
          part.file.resume();
          continue;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of part.file as AsyncIterable<Buffer>) {
          size += chunk.length;
          if (size > MAX_CHECK_BYTES) break;
          chunks.push(chunk);
        }
        if (part.file.truncated || size > MAX_CHECK_BYTES) return { ...tooLarge, close: true };
        upload = Buffer.concat(chunks, size);
        break;
      }
      if (!upload || upload.length === 0) return { status: 400, message: 'Bitte eine PDF-Datei wählen.' };
      return { bytes: upload, close: !request.raw.complete };
    })();
    read.catch(() => undefined); // settled or not, the race below decides
    try {
      return await Promise.race([read, stopped]);
    } catch (error) {
      if (error instanceof ClientGone) throw error;
      if (error instanceof UploadTooSlow) {
        return {
          status: 408,
          message: `Die Übertragung hat zu lange gedauert: mehr als ${Math.round(deps.pdfSeal.checkReceiveMs / 1000)} Sekunden. Bitte erneut wählen.`,
          close: true,
        };
      }
      if (error instanceof UploadIdle)
        return {
          status: 408,
          message: `Die Übertragung ist abgebrochen: ${Math.round(deps.uploadIdleMs / 1000)} Sekunden lang kamen keine Daten an. Bitte erneut wählen.`,
          close: true,
        };
      if ((error as { statusCode?: number }).statusCode === 413) return { ...tooLarge, close: true };
      return { status: 400, message: 'Die Datei kam nicht vollständig an; bitte erneut wählen.', close: true };
    } finally {
      clearTimeout(idle);
      clearTimeout(whole);
      signal.removeEventListener('abort', onAbort);
      request.raw.off('data', refresh);
    }
  }

  typed.get(
    '/api/seal_certificate.php',
    {
      schema: {
        tags: ['signatures'],
        summary: "The certificate of the service's PDF seal",
        description:
          'No token needed. The X.509 certificate (PEM) every final report PDF is sealed with, for checking without this service, e.g. `openssl cms -verify -CAfile` it.',
        produces: ['application/x-pem-file'],
      },
      config: { auth: 'public' },
    },
    async (_request, reply) =>
      reply
        .header('content-type', 'application/x-pem-file; charset=utf-8')
        .header('content-disposition', 'attachment; filename="berichtssiegel.pem"')
        .send(deps.pdfSeal.certificatePem()),
  );
}
