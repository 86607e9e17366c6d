/**
 * The technician's app: Svelte 5, built by Vite into the service's output (dist/app), served by
 * fieldreport at /app/. vite-plugin-pwa writes the web manifest and a Workbox service worker that
 * precaches the app shell (HTML, JS, CSS, icons), so the app starts with no network. API answers
 * are never cached by the service worker: the app keeps its own (lib/store/cache.ts), per user.
 * `npm run dev:app` serves it with hot reload and sends /api and /public to a service on :8080.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig, type Plugin } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';

const root = fileURLToPath(new URL('.', import.meta.url));
const outDir = fileURLToPath(new URL('../dist/app', import.meta.url));

/**
 * Brotli and gzip copies (`x.js.br`, `x.js.gz`) of every text file of the build (and of the barcode
 * reader's WebAssembly, 1.1 MB: 360 kB with brotli, 450 kB with gzip), made once here
 * at the highest levels, so the service sends a third of the bytes without compressing per request
 * (src/plugins/web-app.ts chooses by Accept-Encoding).
 */
function precompress(): Plugin {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const full = path.join(dir, name);
      return statSync(full).isDirectory() ? walk(full) : [full];
    });
  return {
    name: 'fieldreport-precompress',
    apply: 'build',
    enforce: 'post',
    closeBundle: {
      order: 'post',
      sequential: true,
      handler() {
        for (const file of walk(outDir).filter((f) => /\.(js|css|html|svg|webmanifest|json|wasm)$/.test(f))) {
          const bytes = readFileSync(file);
          if (bytes.length < 1024) continue;
          writeFileSync(
            `${file}.br`,
            brotliCompressSync(bytes, {
              params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
            }),
          );
          writeFileSync(`${file}.gz`, gzipSync(bytes, { level: 9 }));
        }
      },
    },
  };
}
/**
 * The app's code in few files: boot.ts's imports in one chunk, and main.ts's (Svelte, the frame,
 * the login and orders screens, the outbox) in another with one style sheet; and what the report
 * screen shares with the other screens in a third. Without this the bundler cuts the first screen
 * into seven scripts and three style sheets, by which later screens share what; over HTTP/1.1 a
 * browser opens six connections to a server, and a seventh request waits for one of them (on a
 * slow line, the biggest script came last). The later screens import from these.
 */
const firstScreen = { boot: new Set<string>(), main: new Set<string>(), screens: new Set<string>() };
function firstScreenChunks(): Plugin {
  return {
    name: 'fieldreport-first-screen-chunks',
    apply: 'build',
    buildEnd() {
      const closure = (start: string, into: Set<string>, skip: Set<string> = new Set()) => {
        const queue = [start];
        while (queue.length > 0) {
          const id = queue.pop()!;
          if (into.has(id) || skip.has(id)) continue;
          into.add(id);
          queue.push(...(this.getModuleInfo(id)?.importedIds ?? []));
        }
      };
      const boot = path.join(root, 'src/boot.ts');
      closure(boot, firstScreen.boot);
      closure(path.join(root, 'src/main.ts'), firstScreen.main, firstScreen.boot);
      // boot.ts stays the entry chunk: it awaits main.ts, which imports from the boot chunk.
      firstScreen.boot.delete(boot);
      // What the report screen shares with other screens (the image and thumbnail components, the
      // reports' reads and changes): one chunk, not one for each piece (it waited for three).
      const first = new Set([...firstScreen.boot, ...firstScreen.main]);
      const report = path.join(root, 'src/screens/Report.svelte');
      const others = new Set<string>();
      for (const screen of this.getModuleInfo(path.join(root, 'src/lib/app/screens.ts'))?.dynamicallyImportedIds ?? []) {
        if (screen !== report) closure(screen, others, first);
      }
      closure(report, firstScreen.screens, first);
      for (const id of firstScreen.screens) if (id === report || !others.has(id)) firstScreen.screens.delete(id);
    },
  };
}

/**
 * The page asks for the app's main part (main.ts and what it imports, its styles) together with
 * the first script (boot.ts), which imports it only when it has run: a slow phone fetches
 * everything at once and opens its database meanwhile. Vite preloads static imports only.
 */
