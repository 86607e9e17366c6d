/**
 * Where the service can be reached, as the start banner prints it: small, so the primary of
 * `serve --workers N` prints it without loading the app.
 */
import os from 'node:os';
import { DEMO_PASSWORD } from './demo/logins.js';

/** http://host:port (https:// with `tls`), an IPv6 address in brackets. */
export function addressUrl(host: string, port: number, tls: boolean): string {
  return `${tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * When the service listens on every address (HOST=0.0.0.0 or ::), the app's addresses on this
 * computer's networks (IPv4), the ones a phone on the same network opens.
 */
export function networkAppUrls(base: string, interfaces: NodeJS.Dict<os.NetworkInterfaceInfo[]> = os.networkInterfaces()): string[] {
  const url = new URL(base);
  if (url.hostname !== '0.0.0.0' && url.hostname !== '[::]') return [];
  return Object.values(interfaces)
    .flat()
    .filter((i): i is os.NetworkInterfaceInfo => !!i && i.family === 'IPv4' && !i.internal)
    .map((i) => `${url.protocol}//${i.address}${url.port ? `:${url.port}` : ''}/app/`);
}

/** The start banner of a standalone database: where the app is, and the demo logins. */
export function startBanner(base: string, logins: readonly string[]): string {
  return (
    `\nfieldreport is running on ${base}\n` +
    `  App:        ${base}/app/\n` +
    networkAppUrls(base)
      .map((url) => `  On the LAN: ${url}\n`)
      .join('') +
    `  API docs:   ${base}/api/docs\n` +
    `  Demo login: ${logins.join(', ')} (password: ${DEMO_PASSWORD})\n` +
    `  Try:        curl -s -X POST ${base}/api/auth.php -H 'Content-Type: application/json' -d '{"login":"${logins[0]}","password":"${DEMO_PASSWORD}"}'\n\n`
  );
}
