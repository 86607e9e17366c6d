/**
 * The service killed with SIGKILL while photo uploads are at work (seeded random moments, most of
 * them after the body and before the answer), as a power cut or the OOM killer would, and started
 * again on the same database and documents folder. After each kill the client repeats its upload
 * with the same Idempotency-Key: one photo per key, never two, each complete with its row and
 * thumbnails; the order folder and ecm_files agree exactly; nothing temporary is left.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { SEED, crashFixture, prng, walk } from '../helpers/crash.js';

const KILLS = 20;
const describeLinux = process.platform === 'linux' ? describe : describe.skip;

describeLinux('crash recovery: kill -9 during uploads [sqlite]', { timeout: 290_000 }, () => {
  const random = prng(SEED);
  const fx = crashFixture();
  let photo: Buffer;
  let order: { id: number; ref: string };

  before(async () => {
    console.log(`# crash recovery (uploads) seed ${SEED} (CRASH_SEED repeats a run)`);
    // A 12-megapixel photo with detail, so its thumbnails take a moment to make.
    const noise = Buffer.alloc(4000 * 3000 * 3);
    for (let i = 0; i < noise.length; i += 997) noise[i] = (i * 31) & 0xff;
    photo = await sharp(noise, { raw: { width: 4000, height: 3000, channels: 3 } })
      .jpeg({ quality: 90 })
      .toBuffer();
    await fx.start(true);
    const list = (await (
      await fetch(`${fx.service().base}/api/orders.php`, { headers: { authorization: `Bearer ${fx.token()}` } })
    ).json()) as { items: Array<{ id: number; ref: string }> };
    order = list.items[0]!;
  });
  after(() => fx.close());

  function upload(key: string): Promise<Response> {
    const form = new FormData();
    form.append('file', new Blob([photo], { type: 'image/jpeg' }), 'Zählerstand.jpg');
    return fetch(`${fx.service().base}/api/orders.php?id=${order.id}&action=upload_photo`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fx.token()}`, 'idempotency-key': key },
      body: form,
    });
  }

  /** The order folder's visible files and the ecm_files rows of that folder. */
  function folderAndIndex(): { files: string[]; rows: string[] } {
    const dir = path.join(fx.dataRoot, 'commande', order.ref);
    const entries = existsSync(dir) ? readdirSync(dir, { withFileTypes: true }) : [];
    const files = entries
      .filter((e) => e.isFile() && !e.name.startsWith('.'))
      .map((e) => e.name)
      .sort();
    const rows = fx
      .query<{ filename: string }>('select filename from llx_ecm_files where filepath = ?', `commande/${order.ref}`)
      .map((r) => r.filename)
      .sort();
    return { files, rows };
  }

  test(`${KILLS} kills during uploads: a retry with the same key gives one complete photo`, async () => {
    const before = folderAndIndex();
    assert.deepEqual(before.files, before.rows, 'the folder and its rows agree to begin with');
    // How long one upload takes here until it is settled (a JPEG's thumbnails are written after the
    // answer), so the kills fall inside the work: the quicker of two, as the first also pays for the
    // process warming up (a slow first one made most kills land too late).
    const intents = () => fx.query<{ n: number }>('select count(*) as n from llx_bericht_file_intent')[0]!.n;
    const timings: number[] = [];
    for (const n of [1, 2]) {
      const started = Date.now();
      const probe = await upload(`crash-probe-${SEED}-${n}`);
      assert.equal(probe.status, 201);
      while (intents() > 0 && Date.now() - started < 10_000) await new Promise((r) => setTimeout(r, 2));
      timings.push(Date.now() - started);
      before.files.push(((await probe.json()) as { name: string }).name);
    }
    const uploadMs = Math.min(...timings);

    const names = new Set<string>();
    let killedBeforeAnswer = 0;
    let killedBeforeSettled = 0;
    for (let i = 0; i < KILLS; i++) {
      const key = `crash-upload-${SEED}-${i}`;
      const pending = upload(key).then(
        (res) => res.status,
        () => 'no answer' as const,
      );
      if (i % 2 === 0) {
        // After the body: once the temporary file holds the whole photo, a random moment of the
        // checks, the reservation, the placing, the answer and the thumbnails.
        const dir = path.join(fx.dataRoot, 'commande', order.ref);
        const deadline = Date.now() + 10_000;
        const received = () =>
          (existsSync(dir) ? readdirSync(dir) : []).some(
            (n) => n.startsWith('.upload') && statSync(path.join(dir, n), { throwIfNoEntry: false })?.size === photo.length,
          );
        while (Date.now() < deadline && !received()) await new Promise((r) => setTimeout(r, 2));
        await new Promise((r) => setTimeout(r, Math.floor(random() * uploadMs * 0.5)));
      } else {
        await new Promise((r) => setTimeout(r, Math.floor(random() * uploadMs)));
      }
      const unsettled = intents() > 0;
      await fx.service().kill();
      if ((await pending) === 'no answer') killedBeforeAnswer += 1;
      else if (unsettled) killedBeforeSettled += 1;
      await fx.start();
      const retry = await upload(key);
      assert.equal(retry.status, 201, `retry ${i}: ${await retry.clone().text()}`);
      const body = (await retry.json()) as { name: string };
      names.add(body.name);
      // A second retry is answered from the stored answer: still one photo.
      const again = (await (await upload(key)).json()) as { name: string };
      assert.equal(again.name, body.name);
    }
    console.log(
      `# one upload took ${uploadMs} ms until settled; of ${KILLS} uploads ${killedBeforeAnswer} were killed before their answer, ${killedBeforeSettled} after it before their thumbnails`,
    );
    assert.ok(killedBeforeAnswer + killedBeforeSettled >= KILLS / 2, 'most kills landed inside the work (else the test proves little)');
    assert.equal(names.size, KILLS, 'one photo per key');
    const now = folderAndIndex();
    assert.deepEqual(now.files, now.rows, 'every file has its row and every row its file');
    assert.equal(now.files.length, before.files.length + KILLS, 'no photo twice');
    // A JPEG's thumbnails are written just after its answer (and by the recovery for a run killed before that).
    const thumbsOf = () => readdirSync(path.join(fx.dataRoot, 'commande', order.ref, 'thumbs'));
    for (
      let waited = 0;
      waited < 10_000 && (intents() > 0 || [...names].some((n) => !thumbsOf().includes(n.replace(/\.jpg$/, '_mini.jpg'))));
      waited += 100
    )
      await new Promise((r) => setTimeout(r, 100));
    const thumbs = thumbsOf();
    for (const name of names) {
      const base = name.replace(/\.jpg$/, '');
      assert.ok(thumbs.includes(`${base}_small.jpg`) && thumbs.includes(`${base}_mini.jpg`), `thumbnails of ${name}`);
    }
    for (const thumb of thumbs) {
      const owner = thumb.replace(/_(small|mini)(\.[^.]+)$/, '$2');
      assert.ok(now.files.includes(owner), `thumbnail ${thumb} has its photo`);
    }
    assert.deepEqual(
      walk(fx.dataRoot).filter((f) => f.endsWith('.tmp')),
      [],
      'no temporary file',
    );
    assert.equal(intents(), 0, 'every intent settled');
  });
});