function preloadMain(): Plugin {
  return {
    name: 'fieldreport-preload-main',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(_html, { bundle, chunk: entry }) {
        if (!bundle || !entry) return;
        const main = Object.values(bundle).find((c) => c.type === 'chunk' && c.facadeModuleId?.endsWith('/web/src/main.ts'));
        if (!main || main.type !== 'chunk') throw new Error('main.ts is not a chunk of its own');
        const done = new Set([entry.fileName, ...entry.imports]);
        const scripts: string[] = [];
        const styles = new Set<string>();
        const visit = (fileName: string) => {
          const chunk = bundle[fileName];
          if (done.has(fileName) || !chunk || chunk.type !== 'chunk') return;
          done.add(fileName);
          scripts.push(fileName);
          for (const css of chunk.viteMetadata?.importedCss ?? []) styles.add(css);
          chunk.imports.forEach(visit);
        };
        visit(main.fileName);
        for (const css of entry.viteMetadata?.importedCss ?? []) styles.delete(css);
        return [
          ...scripts.map((file) => ({
            tag: 'link',
            attrs: { rel: 'modulepreload', crossorigin: true, href: `/app/${file}` },
            injectTo: 'head' as const,
          })),
          ...[...styles].map((file) => ({
            tag: 'link',
            attrs: { rel: 'stylesheet', crossorigin: true, href: `/app/${file}` },
            injectTo: 'head' as const,
          })),
        ];
      },
    },
  };
}
const service = process.env.FIELDREPORT_URL ?? 'http://127.0.0.1:8080';
const version: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;

export default defineConfig({
  root,
  base: '/app/',
  define: { __APP_VERSION__: JSON.stringify(version) },
  build: {
    outDir,
    emptyOutDir: true,
    target: 'es2022',
    // The first screen's budget is 80 kB gzip (bench/app.ts measures it); report bigger chunks.
    // pdf.js (about 400 kB, 120 kB gzip) is the one allowed: it loads on the PDF screen only.
    chunkSizeWarningLimit: 450,
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            { name: 'main', test: (id) => firstScreen.main.has(id), priority: 1 },
            { name: 'boot', test: (id) => firstScreen.boot.has(id), priority: 2 },
            { name: 'screens', test: (id) => firstScreen.screens.has(id), priority: 0 },
          ],
        },
      },
    },
  },
  server: { proxy: { '/api': service, '/public': service, '/ajax': service } },
  plugins: [
    svelte(),
    VitePWA({
      // A new version waits until the person says so (the "update available" note).
      registerType: 'prompt',
      injectRegister: false,
      filename: 'sw.js',
      manifestFilename: 'manifest.webmanifest',
      // The icons are in globPatterns already.
      includeManifestIcons: false,
      manifest: {
        id: '/app/',
        name: 'fieldreport',
        short_name: 'fieldreport',
        description: 'Service-Berichte vor Ort: Aufträge, Fotos, Sprachnotizen, Material.',
        lang: 'de',
        start_url: '/app/',
        scope: '/app/',
        display: 'standalone',
        // Turned sideways, the signature pad gets the width of the phone.
        orientation: 'any',
        theme_color: '#1d4f91',
        background_color: '#ffffff',
        icons: [
          { src: 'icons/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
          { src: 'icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
          { src: 'icons/icon-maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
        ],
      },
      workbox: {
        // The barcode reader's WebAssembly (about 1.1 MB) too: scanning works offline.
        globPatterns: ['**/*.{js,css,html,svg,png,webmanifest,wasm}'],
        maximumFileSizeToCacheInBytes: 3 * 1024 * 1024,
        // pdf.js shows PDFs that come from the network anyway: not stored for offline (its worker,
        // an .mjs, is not in globPatterns either).
        globIgnores: ['**/assets/pdf-*.js'],
        // Every address of the app opens the shell offline; the API is never answered from here.
        navigateFallback: '/app/index.html',
        navigateFallbackAllowlist: [/^\/app\//],
        cleanupOutdatedCaches: true,
        // The first version takes the page that installed it at once, so screens not opened yet
        // load offline in the very first session too. A later version still waits (registerType).
        clientsClaim: true,
        runtimeCaching: [],
      },
    }),
    firstScreenChunks(),
    preloadMain(),
    precompress(),
  ],
});
