/**
 * The app's stroke recorder (web/src/lib/reports/strokes.ts) with pointer events made by hand, and the
 * service's check (src/modules/signatures/strokes.ts) of what it makes: the app's record is always
 * one the service takes; coalesced events are kept one by one; undo and clear keep the strokes in
 * step with the pad; a stroke past the service's limits is reported so the screen removes it; a
 * pointer the format cannot name gives no record rather than a wrong one.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  duplicateKey,
  MAX_STROKE_SAMPLES as SERVICE_MAX_SAMPLES,
  MAX_STROKES as SERVICE_MAX_STROKES,
  parseStrokes,
} from '../../src/modules/signatures/strokes.js';
import { MAX_SAMPLES, MAX_STROKES, StrokeRecorder, type PointerSample } from '../../web/src/lib/reports/strokes.js';

const BOX = { left: 10.5, top: 200, width: 366, height: 506.39 };
const canvas = { getBoundingClientRect: () => BOX };

interface Fake {
  pointerId: number;
  pointerType: string;
  clientX: number;
  clientY: number;
  pressure: number;
  timeStamp: number;
  coalesced?: Fake[];
}
/** A pointer event as the recorder reads it. */
function ev(f: Partial<Fake> & Pick<Fake, 'clientX' | 'clientY' | 'timeStamp'>): PointerSample {
  const e: Fake = { pointerId: 2, pointerType: 'pen', pressure: 0.5, ...f };
  return { ...e, getCoalescedEvents: () => (e.coalesced ?? []).map((c) => ev(c)) };
}

test('samples are relative to the pad and the first sample, rounded; coalesced events are kept one by one; the record passes the service', () => {
  const r = new StrokeRecorder(canvas);
  r.begin(ev({ clientX: 60.749996185302734, clientY: 250.5, timeStamp: 1000.1, pressure: 0.20000000298023224 }));
  // One pointermove holding three merged samples.
  r.move(
    ev({
      clientX: 70,
      clientY: 255,
      timeStamp: 1012.1,
      pressure: 0.4,
      coalesced: [
        { pointerId: 2, pointerType: 'pen', clientX: 64, clientY: 251, timeStamp: 1004.1, pressure: 0.30000001192092896 },
        { pointerId: 2, pointerType: 'pen', clientX: 67, clientY: 253, timeStamp: 1008.1, pressure: 0.35 },
        { pointerId: 2, pointerType: 'pen', clientX: 70, clientY: 255, timeStamp: 1012.1, pressure: 0.4 },
      ],
    }),
  );
  // Another pointer (a second finger) is not this stroke's.
  r.move(ev({ pointerId: 9, clientX: 1, clientY: 1, timeStamp: 1013 }));
  // A move without coalesced events is its own sample; the lift too.
  r.move(ev({ clientX: 71, clientY: 256, timeStamp: 1016.1, pressure: 0.45 }));
  r.move(ev({ clientX: 71, clientY: 256, timeStamp: 1020.1, pressure: 0 }));
  assert.equal(r.end(), false);
  r.begin(ev({ pointerId: 3, pointerType: 'touch', clientX: 100, clientY: 300, timeStamp: 1500.1, pressure: 1 }));
  r.move(ev({ pointerId: 3, pointerType: 'touch', clientX: 101, clientY: 301, timeStamp: 1508.1, pressure: 0 }));
  r.end();

  const json = r.toJSON(2.625)!;
  const record = JSON.parse(json);
  assert.equal(record.format, 'fieldreport-strokes/1');
  assert.ok(Math.abs(record.started_at_unix_ms - (performance.timeOrigin + 1000.1)) < 0.001);
  assert.deepEqual(record.pad, { width: 366, height: 506.39, pixel_ratio: 2.625 });
  assert.deepEqual(record.sample_fields, ['x', 'y', 't', 'pressure']);
  assert.deepEqual(record.strokes, [
    {
      pointer_type: 'pen',
      samples: [
        [50.25, 50.5, 0, 0.2],
        [53.5, 51, 4, 0.3],
        [56.5, 53, 8, 0.35],
        [59.5, 55, 12, 0.4],
        [60.5, 56, 16, 0.45],
        [60.5, 56, 20, 0],
      ],
    },
    {
      pointer_type: 'touch',
      samples: [
        [89.5, 100, 500, 1],
        [90.5, 101, 508, 0],
      ],
    },
  ]);
  assert.equal(r.samples, 8);
  const parsed = parseStrokes(json);
  assert.deepEqual(
    { ...parsed.summary, sha256: '' },
    {
      format: 'fieldreport-strokes/1',
      sha256: '',
      bytes: Buffer.byteLength(json),
      strokes: 2,
      samples: 8,
      duration_ms: 508,
      pointer_types: ['pen', 'touch'],
    },
  );
});

test('a time the browser gives earlier than the one before is kept at the one before (the service refuses times that go back)', () => {
  const r = new StrokeRecorder(canvas);
  r.begin(ev({ clientX: 20, clientY: 220, timeStamp: 50 }));
  r.move(ev({ clientX: 21, clientY: 221, timeStamp: 49.9 }));
  r.end();
  const json = r.toJSON(1)!;
  assert.deepEqual(
    JSON.parse(json).strokes[0].samples.map((s: number[]) => s[2]),
    [0, 0],
  );
  parseStrokes(json);
});

