/**
 * The technician's app: Svelte 5, built by Vite into the service's output (dist/app), served by
 * fieldreport at /app/. vite-plugin-pwa writes the web manifest and a Workbox service worker that
 * precaches the app shell (HTML, JS, CSS, icons), so the app starts with no network. API answers
 * are never cached by the service worker: the app keeps its own (lib/cache.ts), per user.
 * `npm run dev:app` serves it with hot reload and sends /api and /public to a service on :8080.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';

const root = fileURLToPath(new URL('.', import.meta.url));
const service = process.env.FIELDREPORT_URL ?? 'http://127.0.0.1:8080';
const version: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;

export default defineConfig({
  root,
  base: '/app/',
  define: { __APP_VERSION__: JSON.stringify(version) },
  build: {
    outDir: fileURLToPath(new URL('../dist/app', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // The first screen's budget is 80 kB gzip (bench/app.ts measures it); report bigger chunks.
    chunkSizeWarningLimit: 200,
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
      includeAssets: ['icons/*.svg'],
      manifest: {
        id: '/app/',
        name: 'fieldreport',
        short_name: 'fieldreport',
        description: 'Service-Berichte vor Ort: Aufträge, Fotos, Sprachnotizen, Material.',
        lang: 'de',
        start_url: '/app/',
        scope: '/app/',
        display: 'standalone',
        orientation: 'portrait',
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
  ],
});
