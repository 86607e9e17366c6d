/**
 * HTTP/1.1 over a plain socket, for what app.inject cannot send: bodies cut off or shorter than
 * their Content-Length, headers or bodies that arrive a byte at a time, and to see whether the
 * server closed the connection.
 */
import net from 'node:net';
import type { FastifyInstance } from 'fastify';

export interface RawResponse {
  /** 0 when nothing (or no status line) came back. */
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The server closed the connection before `waitMs` ran out. */
  closed: boolean;
}

export interface RawConnection {
  socket: net.Socket;
  /** Writes; a write after the server closed the connection is ignored. */
  write(data: string | Buffer): void;
  /** Writes `data` one byte every `everyMs` until it is written, the server answers or the socket closes. */
  trickle(data: string | Buffer, everyMs: number): void;
  /** Everything the server sent, once it closes the connection or `waitMs` have passed. */
  response(waitMs: number): Promise<RawResponse>;
}

/** Starts the app on a free port of 127.0.0.1 (once) and returns the port. */
export async function listenLocal(app: FastifyInstance): Promise<number> {
  if (!app.server.listening) await app.listen({ host: '127.0.0.1', port: 0 });
  return (app.server.address() as net.AddressInfo).port;
}

export function parseRawResponse(text: string, closed: boolean): RawResponse {
  const end = text.indexOf('\r\n\r\n');
  const head = end < 0 ? text : text.slice(0, end);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  return { status, headers, body: end < 0 ? '' : text.slice(end + 4), closed };
}

export function openRaw(port: number): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    let closed = false;
    let answered = false;
    const waiters: Array<() => void> = [];
    socket.on('data', (chunk) => {
      received.push(chunk);
      answered = true;
    });
    socket.on('error', () => undefined); // a reset is a close here
    socket.on('close', () => {
      closed = true;
      for (const wake of waiters.splice(0)) wake();
    });
    const write = (data: string | Buffer) => {
      if (!closed && !socket.destroyed && socket.writable) socket.write(data);
    };
    socket.once('connect', () =>
      resolve({
        socket,
        write,
        trickle(data, everyMs) {
          const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data, 'latin1');
          let at = 0;
          const timer = setInterval(() => {
            if (at >= bytes.length || closed || answered) return clearInterval(timer);
            write(bytes.subarray(at, at + 1));
            at++;
          }, everyMs);
          socket.once('close', () => clearInterval(timer));
        },
        async response(waitMs) {
          if (!closed) {
            await new Promise<void>((wake) => {
              const timer = setTimeout(wake, waitMs);
              waiters.push(() => {
                clearTimeout(timer);
                wake();
              });
            });
          }
          const wasClosed = closed;
          socket.destroy();
          return parseRawResponse(Buffer.concat(received).toString('utf8'), wasClosed);
        },
      }),
    );
    socket.once('error', reject);
  });
}

/** One request written at once (`Connection: close`), and the answer. */
export async function rawRequest(port: number, request: string | Buffer, waitMs = 5000): Promise<RawResponse> {
  const conn = await openRaw(port);
  conn.write(request);
  return conn.response(waitMs);
}

/** The bytes of a request: method, path, headers (Host and Connection: close added), body. */
export function requestBytes(method: string, url: string, headers: Record<string, string | number>, body: string | Buffer = ''): Buffer {
  const data = Buffer.isBuffer(body) ? body : Buffer.from(body, 'latin1');
  const all: Record<string, string | number> = { host: 'localhost', connection: 'close', ...headers };
  if (!Object.keys(all).some((h) => h.toLowerCase() === 'content-length') && data.length > 0) all['content-length'] = data.length;
  const head = `${method} ${url} HTTP/1.1\r\n${Object.entries(all)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), data]);
}
