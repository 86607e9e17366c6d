/**
 * glibc's allocator as a server of photos wants it (README, Memory), for a process about to start:
 * libvips decodes on threads of its own, and glibc would give each thread an arena that keeps what
 * photos used (MALLOC_ARENA_MAX: two arenas); and it raises the size from which a block is mapped
 * on its own to the largest block freed so far (up to 32 MB), after which a photo's pixels and the
 * uploads' buffers come from the arenas and stay with the process as fragments
 * (MALLOC_MMAP_THRESHOLD_: fixed at glibc's own starting value, 128 KiB). A value set in the
 * environment wins. Other allocators ignore both.
 */
export const SERVER_MALLOC_ENV = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' } as const;

/** SERVER_MALLOC_ENV with the values `env` sets itself. */
export function serverMallocEnv(env: NodeJS.ProcessEnv = process.env): Record<keyof typeof SERVER_MALLOC_ENV, string> {
  return {
    MALLOC_ARENA_MAX: env.MALLOC_ARENA_MAX ?? SERVER_MALLOC_ENV.MALLOC_ARENA_MAX,
    MALLOC_MMAP_THRESHOLD_: env.MALLOC_MMAP_THRESHOLD_ ?? SERVER_MALLOC_ENV.MALLOC_MMAP_THRESHOLD_,
  };
}
