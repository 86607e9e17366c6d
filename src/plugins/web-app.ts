/**
 * The technicians' web app (a Svelte/Vite progressive web app, built into APP_DIR, by default
 * dist/app) at /app/, from the same origin as the API, so it needs no CORS and its service worker's
 * scope is /app/. `/` and `/app` lead to `/app/`, which is the app's index.html.
 *
 * - Caching: Vite names the files under assets/ by their content's hash, so they never change and
 *   are cached for a year (immutable). Every other file (index.html, sw.js, the manifest, icons)
 *   keeps its name across builds and is revalidated on every use (no-cache, with ETag and
 *   Last-Modified), so a new build reaches the phones at once.
 * - Safety: only plain files below the folder are served. A path with `..`, an empty segment, a
 *   dotfile, a backslash or NUL (also %-encoded) is refused as not found before the disk is
 *   touched; a folder is not found either (no listings). A path that is not a file is 404 in the
 *   API's error shape; there is no fallback to index.html, so a missing asset is never answered
 *   with HTML.
 * - Compression: the build leaves Brotli and gzip copies beside each text file (`x.js.br`,
 *   `x.js.gz`, web/vite.config.ts); the copy the browser accepts is sent with Content-Encoding
 *   (Brotli first), so nothing is compressed per request. `Vary: Accept-Encoding` on every such file.
 * - The app's HTML gets a Content-Security-Policy without inline scripts (Vite emits none);
 *   security-headers.ts adds X-Frame-Options and keeps frame-ancestors 'none'.
 * - Preload hints: the HTML's answer names, in a `Link` header, the scripts and style sheets the
 *   HTML itself loads first (its module scripts, module preloads and style sheets, read from the
 *   file whenever it changes), so a browser asks for them while it is still setting up the page,
 *   before it has parsed the HTML (a slow phone spends a good 100 ms there).
 * - An app that was not built (no index.html) is no reason to refuse the API: one warning at
 *   start, and /app/ answers 503 APP_NOT_BUILT until the files are there (no restart needed).
 *
 * The routes are public (the app is the login screen) and left out of the OpenAPI document.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { send } from '@fastify/send';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../errors.js';

export const APP_PREFIX = '/app/';

/**
 * For the app's HTML. Styles may be inline (Svelte's transitions write style attributes); blob:
 * and data: images are photos taken or picked before upload; blob: frames and media show a PDF or
 * a recording held in memory; the service worker and the manifest come from this origin. The
 * barcode reader is WebAssembly (compiled by the browser: 'wasm-unsafe-eval', which allows no
 * JavaScript eval) and the camera's picture a media stream.
 */
export const APP_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' blob: data:",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "worker-src 'self'",
  "manifest-src 'self'",
  "frame-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Files under assets/ carry their content's hash in their name. */
export const IMMUTABLE_CACHE = 'public, max-age=31536000, immutable';
/** Files whose name stays from build to build: asked again each time (an ETag makes that cheap). */
export const REVALIDATE_CACHE = 'no-cache';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
};

/** Precompressed copies beside a file, in the order they are preferred. */
const ENCODINGS = [
  { name: 'br', suffix: '.br' },
  { name: 'gzip', suffix: '.gz' },
] as const;
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.webmanifest', '.svg', '.wasm']);

/**
 * The `Link` header value that preloads what an app HTML loads first: `<script type="module" src>`
 * and `<link rel="modulepreload">` as module preloads, `<link rel="stylesheet">` as style
 * preloads, each with the tag's crossorigin (so the browser takes the preloaded answer for the tag),
 * in the HTML's order; only paths below /app/. Undefined when there is none.
 */
export function appPreloadLinks(html: string): string | undefined {
  const links: string[] = [];
  for (const [tag] of html.matchAll(/<(?:script|link)\b[^>]*>/gi)) {
    const attribute = (name: string) => new RegExp(`\\s${name}(?=[\\s=/>])(?:\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+)))?`, 'i').exec(tag);
    const value = (name: string) => {
      const found = attribute(name);
      return found ? (found[1] ?? found[2] ?? found[3] ?? '') : undefined;
    };
    const isScript = /^<script/i.test(tag);
    const rel = value('rel')?.toLowerCase();
    const url = isScript ? value('src') : value('href');
    if (!url || !url.startsWith(APP_PREFIX) || /[<>,;\s]/.test(url)) continue;
    let kind: string;
    if (isScript) {
      if (value('type')?.toLowerCase() !== 'module') continue;
      kind = 'rel=modulepreload';
    } else if (rel === 'modulepreload') {
      kind = 'rel=modulepreload';
    } else if (rel === 'stylesheet') {
      kind = 'rel=preload; as=style';
    } else {
      continue;
    }
    const crossorigin = attribute('crossorigin')
      ? `; crossorigin${value('crossorigin') === 'use-credentials' ? '=use-credentials' : ''}`
      : '';
    links.push(`<${url}>; ${kind}${crossorigin}`);
  }
  return links.length > 0 ? links.join(', ') : undefined;
}

