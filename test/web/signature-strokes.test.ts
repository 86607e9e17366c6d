/**
 * Stroke evidence in Chromium at a phone's viewport, against the real service on SQLite: the
 * customer signs with a pen whose pressure varies (CDP Input.dispatchMouseEvent with pointerType
 * "pen" and a varying force, at known event times, some moves sent at once so that Chromium merges
 * them into one pointermove with coalesced events), adds a finger stroke (Input.dispatchTouchEvent
 * with force), and a mouse stroke that is undone; a first drawing is cleared before. The phone is
 * offline when the signature is made, so it goes through the outbox. The strokes file the service
 * stored in the documents folder is compared with what was drawn, sample for sample: coordinates
 * (within rounding), time, pressure, pointer type, order and stroke grouping; the sealed metadata
 * sums it up and the signature verifies. A stroke past the service's limits (50 000 samples made in
 * the page) is taken off the pad again, the screen says so, and only the strokes before it are sent.
 * axe-core on the signature screen at 390 × 844 and 360 × 640, with and without that note.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { CDPSession, Page } from 'playwright-core';
import {
  apiToken,
  assertAccessible,
  assertPhoneFriendly,
  goOffline,
  goOnline,
  logIn,
  outboxPayloads,
  phone,
  skipReason,
  startWorld,
  type AppWorld,
  untilOfflineReady,
} from '../helpers/browser.js';

const skip = skipReason();

/** One pointer sample as drawn: where (relative to the pad), when (s since 1970), how hard. */
interface Drawn {
  x: number;
  y: number;
  at: number;
  pressure: number;
}
interface DrawnStroke {
  pointer_type: 'pen' | 'touch' | 'mouse';
  samples: Drawn[];
}

