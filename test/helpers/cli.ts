/**
 * The command line run in-process, as the tests use it: main(argv, env) with its output captured,
 * and the DATABASE_URL of a test database.
 */
import { main } from '../../src/cli.js';
import type { Config, DatabaseConfig } from '../../src/config.js';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs main() with stdout and stderr captured. Only strings are captured (what the CLI writes);
 * anything else, such as the test runner's own binary reports, goes through unchanged.
 */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv): Promise<RunResult> {
  const out: string[] = [];
  const err: string[] = [];
  const originalOut = process.stdout.write;
  const originalErr = process.stderr.write;
  const capture = (stream: NodeJS.WriteStream, original: typeof process.stdout.write, into: string[]) =>
    function write(this: unknown, chunk: unknown, ...rest: unknown[]): boolean {
      if (typeof chunk === 'string') {
        into.push(chunk);
        const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
        done?.();
        return true;
      }
      return (original as (...args: unknown[]) => boolean).call(stream, chunk, ...rest);
    } as typeof process.stdout.write;
  process.stdout.write = capture(process.stdout, originalOut, out);
  process.stderr.write = capture(process.stderr, originalErr, err);
  try {
    const code = await main(argv, env);
    return { code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    process.stdout.write = originalOut;
    process.stderr.write = originalErr;
  }
}

/** A DATABASE_URL for a test database. */
export function databaseUrl(db: DatabaseConfig): string {
  if (db.dialect === 'sqlite') return `sqlite:${db.file}`;
  const auth = `${encodeURIComponent(db.user)}${db.password ? `:${encodeURIComponent(db.password)}` : ''}`;
  return `${db.dialect}://${auth}@${db.host}:${db.port}/${encodeURIComponent(db.database)}`;
}

/** The environment that points the command line at the same database and folders as `config`. */
export function cliEnv(config: Config): NodeJS.ProcessEnv {
  return {
    DATABASE_URL: databaseUrl(config.database),
    DATA_ROOT: config.dataRoot,
    STATE_DIR: config.stateDir,
    SIGNING_KEY_FILE: config.signingKeyFile,
    INSTANCE_UNIQUE_ID: config.instanceUniqueId,
    LOG_LEVEL: 'silent',
  };
}