/** The encodings an Accept-Encoding header names (`*` too), each with its q (1 when not given; the first mention counts). */
export function encodingWeights(header: string | undefined): Map<string, number> {
  const weights = new Map<string, number>();
  for (const part of (header ?? '').toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const encoding = name?.trim();
    if (encoding && !weights.has(encoding)) weights.set(encoding, q ? Number(q.slice(2)) : 1);
  }
  return weights;
}

/** The encodings an Accept-Encoding header allows (a q of 0 refuses one). */
export function acceptedEncodings(header: string | undefined): Set<string> {
  return new Set([...encodingWeights(header)].filter(([, weight]) => weight !== 0).map(([name]) => name));
}

/** The Content-Type of an app file, by its extension (the build names them; nothing here is uploaded). */
export function appContentType(file: string): string {
  return CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * The segments of a requested path below /app/ (as the router decoded it), or undefined when it
 * may not be served: `..` or `.`, an empty segment (`//`, a trailing slash), a dotfile, a
 * backslash or NUL. '' is the index.
 */
export function appPathSegments(requested: string): string[] | undefined {
  if (requested === '') return ['index.html'];
  const segments = requested.split('/');
  const refused = (s: string) => s === '' || s.startsWith('.') || /[\\\0]/.test(s);
  return segments.some(refused) ? undefined : segments;
}

export default fp(
  async function webApp(app: FastifyInstance, options: { appDir: string }) {
    const root = path.resolve(options.appDir);
    const built = () => existsSync(path.join(root, 'index.html'));
    if (!built()) {
      app.log.warn({ appDir: root }, 'the web app is not built (no index.html in APP_DIR): /app/ answers 503 APP_NOT_BUILT; the API works');
    }
    const notFound = () => (built() ? new AppError('ROUTE_NOT_FOUND') : new AppError('APP_NOT_BUILT'));
    /** The preload links of an HTML file, read again when it changes (a new build). */
    const preloads = new Map<string, { stamp: string; links: string | undefined }>();
    const preloadLinks = async (file: string, stamp: string) => {
      const known = preloads.get(file);
      if (known?.stamp === stamp) return known.links;
      const links = appPreloadLinks(await readFile(file, 'utf8').catch(() => ''));
      preloads.set(file, { stamp, links });
      return links;
    };

    const route = { schema: { hide: true }, config: { auth: 'public' as const } };
    const toApp = (request: FastifyRequest, reply: FastifyReply) => {
      const query = request.url.indexOf('?');
      return reply.redirect(`${APP_PREFIX}${query < 0 ? '' : request.url.slice(query)}`, 302);
    };
    app.get('/', route, async (request, reply) => toApp(request, reply));
    app.get('/app', route, async (request, reply) => toApp(request, reply));

    app.get('/app/*', route, async (request, reply) => {
      const segments = appPathSegments((request.params as { '*': string })['*']);
      if (!segments) throw notFound();
      const file = segments.at(-1)!;
      const compressible = COMPRESSIBLE.has(path.extname(file).toLowerCase());
      const accepted = compressible ? acceptedEncodings(request.headers['accept-encoding']) : new Set<string>();
      const encoding = ENCODINGS.find(
        (e) => accepted.has(e.name) && existsSync(path.join(root, ...segments.slice(0, -1), file + e.suffix)),
      );
      const result = await send(request.raw, `/${segments.map(encodeURIComponent).join('/')}${encoding?.suffix ?? ''}`, {
        root,
        dotfiles: 'deny',
        index: false,
        contentType: false,
        cacheControl: false,
      });
      if (result.type !== 'file') {
        result.stream.destroy();
        if (result.statusCode === 412) throw new AppError('PRECONDITION_FAILED');
        if (result.statusCode === 416)
          throw new AppError('RANGE_NOT_SATISFIABLE', { headers: { 'content-range': String(result.headers['Content-Range'] ?? '') } });
        if (result.type === 'error' && ![403, 404].includes(result.statusCode)) throw result.metadata.error;
        throw notFound();
      }
      reply.code(result.statusCode).headers(result.headers);
      if (compressible) reply.header('vary', 'Accept-Encoding');
      if (encoding) reply.header('content-encoding', encoding.name);
      reply.header('cache-control', segments[0] === 'assets' && segments.length > 1 ? IMMUTABLE_CACHE : REVALIDATE_CACHE);
      if (result.statusCode === 304) {
        result.stream.destroy();
        return reply.send();
      }
      reply.header('content-type', appContentType(file));
      if (path.extname(file).toLowerCase() === '.html') {
        reply.header('content-security-policy', APP_CONTENT_SECURITY_POLICY);
        const links = await preloadLinks(path.join(root, ...segments), `${result.metadata.stat.mtimeMs}:${result.metadata.stat.size}`);
        if (links) reply.header('link', links);
      }
      return reply.send(result.stream);
    });
  },
  { name: 'web-app' },
);
