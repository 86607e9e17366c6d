/**
 * The technician's app: Svelte 5, built by Vite into the service's output (dist/app), served by
 * fieldreport at /app/. vite-plugin-pwa writes the web manifest and a Workbox service worker that
 * precaches the app shell (HTML, JS, CSS, icons), so the app starts with no network. API answers
 * are never cached by the service worker: the app keeps its own (lib/cache.ts), per user.
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
 * Brotli and gzip copies (`x.js.br`, `x.js.gz`) of every text file of the build, made once here
 * at the highest levels, so the service sends a third of the bytes without compressing per request
 * (src/plugins/web-app.ts chooses by Accept-Encoding).
 */
function precompress(): Plugin {
  const walk = (dir: string): string[] => readdirSync(dir).flatMap((name) => {
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
        for (const file of walk(outDir).filter((f) => /\.(js|css|html|svg|webmanifest|json)$/.test(f))) {
          const bytes = readFileSync(file);
          if (bytes.length < 1024) continue;
          writeFileSync(`${file}.br`, brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }));
          writeFileSync(`${file}.gz`, gzipSync(bytes, { level: 9 }));
        }
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
        globPatterns: ['**/*.{js,css,html,svg,png,webmanifest}'],
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
    precompress(),
  ],
});
