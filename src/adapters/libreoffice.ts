/**
 * LibreOffice headless as a converter (ODT → PDF), the way Dolibarr converts ODT documents.
 *
 * - Every conversion gets a fresh user profile (`-env:UserInstallation`): soffice hands a
 *   conversion to an instance already running on the same profile, so parallel conversions on one
 *   profile collide on its lock. The profile is removed afterwards. The price: a fresh profile
 *   costs 1–3 s of first-start work on each conversion.
 * - soffice is a launcher (oosplash) that starts soffice.bin, so a stuck conversion is stopped by
 *   killing the whole process group: the child is spawned detached, as a group leader, under
 *   coreutils' `timeout` as a backstop that outlives this process (a killed service leaves no
 *   LibreOffice behind for longer than the time limit). Its working folder in TMPDIR carries the
 *   run id (runs.ts), so the next start removes what a killed run left and stops its processes.
 * - No shell: arguments are passed as an array; the input is an absolute path, so a name
 *   starting with `-` cannot be read as an option.
 * - The child gets a small environment (search path, locale, a private HOME), not ours: ours holds
 *   the database URL.
 * - soffice exits 0 even when it could not load the input, so success means a PDF that exists
 *   and starts with `%PDF`. It is written beside the target under a temporary name and renamed.
 * - Kept running (`resident`, the default where LibreOffice's Python with its UNO bridge is there:
 *   Debian's python3-uno, or the `python` of an /opt install): one soffice started once, on a
 *   profile of its own, listening on a named pipe, and a small Python client (libreoffice-bridge.ts)
 *   that loads each document hidden and stores it as PDF: a conversion then takes a fraction of a
 *   second instead of a start of LibreOffice (several seconds). Conversions through it run one at
 *   a time. It starts with the first conversion (or `warmUp()`), is stopped by `close()`, and is
 *   started again after it died or a conversion timed out (its process groups killed). Where it
 *   cannot start, each conversion starts its own soffice as below.
 * - The PDF is PDF/A-1b (PDF_EXPORT_FILTER), so its pages can go into the report PDF, which is
 *   PDF/A-1b too: fonts embedded, no transparency. That export may drop the alpha channel of an
 *   image (a transparent background prints black), so an ODF document whose pictures have one is
 *   converted from a copy with those pictures put onto white (pdfa.ts, flattenOdtPictures).
 */
import { spawn } from 'node:child_process';
import { constants, existsSync } from 'node:fs';
import { access, copyFile, mkdir, mkdtemp, open, readdir, realpath, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { tempDirPrefix } from './runs.js';
import { replaceAtomically } from './file-store.js';
import { flattenOdtPictures } from './pdfa.js';
import { BRIDGE_PY } from './libreoffice-bridge.js';

export interface LibreOfficeOptions {
  /**
   * The soffice executable: a path, or a name looked up in the search path. When given, nothing
   * else is tried. @default `soffice` from PATH, then /usr/bin/soffice,
   * /usr/lib/libreoffice/program/soffice and /opt/libreoffice* /program/soffice
   */
  binary?: string;
  /** Time one conversion may take before its process group is killed. @default 60000 */
  timeoutMs?: number;
  /** Conversions running at once (per created instance); more wait in a queue. @default 2 */
  concurrency?: number;
  /** Keep one LibreOffice running for all conversions (above). @default true */
  resident?: boolean;
  logger?: { warn(obj: unknown, msg?: string): void };
}

export interface LibreOffice {
  /** Whether soffice was found (checked once, then cached). */
  available(): Promise<boolean>;
  /** Converts `input` to `<outDir>/<input name without extension>.pdf` and returns that path. */
  convertToPdf(input: string, outDir: string): Promise<string>;
  /** Starts the LibreOffice kept running now, so the first conversion does not wait for it (no-op when not resident). */
  warmUp(): Promise<void>;
  /** Stops the LibreOffice kept running, if any. */
  close(): Promise<void>;
}

/** A conversion that failed: soffice missing, timed out, failed, or produced no PDF. */
export class LibreOfficeError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LibreOfficeError';
  }
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_CONCURRENCY = 2;
/** Bytes of soffice's output kept for an error message. */
const OUTPUT_TAIL_BYTES = 2000;
/**
 * Writer's PDF export as PDF/A-1b (SelectPdfVersion 1), in the JSON form of filter options that
 * LibreOffice reads since 7.4.
 */
export const PDF_EXPORT_FILTER = 'pdf:writer_pdf_Export:{"SelectPdfVersion":{"type":"long","value":"1"}}';

