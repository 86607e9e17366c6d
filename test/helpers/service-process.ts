/**
 * The real service in its own process (`fieldreport serve`, as an operator runs it), for tests of
 * what happens around it: killed with SIGKILL, started again on the same folders, its log read.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ServiceProcess {
  child: ChildProcess;
  /** http://host:port (https:// with TLS_CERT and TLS_KEY) once it listens. */
  base: string;
  /** Everything it printed so far. */
  output(): string;
  /** Waits until its output matches `pattern` (or fails after `ms`). */
  waitFor(pattern: RegExp, ms?: number): Promise<RegExpExecArray>;
  /** SIGKILL, and waits for the process to be gone. */
  kill(): Promise<void>;
  /** SIGTERM, and waits for a clean end. */
  stop(): Promise<void>;
}

export interface ServiceOptions {
  env: NodeJS.ProcessEnv;
  args?: string[];
  /** Run as this user and group (root only). */
  uid?: number;
  gid?: number;
}

export async function startService(options: ServiceOptions): Promise<ServiceProcess> {
  const args = options.args ?? ['serve'];
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `import { main } from './src/cli.ts'; process.exitCode = await main(${JSON.stringify(args)});`,
    ],
    {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', CLEANUP_AT: 'off', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(options.uid !== undefined ? { uid: options.uid, gid: options.gid } : {}),
    },
  );
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const waitFor = async (pattern: RegExp, ms = 60_000): Promise<RegExpExecArray> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const m = pattern.exec(out);
      if (m) return m;
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`service ended (${child.exitCode ?? child.signalCode}) before ${pattern}:\n${out.slice(-4000)}`);
      if (Date.now() > deadline) throw new Error(`no ${pattern} within ${ms} ms:\n${out.slice(-4000)}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  const listening = await waitFor(/"msg":"Server listening at (https?:\/\/127\.0\.0\.1:\d+)"/);
  return {
    child,
    base: listening[1]!,
    output: () => out,
    waitFor,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Logs in over HTTP; the token. */
export async function login(base: string, loginName: string, password = 'demo'): Promise<string> {
  const res = await fetch(`${base}/api/auth.php`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ login: loginName, password }),
  });
  if (res.status !== 200) throw new Error(`login ${loginName}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { token: string }).token;
}
