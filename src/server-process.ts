/**
 * The process a server of photos wants (docs/operating.md, Memory), set before it starts, because the C
 * library and V8 read these settings only when a process starts:
 * - glibc's allocator: libvips decodes on threads of its own, and glibc would give each thread an
 *   arena that keeps what photos used (MALLOC_ARENA_MAX: two arenas); and it raises the size from
 *   which a block is mapped on its own to the largest block freed so far (up to 32 MB), after which
 *   a photo's pixels and the uploads' buffers come from the arenas and stay with the process as
 *   fragments (MALLOC_MMAP_THRESHOLD_: fixed at glibc's own starting value, 128 KiB). Other
 *   allocators ignore both.
 * - V8's young generation: Node 24 lets each of its two semi-spaces grow to 64 MB under the
 *   garbage of uploads and PDFs (Node 20: 16 MB), which on the outbox drain of `npm run bench`
 *   held the server's peak 50-75 MB higher; `--max-semi-space-size=8`, half Node 20's size,
 *   lowered the drain's start and peak by about 15 MB more (docs/operating.md, Memory).
 * A value set in the environment or in Node's options wins over each.
 *
 * `fieldreport serve` (bin/fieldreport.js) starts itself again in place with these settings
 * (restartWithServerSettings: process.execve, the same process id) when it was started without
 * them; the workers of `--workers` get them from the primary.
 */
import os from 'node:os';

export const SERVER_MALLOC_ENV = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' } as const;

/** Node's options for a server process, each left out where the process's own options set it. */
export const SERVER_NODE_OPTIONS = ['--max-semi-space-size=8'] as const;

/** Set in the environment of a process started again by restartWithServerSettings, so it is not started a third time. */
export const RESTARTED_ENV = 'FIELDREPORT_SERVER_SETTINGS';

/** SERVER_MALLOC_ENV with the values `env` sets itself. */
export function serverMallocEnv(env: NodeJS.ProcessEnv = process.env): Record<keyof typeof SERVER_MALLOC_ENV, string> {
  return {
    MALLOC_ARENA_MAX: env.MALLOC_ARENA_MAX ?? SERVER_MALLOC_ENV.MALLOC_ARENA_MAX,
    MALLOC_MMAP_THRESHOLD_: env.MALLOC_MMAP_THRESHOLD_ ?? SERVER_MALLOC_ENV.MALLOC_MMAP_THRESHOLD_,
  };
}

/** The option's name: `--max-semi-space-size` of `--max-semi-space-size=8`; V8 takes `_` for `-` too. */
const optionName = (arg: string) => arg.split('=')[0]!.replace(/_/g, '-');

/** SERVER_NODE_OPTIONS that neither `execArgv` nor `nodeOptions` (NODE_OPTIONS) sets, to put before `execArgv`. */
export function missingServerOptions(execArgv: readonly string[], nodeOptions = process.env.NODE_OPTIONS ?? ''): string[] {
  const given = new Set([...execArgv, ...nodeOptions.split(/\s+/).filter(Boolean)].map(optionName));
  return SERVER_NODE_OPTIONS.filter((option) => !given.has(optionName(option)));
}

/**
 * Starts this process again in place (process.execve: the same id, the same arguments) with the
 * settings above where it lacks one; returns only when it has them all, or cannot start again
 * (Windows, or a Node without process.execve, before 22.15), or was already started again.
 */
export function restartWithServerSettings(
  processLike: Pick<NodeJS.Process, 'env' | 'execArgv' | 'argv' | 'execPath' | 'platform'> & {
    execve?: (file: string, args: string[], env: NodeJS.ProcessEnv) => never;
  } = process,
): void {
  const { env, execArgv, argv, execPath, platform } = processLike;
  if (env[RESTARTED_ENV] || platform === 'win32' || typeof processLike.execve !== 'function') return;
  const options = missingServerOptions(execArgv, env.NODE_OPTIONS);
  const malloc = serverMallocEnv(env);
  const mallocMissing =
    os.platform() === 'linux' && (Object.keys(malloc) as Array<keyof typeof malloc>).some((name) => env[name] === undefined);
  if (options.length === 0 && !mallocMissing) return;
  processLike.execve(execPath, [execPath, ...options, ...execArgv, ...argv.slice(1)], { ...env, ...malloc, [RESTARTED_ENV]: '1' });
}