export function createLibreOffice(options: LibreOfficeOptions = {}): LibreOffice {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? DEFAULT_CONCURRENCY));
  // The OS search path, not configuration: where soffice lives, and what its launcher script needs.
  const searchPath = process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin';
  const locale = process.env.LC_ALL || process.env.LANG || 'C.UTF-8';

  let located: Promise<string | undefined> | undefined;
  function locate(): Promise<string | undefined> {
    located ??= findSoffice(options.binary, searchPath).then((binary) => {
      if (!binary)
        options.logger?.warn(
          { binary: options.binary ?? 'soffice' },
          'LibreOffice (soffice) not found: ODT templates cannot be converted to PDF',
        );
      return binary;
    });
    return located;
  }

  let active = 0;
  const waiting: Array<() => void> = [];
  async function acquire(): Promise<void> {
    if (active < concurrency) {
      active += 1;
      return;
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  }
  function release(): void {
    const next = waiting.shift();
    if (next)
      next(); // the slot passes on; `active` stays the same
    else active -= 1;
  }

  async function convert(binary: string, input: string, outDir: string): Promise<string> {
    const source = path.resolve(input);
    const info = await stat(source).catch(() => undefined);
    if (!info?.isFile()) throw new LibreOfficeError(`Input file not found: ${source}`);
    const target = path.join(path.resolve(outDir), `${path.parse(source).name}.pdf`);
    await mkdir(path.dirname(target), { recursive: true });

    const work = await mkdtemp(tempDirPrefix('soffice'));
    try {
      const profile = path.join(work, 'profile');
      const out = path.join(work, 'out');
      await mkdir(out);
      // A copy under the same name (the PDF is named after it) when pictures had to be flattened.
      const flattened = path.join(work, 'in', path.basename(source));
      const input = (await flattenOdtPictures(source, flattened)) ? flattened : source;
      const args = [
        '--headless',
        '--norestore',
        '--nolockcheck',
        '--nodefault',
        '--nofirststartwizard',
        `-env:UserInstallation=${pathToFileURL(profile).href}`,
        '--convert-to',
        PDF_EXPORT_FILTER,
        '--outdir',
        out,
        input,
      ];
      const env = { PATH: searchPath, HOME: work, TMPDIR: work, LANG: locale, LC_ALL: locale, SAL_USE_VCLPLUGIN: 'svp' };
      const kept = await residentFor(binary);
      if (kept) {
        const produced = path.join(out, `${path.parse(input).name}.pdf`);
        const done = await kept.convert(input, produced, timeoutMs);
        if (done === 'converted' && (await startsWithPdfHeader(produced).catch(() => false))) {
          await replaceAtomically(target, (temp) => copyFile(produced, temp));
          return target;
        }
        if (done !== 'unavailable') {
          options.logger?.warn({ input: source, reason: done }, 'LibreOffice conversion failed');
          throw new LibreOfficeError(`LibreOffice produced no PDF for ${path.basename(source)}: ${done}`);
        }
        // The instance kept running died before it answered: this conversion starts its own.
      }
      const result = await run(binary, args, env, timeoutMs);
      if (result.timedOut) {
        options.logger?.warn({ input: source, timeoutMs }, 'LibreOffice conversion timed out; its process group was killed');
        throw new LibreOfficeError(`LibreOffice did not finish within ${timeoutMs} ms and was stopped${tail(result.output)}`);
      }
      const pdfs = (await readdir(out)).filter((name) => name.toLowerCase().endsWith('.pdf'));
      const produced = pdfs.length === 1 ? path.join(out, pdfs[0]!) : undefined;
      if (result.code !== 0 || !produced || !(await startsWithPdfHeader(produced))) {
        options.logger?.warn({ input: source, code: result.code, signal: result.signal }, 'LibreOffice conversion failed');
        const status = result.signal ? `signal ${result.signal}` : `exit code ${result.code}`;
        throw new LibreOfficeError(`LibreOffice produced no PDF for ${path.basename(source)} (${status})${tail(result.output)}`);
      }
      await replaceAtomically(target, (temp) => copyFile(produced, temp));
      return target;
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }

  const useResident = options.resident ?? true;
  let resident: Promise<Resident | undefined> | undefined;
  let closed = false;
  /** The LibreOffice kept running, started when first needed (again after it died); undefined where it cannot run. */
  function residentFor(binary: string): Promise<Resident | undefined> {
    if (!useResident || closed) return Promise.resolve(undefined);
    const current = resident;
    if (current) return current.then((r) => (r?.alive() ? r : restart(binary, current)));
    return restart(binary, undefined);
  }
  function restart(binary: string, previous: Promise<Resident | undefined> | undefined): Promise<Resident | undefined> {
    if (resident !== previous) return residentFor(binary);
    resident = startResident(binary, { searchPath, locale, logger: options.logger }).catch((error: unknown) => {
      options.logger?.warn({ err: error }, 'LibreOffice could not be kept running; each conversion starts its own');
      return undefined;
    });
    return resident;
  }

  return {
    async available() {
      return (await locate()) !== undefined;
    },
    async warmUp() {
      const binary = await locate();
      if (binary) await residentFor(binary);
    },
    async close() {
      closed = true;
      const kept = await resident;
      resident = undefined;
      kept?.stop();
    },
    async convertToPdf(input, outDir) {
      const binary = await locate();
      if (!binary) throw new LibreOfficeError('LibreOffice (soffice) is not installed or not found');
      await acquire();
      try {
        return await convert(binary, input, outDir);
      } finally {
        release();
      }
    },
  };
}

/** A LibreOffice kept running and its UNO bridge. */
interface Resident {
  alive(): boolean;
  /** 'converted', 'unavailable' (it died before answering), or LibreOffice's error. */
  convert(input: string, output: string, timeoutMs: number): Promise<'converted' | 'unavailable' | string>;
  stop(): void;
}

/** How long a LibreOffice kept running may take to start and answer its bridge. */
const RESIDENT_START_MS = 60_000;

/** The Python that can talk to LibreOffice (its `uno` module): the install's own, else the system's. */
async function unoPython(binary: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const program = path.dirname(await realpath(binary).catch(() => binary));
  for (const candidate of [path.join(program, 'python'), '/usr/bin/python3']) {
    if (!(await isExecutableFile(candidate))) continue;
    const probe = await run(candidate, ['-c', 'import uno'], env, 20_000).catch(() => undefined);
    if (probe?.code === 0) return candidate;
  }
  return undefined;
}

/** Starts soffice listening on a pipe, and the bridge that converts through it; resolves when the bridge is connected. */
async function startResident(
  binary: string,
  settings: { searchPath: string; locale: string; logger?: { warn(obj: unknown, msg?: string): void } },
): Promise<Resident> {
  const work = await mkdtemp(tempDirPrefix('soffice'));
  const env = {
    PATH: settings.searchPath,
    HOME: work,
    TMPDIR: work,
    LANG: settings.locale,
    LC_ALL: settings.locale,
    SAL_USE_VCLPLUGIN: 'svp',
  };
  const python = await unoPython(binary, env);
  if (!python) {
    await rm(work, { recursive: true, force: true });
    throw new LibreOfficeError("LibreOffice's Python with its UNO bridge was not found (Debian: python3-uno)");
  }
  const bridgeFile = path.join(work, 'bridge.py');
  await writeFile(bridgeFile, BRIDGE_PY);
  const pipe = `fieldreport-${process.pid}-${path.basename(work).slice(-6)}`;
  const office = spawn(
    binary,
    [
      '--headless',
      '--invisible',
      '--nologo',
      '--norestore',
      '--nolockcheck',
      '--nodefault',
      '--nofirststartwizard',
      `--accept=pipe,name=${pipe};urp;StarOffice.ComponentContext`,
      `-env:UserInstallation=${pathToFileURL(path.join(work, 'profile')).href}`,
    ],
    { detached: true, stdio: 'ignore', env },
  );
  const bridge = spawn(python, [bridgeFile, pipe, String(RESIDENT_START_MS / 1000)], {
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    env,
  });
  // Neither keeps this process alive: a service that ends without close() ends the bridge's stdin, and the bridge ends LibreOffice.
  office.unref();
  bridge.unref();
  for (const stream of [bridge.stdin, bridge.stdout, bridge.stderr]) (stream as unknown as { unref?: () => void }).unref?.();
  let dead = false;
  let stderr = '';
  let buffered = '';
  const answers: Array<(line: string | undefined) => void> = [];
  const stop = (): void => {
    if (!dead) {
      dead = true;
      killGroup(bridge.pid);
      killGroup(office.pid);
      for (const waiting of answers.splice(0)) waiting(undefined);
      // LibreOffice may still be writing into its profile as it dies: try again, and never let a leftover fail anything (recovery sweeps it).
      rm(work, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }).catch(() => undefined);
    }
  };
  office.on('error', stop);
  office.on('exit', stop);
  bridge.on('error', stop);
  bridge.on('exit', stop);
  bridge.stdin!.on('error', stop);
  bridge.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-OUTPUT_TAIL_BYTES)));
  bridge.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let newline = buffered.indexOf('\n');
    while (newline >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      answers.shift()?.(line);
      newline = buffered.indexOf('\n');
    }
  });
  /** The next line the bridge answers, or undefined when it died or `ms` passed (then it is stopped). */
  const next = (ms: number): Promise<string | undefined> =>
    new Promise((resolve) => {
      if (dead) return resolve(undefined);
      const timer = setTimeout(() => {
        stop();
      }, ms);
      answers.push((line) => {
        clearTimeout(timer);
        resolve(line);
      });
    });

  const ready = await next(RESIDENT_START_MS);
  if (ready === undefined || !ready.includes('"ready"')) {
    stop();
    throw new LibreOfficeError(`LibreOffice kept running did not start${tail(stderr)}`);
  }
  let queue: Promise<unknown> = Promise.resolve();
  return {
    alive: () => !dead,
    stop,
    convert(input, output, timeoutMs) {
      const job = queue.then(async () => {
        if (dead) return 'unavailable';
        bridge.stdin!.write(`${JSON.stringify({ input, output })}\n`);
        const started = Date.now();
        const line = await next(timeoutMs);
        if (line === undefined) {
          if (Date.now() - started >= timeoutMs) {
            settings.logger?.warn({ input, timeoutMs }, 'LibreOffice conversion timed out; the LibreOffice kept running was stopped');
            return `it did not finish within ${timeoutMs} ms and was stopped`;
          }
          return 'unavailable';
        }
        let answer: { ok?: boolean; error?: string; gone?: boolean };
        try {
          answer = JSON.parse(line);
        } catch {
          stop(); // out of step with its answers: start afresh next time
          return `an answer that is no JSON: ${line.slice(0, 200)}`;
        }
        if (answer.gone) {
          // LibreOffice died before its exit reached this process (a kill, a crash): start afresh.
          stop();
          return 'unavailable';
        }
        return answer.ok ? 'converted' : (answer.error ?? 'no answer');
      });
      queue = job.catch(() => undefined);
      return job;
    },
  };
}

interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** The last bytes of stderr (stdout when stderr said nothing). */
  output: string;
}

/**
 * coreutils' `timeout`, when the system has it: soffice runs under it, so its whole process group
 * is killed a little after our own time limit even when this process was killed (kill -9) and
 * its timer died with it. Without it the timer below is the only limit.
 */
const TIMEOUT_BINARY = ['/usr/bin/timeout', '/bin/timeout'].find((file) => existsSync(file));
/** How long after our own limit the backstop strikes. */
const BACKSTOP_MS = 5_000;

/** Runs `binary` as the leader of a new process group; on timeout the whole group is killed. */
function run(binary: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const [command, commandArgs] = TIMEOUT_BINARY
      ? [TIMEOUT_BINARY, ['--signal=KILL', `${Math.ceil((timeoutMs + BACKSTOP_MS) / 1000)}s`, binary, ...args]]
      : [binary, args];
    const child = spawn(command, commandArgs, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env });
    let stdout = '';
    let stderr = '';
    const keep = (sofar: string, chunk: Buffer) => (sofar + chunk.toString('utf8')).slice(-OUTPUT_TAIL_BYTES);
    child.stdout.on('data', (chunk: Buffer) => (stdout = keep(stdout, chunk)));
    child.stderr.on('data', (chunk: Buffer) => (stderr = keep(stderr, chunk)));

    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, timeoutMs);

    child.on('error', (error) => {
      clearTimeout(timer);
      reject(
        new LibreOfficeError(`LibreOffice could not be started: ${(error as NodeJS.ErrnoException).code ?? error.message}`, {
          cause: error,
        }),
      );
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, timedOut, output: stderr.trim() ? stderr : stdout });
    });
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // the group is gone already
  }
}

