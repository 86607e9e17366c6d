/**
 * The floor of `npm run bench`: the order list's query served by nothing but Fastify and
 * better-sqlite3, on the same database file, as fast as this machine serves it. The service's
 * throughput is printed as a share of it, a figure that holds on a noisy machine. No login, no
 * rights, no conversion of dates or amounts, no response schema: one prepared statement and
 * JSON.stringify.
 *
 * Started by bench/run.ts as `node --import tsx bench/floor.ts`, with FLOOR_DATABASE (the SQLite
 * file), FLOOR_SQL and FLOOR_PARAMETERS (JSON) and PORT; prints `listening` when ready.
 */
import SQLite from 'better-sqlite3';
import Fastify from 'fastify';

const file = process.env.FLOOR_DATABASE!;
const statement = new SQLite(file, { readonly: true }).prepare(process.env.FLOOR_SQL!);
const parameters = JSON.parse(process.env.FLOOR_PARAMETERS!) as unknown[];

const app = Fastify({ logger: false });
app.get('/api/orders.php', async () => ({ items: statement.all(parameters) }));
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
console.log('listening');