test('undo removes the last stroke and clear everything; the times count from the first stroke left', () => {
  const r = new StrokeRecorder(canvas);
  assert.equal(r.toJSON(1), undefined, 'nothing drawn: nothing to send');
  const stroke = (t: number) => {
    r.begin(ev({ clientX: 20, clientY: 220, timeStamp: t }));
    r.move(ev({ clientX: 30, clientY: 230, timeStamp: t + 5 }));
    r.end();
  };
  stroke(100);
  stroke(200);
  r.undo();
  assert.equal(r.strokes.length, 1);
  assert.equal(r.samples, 2);
  stroke(300);
  assert.deepEqual(
    JSON.parse(r.toJSON(1)!).strokes.map((s: { samples: number[][] }) => s.samples.map((p) => p[2])),
    [
      [0, 5],
      [200, 205],
    ],
  );
  r.undo();
  r.undo();
  assert.equal(r.toJSON(1), undefined);
  stroke(900);
  assert.deepEqual(
    JSON.parse(r.toJSON(1)!).strokes[0].samples.map((p: number[]) => p[2]),
    [0, 5],
    'after undoing all, the next stroke starts the clock',
  );
  r.clear();
  assert.equal(r.toJSON(1), undefined);
  assert.equal(r.samples, 0);
  stroke(5000);
  assert.equal(JSON.parse(r.toJSON(1)!).strokes.length, 1);
});

test('a pointer the format cannot name, or a stroke begun without a pointer event, gives no record until it is undone', () => {
  const r = new StrokeRecorder(canvas);
  r.begin(ev({ clientX: 20, clientY: 220, timeStamp: 1 }));
  r.end();
  r.begin(ev({ pointerType: '', clientX: 20, clientY: 220, timeStamp: 2 }));
  r.end();
  assert.equal(r.strokes.length, 2, "one stroke for each of the pad's");
  assert.equal(r.toJSON(1), undefined);
  r.undo();
  assert.ok(r.toJSON(1));
  r.begin(undefined);
  r.end();
  assert.equal(r.toJSON(1), undefined);
  r.undo();
  parseStrokes(r.toJSON(1)!);
});

test("the app's limits are the service's; a stroke that passes them is reported at its end, and removing it leaves a record the service takes", () => {
  assert.equal(MAX_SAMPLES, SERVICE_MAX_SAMPLES);
  assert.equal(MAX_STROKES, SERVICE_MAX_STROKES);
  const r = new StrokeRecorder(canvas);
  r.begin(ev({ clientX: 20, clientY: 220, timeStamp: 0 }));
  for (let i = 1; i < MAX_SAMPLES - 10; i++) r.move(ev({ clientX: 20 + (i % 300), clientY: 220, timeStamp: i }));
  assert.equal(r.end(), false);
  // This one would pass the limit: reported, and removed by the screen (from the pad too).
  r.begin(ev({ clientX: 20, clientY: 220, timeStamp: MAX_SAMPLES }));
  for (let i = 1; i <= 20; i++) r.move(ev({ clientX: 20 + i, clientY: 220, timeStamp: MAX_SAMPLES + i }));
  assert.equal(r.end(), true);
  r.undo();
  assert.equal(r.samples, MAX_SAMPLES - 10);
  assert.equal(parseStrokes(r.toJSON(1)!).summary.samples, MAX_SAMPLES - 10);

  const many = new StrokeRecorder(canvas);
  for (let i = 0; i < MAX_STROKES; i++) {
    many.begin(ev({ clientX: 20, clientY: 220, timeStamp: i }));
    assert.equal(many.end(), false);
  }
  many.begin(ev({ clientX: 20, clientY: 220, timeStamp: MAX_STROKES }));
  assert.equal(many.end(), true, 'one stroke more than the service takes');
  many.undo();
  assert.equal(parseStrokes(many.toJSON(1)!).summary.strokes, MAX_STROKES);
});

test('duplicateKey: the first key named twice in one object, with where; keys in strings, arrays, other objects and escapes are read as JSON reads them', () => {
  assert.deepEqual(duplicateKey('{"format":"evil","format":"fieldreport-strokes/1"}'), { key: 'format', where: '' });
  assert.deepEqual(duplicateKey('{"strokes":[{"a":1},{"y":[1,{"z":1,"z":2}]}]}'), { key: 'z', where: 'strokes[1].y[1]' });
  assert.deepEqual(duplicateKey('{"\\u0061":1,"a":2}'), { key: 'a', where: '' });
  assert.equal(duplicateKey('{"a":"\\"a\\",\\"a\\":","b":{"a":1},"c":[{"a":1},{"a":2}]}'), undefined);
  assert.equal(duplicateKey('{}'), undefined);
  assert.equal(duplicateKey('[{"a":1,"b":2}]'), undefined);
});