describe('app: the signature keeps every pen sample [sqlite]', { skip }, () => {
  let world: AppWorld;
  before(async () => {
    world = await startWorld();
  });
  after(async () => world?.close());

  async function api<T>(url: string, init: { method?: 'GET' | 'POST'; payload?: unknown } = {}): Promise<T> {
    const res = await world.ctx.app.inject({
      url,
      method: init.method ?? 'GET',
      ...(init.payload ? { payload: init.payload as object } : {}),
      headers: { authorization: `Bearer ${await apiToken(world)}` },
    });
    assert.ok(res.statusCode < 300, `${url}: ${res.statusCode} ${res.body}`);
    return res.json() as T;
  }

  /** The pad's box on the page (CSS px, border box: what the app measures from). */
  async function padBox(page: Page) {
    const box = await page.locator('canvas').boundingBox();
    assert.ok(box, 'the pad is on the screen');
    return box;
  }

  /**
   * A pen stroke through `points` (relative to the pad), pressure from `force(i)`, one sample every
   * 4 ms from `start` (s). Moves are sent in bursts of `burst` without waiting, so that Chromium
   * merges each burst into one pointermove: only its coalesced events hold the samples between.
   * Answers the samples drawn: the press, every move, the lift (a lifted pen has pressure 0).
   */
  async function penStroke(
    cdp: CDPSession,
    box: { x: number; y: number },
    points: Array<[number, number]>,
    force: (i: number) => number,
    start: number,
    burst: number,
    pointerType: 'pen' | 'mouse' = 'pen',
  ): Promise<DrawnStroke> {
    const at = (i: number) => start + i * 0.004;
    const event = (type: string, i: number, p: [number, number], pressure: number, buttons: number) =>
      cdp.send('Input.dispatchMouseEvent', {
        type: type as 'mouseMoved',
        x: box.x + p[0],
        y: box.y + p[1],
        button: 'left',
        buttons,
        clickCount: type === 'mouseMoved' ? 0 : 1,
        pointerType,
        force: pressure,
        timestamp: at(i),
      });
    const samples: Drawn[] = [];
    const [first, ...rest] = points;
    const last = rest.pop()!;
    // A mouse says 0.5 while its button is down, whatever force it is given; 0 once it is up.
    const pressureOf = (i: number) => (pointerType === 'mouse' ? 0.5 : force(i));
    await event('mousePressed', 0, first!, force(0), 1);
    samples.push({ x: first![0], y: first![1], at: at(0), pressure: pressureOf(0) });
    for (let from = 0; from < rest.length; from += burst) {
      const chunk = rest.slice(from, from + burst);
      await Promise.all(chunk.map((p, k) => event('mouseMoved', from + k + 1, p, force(from + k + 1), 1)));
      for (const [k, p] of chunk.entries()) samples.push({ x: p[0], y: p[1], at: at(from + k + 1), pressure: pressureOf(from + k + 1) });
      await new Promise((r) => setTimeout(r, 20));
    }
    const end = rest.length + 1;
    await event('mouseReleased', end, last, 0, 0);
    samples.push({ x: last[0], y: last[1], at: at(end), pressure: 0 });
    return { pointer_type: pointerType, samples };
  }

  /** A finger stroke (CDP touch events with force), one sample every 8 ms; the lift is where the finger last was, pressure 0. */
  async function fingerStroke(
    cdp: CDPSession,
    box: { x: number; y: number },
    points: Array<[number, number]>,
    force: (i: number) => number,
    start: number,
  ): Promise<DrawnStroke> {
    const at = (i: number) => start + i * 0.008;
    const samples: Drawn[] = [];
    for (const [i, p] of points.entries()) {
      await cdp.send('Input.dispatchTouchEvent', {
        type: i === 0 ? 'touchStart' : 'touchMove',
        touchPoints: [{ x: box.x + p[0], y: box.y + p[1], force: force(i), id: 7 }],
        timestamp: at(i),
      });
      samples.push({ x: p[0], y: p[1], at: at(i), pressure: force(i) });
      await new Promise((r) => setTimeout(r, 10));
    }
    const last = points.at(-1)!;
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [], timestamp: at(points.length) });
    samples.push({ x: last[0], y: last[1], at: at(points.length), pressure: 0 });
    return { pointer_type: 'touch', samples };
  }

  test('pen strokes with varying pressure and a finger stroke are stored sample for sample; cleared and undone strokes are not', async () => {
    const order = (await api<{ items: Array<{ id: number; status: number }> }>('/api/orders.php?limit=500')).items.find(
      (o) => o.status === 1,
    )!;
    const made = await api<{ id: number; ref: string }>('/api/reports.php?action=create', {
      method: 'POST',
      payload: { fk_element: order.id, title: 'Stiftprobe' },
    });
    await api(`/api/pages.php?action=add&bericht_id=${made.id}`, { method: 'POST', payload: { layout: 'title_only', title: 'Heizraum' } });

    const { page, context, errors } = await phone(world);
    await logIn(page);
    await page.goto(`/app/#/report/${made.id}/sign`);
    await page.getByRole('button', { name: 'Bestätigen und unterschreiben' }).click();
    await page.getByLabel('Name der unterschreibenden Person').fill('Paula Pen');
    await page.locator('canvas').scrollIntoViewIfNeeded();
    await page.waitForTimeout(500);
    const cdp = await context.newCDPSession(page);
    const now = () => Date.now() / 1000;

    // A first try, cleared: none of it is sent.
    await penStroke(
      cdp,
      await padBox(page),
      Array.from({ length: 8 }, (_, i) => [30 + i * 10, 60 + i * 3] as [number, number]),
      () => 0.9,
      now(),
      1,
    );
    await page.getByRole('button', { name: 'Löschen' }).click();
    // Reaching the button may have scrolled the page. The pad does not move while drawing (touch-action
    // none): its box now is the box of every sample to come.
    await page.waitForTimeout(300);
    const box = await padBox(page);
    // How many pointermove events the page gets for the pen: fewer than the moves sent, as Chromium merges them.
    await page.evaluate(
      `window.penMoves = 0; window.addEventListener('pointermove', (e) => { if (e.pointerType === 'pen') window.penMoves++; }, true)`,
    );

    // The signature: two pen strokes with the pressure rising and falling (fractional positions,
    // bursts of 5 and 7 moves merged into one event each), a dot, and a finger's stroke.
    const drawn: DrawnStroke[] = [];
    const wave = Array.from(
      { length: 36 },
      (_, i) => [20.25 + i * 6.5, 150.5 + Math.round(Math.sin(i / 3) * 4000) / 100] as [number, number],
    );
    drawn.push(await penStroke(cdp, box, wave, (i) => Math.round((0.15 + 0.8 * Math.sin((Math.PI * i) / 35)) * 1000) / 1000, now(), 5));
    await page.waitForTimeout(120);
    const loop = Array.from(
      { length: 22 },
      (_, i) => [120 + Math.cos(i / 3.5) * 40.5, 260.75 + Math.sin(i / 3.5) * 30] as [number, number],
    );
    drawn.push(await penStroke(cdp, box, loop, (i) => Math.round((0.9 - i * 0.03) * 1000) / 1000, now(), 7));
    await page.waitForTimeout(80);
    drawn.push(
      await penStroke(
        cdp,
        box,
        [
          [300.5, 120.25],
          [300.5, 120.25],
        ],
        () => 0.33,
        now(),
        1,
      ),
    );
    await page.waitForTimeout(80);
    drawn.push(
      await fingerStroke(
        cdp,
        box,
        Array.from({ length: 10 }, (_, i) => [60 + i * 12, 200 + i * 2] as [number, number]),
        (i) => Math.round((0.2 + i * 0.07) * 100) / 100,
        now(),
      ),
    );
    // A mouse stroke, undone: it is not sent.
    await page.waitForTimeout(80);
    await penStroke(
      cdp,
      box,
      // High on the pad: its lower edge may lie under a passing notice ("Die App funktioniert jetzt auch offline").
      Array.from({ length: 6 }, (_, i) => [200 + i * 8, 60] as [number, number]),
      () => 0.5,
      now(),
      1,
      'mouse',
    );
    await page.getByRole('button', { name: 'Rückgängig' }).click();
    await cdp.detach();
    const penMoves = (await page.evaluate('window.penMoves')) as number;
    const movesSent = drawn.filter((s) => s.pointer_type === 'pen').reduce((n, s) => n + s.samples.length - 2, 0);
    assert.ok(
      penMoves < movesSent,
      `Chromium merged moves into coalesced events (${penMoves} events for ${movesSent} moves): the test covers them`,
    );

    await assertAccessible(page, 'signature with strokes');
    await assertPhoneFriendly(page, 'signature with strokes');
    await page.setViewportSize({ width: 360, height: 640 });
    await page.waitForTimeout(300);
    await assertAccessible(page, 'signature with strokes at 360 × 640');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(300);

    // Signed offline: the samples wait in the outbox with the PNG.
    await untilOfflineReady(page);
    await goOffline(context);
    await page.getByRole('button', { name: 'Unterschreiben' }).click();
    await page.getByText('wird gesendet, sobald Netz da ist').waitFor();
    const queued = (await outboxPayloads(page)).find((r) => r.kind === 'signature');
    assert.ok(queued, 'the signature is in the outbox');
    const queuedStrokes = (queued.payload as { strokes?: string }).strokes;
    assert.equal(typeof queuedStrokes, 'string', 'with its strokes');
    await goOnline(context);
    await page.evaluate('window.dispatchEvent(new Event("online"))');
    await page.getByText('Unterschrift gültig').waitFor({ timeout: 60_000 });

    // What the service stored, read from the documents folder.
    const detail = await api<{ pages: Array<{ id: number; layout: string; source_path: string }> }>(`/api/reports.php?id=${made.id}`);
    const signed = detail.pages.at(-1)!;
    assert.equal(signed.layout, 'signature');
    const file = path.join(world.ctx.config.dataRoot, signed.source_path.replace(/\.png$/, '.strokes.json'));
    const bytes = readFileSync(file);
    assert.equal(bytes.toString('utf8'), queuedStrokes, 'stored exactly as the phone kept it');
    const stored = JSON.parse(bytes.toString('utf8')) as {
      format: string;
      started_at_unix_ms: number;
      pad: { width: number; height: number; pixel_ratio: number };
      sample_fields: string[];
      strokes: Array<{ pointer_type: string; samples: Array<[number, number, number, number]> }>;
    };
    assert.equal(stored.format, 'fieldreport-strokes/1');
    assert.deepEqual(stored.sample_fields, ['x', 'y', 't', 'pressure']);
    assert.deepEqual(Object.keys(stored.pad), ['width', 'height', 'pixel_ratio']);
    assert.ok(
      Math.abs(stored.pad.width - box.width) <= 0.005 && Math.abs(stored.pad.height - box.height) <= 0.005,
      `the pad's size: ${JSON.stringify(stored.pad)} vs ${box.width} × ${box.height}`,
    );
    assert.equal(stored.pad.pixel_ratio, 1);

    // Sample for sample: the grouping, the types, the order, the places, the times, the pressures.
    assert.deepEqual(
      stored.strokes.map((s) => s.pointer_type),
      drawn.map((s) => s.pointer_type),
      'the strokes and their pointer types',
    );
    assert.deepEqual(
      stored.strokes.map((s) => s.samples.length),
      drawn.map((s) => s.samples.length),
      'every sample of every stroke, nothing thinned out',
    );
    const origin = drawn[0]!.samples[0]!.at;
    // Chromium keeps event times to 0.1 ms; positions are float32 inside it, rounded to 0.01 by the app.
    assert.ok(
      Math.abs(stored.started_at_unix_ms - origin * 1000) < 0.2,
      `the start by the phone's clock: ${stored.started_at_unix_ms} vs ${origin * 1000}`,
    );
    for (const [s, stroke] of drawn.entries()) {
      for (const [i, want] of stroke.samples.entries()) {
        const [x, y, t, pressure] = stored.strokes[s]!.samples[i]!;
        const where = `stroke ${s} sample ${i}: stored ${JSON.stringify([x, y, t, pressure])}, drawn ${JSON.stringify(want)}`;
        assert.ok(Math.abs(x - want.x) <= 0.011 && Math.abs(y - want.y) <= 0.011, where);
        assert.ok(Math.abs(t - (want.at - origin) * 1000) <= 0.15, where);
        assert.ok(Math.abs(pressure - want.pressure) <= 0.0001, where);
      }
    }
    // The pressure really varied, and times never go back.
    const pressures = stored.strokes[0]!.samples.map((p) => p[3]);
    assert.ok(Math.max(...pressures) - Math.min(...pressures) > 0.7, `the pen's pressure varies: ${pressures.join(' ')}`);
    const times = stored.strokes.flatMap((s) => s.samples.map((p) => p[2]));
    assert.ok(
      times.every((t, i) => i === 0 || t >= times[i - 1]!),
      'times never decrease',
    );

    // The sealed metadata sums it up, and the check covers the file.
    const checked = await api<{
      verified: boolean;
      checks: { strokes: boolean | null };
      metadata: { strokes: Record<string, unknown>; user_agent: string };
    }>(`/ajax/verify_signature.php?id=${signed.id}`);
    assert.equal(checked.verified, true);
    assert.equal(checked.checks.strokes, true);
    const total = drawn.reduce((n, s) => n + s.samples.length, 0);
    assert.deepEqual(checked.metadata.strokes, {
      format: 'fieldreport-strokes/1',
      sha256: createHash('sha256').update(bytes).digest('hex'),
      bytes: bytes.length,
      strokes: drawn.length,
      samples: total,
      duration_ms: times.at(-1),
      pointer_types: ['pen', 'touch'],
    });
    assert.match(checked.metadata.user_agent, /Chrome\//);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('a stroke past what the service takes is taken off the pad again and the screen says so; the strokes before it are sent', async () => {
    const order = (await api<{ items: Array<{ id: number; status: number }> }>('/api/orders.php?limit=500')).items.find(
      (o) => o.status === 1,
    )!;
    const made = await api<{ id: number }>('/api/reports.php?action=create', {
      method: 'POST',
      payload: { fk_element: order.id, title: 'Volles Feld' },
    });
    await api(`/api/pages.php?action=add&bericht_id=${made.id}`, { method: 'POST', payload: { layout: 'title_only', title: 'Zähler' } });
    const { page, context, errors } = await phone(world);
    await logIn(page);
    await page.goto(`/app/#/report/${made.id}/sign`);
    await page.getByRole('button', { name: 'Bestätigen und unterschreiben' }).click();
    await page.getByLabel('Name der unterschreibenden Person').fill('Fritz Voll');
    await page.locator('canvas').scrollIntoViewIfNeeded();
    await page.waitForTimeout(300);
    const box = await padBox(page);
    const cdp = await context.newCDPSession(page);
    const kept = await penStroke(
      cdp,
      box,
      Array.from({ length: 10 }, (_, i) => [40 + i * 9, 90 + i * 4] as [number, number]),
      (i) => 0.3 + i * 0.05,
      Date.now() / 1000,
      3,
    );
    await cdp.detach();
    // A stroke of 50 000 samples more (events made in the page: one sample each), as no hand draws.
    await page.evaluate(`(() => {
      const canvas = document.querySelector('canvas');
      const b = canvas.getBoundingClientRect();
      const at = (i) => ({ pointerId: 41, pointerType: 'pen', isPrimary: true, clientX: b.left + 30 + (i % 200), clientY: b.top + 200 + (i % 7), pressure: 0.5, buttons: 1, bubbles: true, cancelable: true });
      canvas.dispatchEvent(new PointerEvent('pointerdown', at(0)));
      for (let i = 1; i <= 50000; i++) canvas.dispatchEvent(new PointerEvent('pointermove', at(i)));
      canvas.dispatchEvent(new PointerEvent('pointerup', { ...at(50001), buttons: 0, pressure: 0 }));
    })()`);
    await page.getByText('Das Unterschriftsfeld ist voll').waitFor();
    await assertAccessible(page, 'signature pad full');
    await page.setViewportSize({ width: 360, height: 640 });
    await page.waitForTimeout(300);
    await assertAccessible(page, 'signature pad full at 360 × 640');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('button', { name: 'Unterschreiben' }).click();
    await page.getByText('Unterschrift gültig').waitFor({ timeout: 60_000 });
    const signed = (await api<{ pages: Array<{ source_path: string }> }>(`/api/reports.php?id=${made.id}`)).pages.at(-1)!;
    const stored = JSON.parse(
      readFileSync(path.join(world.ctx.config.dataRoot, signed.source_path.replace(/\.png$/, '.strokes.json')), 'utf8'),
    ) as { strokes: Array<{ pointer_type: string; samples: number[][] }> };
    assert.deepEqual(
      stored.strokes.map((s) => [s.pointer_type, s.samples.length]),
      [['pen', kept.samples.length]],
      'only the stroke before the full one',
    );
    assert.deepEqual(errors, []);
    await context.close();
  });
});