/** soffice's output for an error message: its last lines, without the harmless javaldx notice. */
function tail(output: string): string {
  const lines = output
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line && !line.includes('javaldx'));
  const text = lines.slice(-5).join(' | ').slice(-500);
  return text ? `: ${text}` : '';
}

async function startsWithPdfHeader(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const { bytesRead, buffer } = await handle.read(Buffer.alloc(5), 0, 5, 0);
    return bytesRead === 5 && buffer.toString('latin1') === '%PDF-';
  } finally {
    await handle.close();
  }
}

async function isExecutableFile(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

/** Where soffice is: the given binary only, or PATH and the usual install folders. */
async function findSoffice(binary: string | undefined, searchPath: string): Promise<string | undefined> {
  // Relative PATH entries would make the result depend on the working folder: skipped.
  const pathDirs = searchPath.split(path.delimiter).filter((dir) => path.isAbsolute(dir));
  let candidates: string[];
  if (binary !== undefined) {
    candidates = binary.includes('/') ? [path.resolve(binary)] : pathDirs.map((dir) => path.join(dir, binary));
  } else {
    const opt = await readdir('/opt').catch(() => [] as string[]);
    const optInstalls = opt
      .filter((name) => name.startsWith('libreoffice'))
      .sort((a, b) => b.localeCompare(a, 'en', { numeric: true })) // newest version first
      .map((name) => path.join('/opt', name, 'program', 'soffice'));
    candidates = [
      ...pathDirs.map((dir) => path.join(dir, 'soffice')),
      '/usr/bin/soffice',
      '/usr/lib/libreoffice/program/soffice',
      ...optInstalls,
    ];
  }
  for (const candidate of candidates) {
    if (await isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}
