/**
 * The floor of the drain's upload (bench/drain.ts): Fastify and @fastify/multipart streaming each
 * upload into a file and, as the service must to finalize at once after a drain, making each
 * photo's print-size copy in the background (sharp, one thread an image, as many at once as the
 * service's print queue: PRINT_QUEUE_CONCURRENCY). Nothing else: no login, rights, checks,
 * database or evidence. In a process of its own as the service runs in one, so that both are timed
 * alike by the same client and share the machine alike: a busy neighbour slows the floor's answers
 * as it slows the service's, and the ratio keeps what the service adds.
 *
 * Started by bench/drain.ts as `node --import tsx bench/upload-floor.ts` with PORT and
 * FLOOR_DIR (where the files go); prints `listening` when ready.
 */
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import multipartPlugin from '@fastify/multipart';
import Fastify from 'fastify';
import sharp from 'sharp';
import { PRINT_QUEUE_CONCURRENCY } from '../src/adapters/print-image.js';

sharp.cache(false);
sharp.concurrency(1);
const dir = process.env.FLOOR_DIR!;

const waiting: string[] = [];
let running = 0;
/** The print-size copy of each photo (an A4 photo page at 150 dpi), PRINT_QUEUE_CONCURRENCY at a time. */
function copyLater(file: string): void {
  waiting.push(file);
  while (running < PRINT_QUEUE_CONCURRENCY && waiting.length > 0) {
    const next = waiting.shift()!;
    running++;
    void sharp(next)
      .rotate()
      .resize(1111, 1482, { fit: 'fill' })
      .jpeg({ quality: 70, mozjpeg: true })
      .toBuffer()
      .catch(() => undefined)
      .finally(() => {
        running--;
        if (waiting.length > 0) copyLater(waiting.shift()!);
      });
  }
}

const app = Fastify({ logger: false });
await app.register(multipartPlugin, { limits: { fileSize: 32 * 1024 * 1024, files: 1 } });
let n = 0;
app.post('/upload', async (request, reply) => {
  const part = await request.file();
  if (!part) return reply.code(400).send({});
  const file = path.join(dir, `${n++}.jpg`);
  await pipeline(part.file, createWriteStream(file));
  copyLater(file);
  return reply.code(201).send({ name: part.filename });
});
app.get('/', async () => ({ ok: true }));
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
console.log('listening');
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
