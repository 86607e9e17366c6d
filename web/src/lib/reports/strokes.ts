/**
 * Every pointer sample of a signature, for the service's stroke evidence (format
 * `fieldreport-strokes/1`, described in src/modules/signatures/strokes.ts and docs/features.md).
 *
 * signature_pad keeps only the points it draws with (a new one every 16 ms and 5 px at most), so
 * the screen listens to the canvas's pointer events itself and gives them here, with every
 * coalesced event the browser merged into one (a pen reports 120-240 times a second, the page sees
 * an event per frame). The pad decides where a stroke begins and ends (its beginStroke and
 * endStroke), so the strokes here are the pad's strokes one for one: undo removes the same stroke
 * from both.
 *
 * x and y: CSS pixels from the canvas's top-left corner (its border box, as signature_pad draws),
 * rounded to 0.01; t: ms since the drawing's first sample, rounded to 0.001; pressure rounded to
 * 0.0001. A browser that gives a coalesced sample an earlier time than the one before (none should)
 * gets the one before's, as the service refuses times that go back. Browsers give coalesced events
 * only in a secure context (HTTPS, localhost), which the app needs anyway for its service worker.
 */
export const STROKES_FORMAT = 'fieldreport-strokes/1';
/** The service's limits: a stroke that would pass them is not taken (the screen says so). */
export const MAX_STROKES = 1000;
export const MAX_SAMPLES = 50_000;

export type PointerKind = 'mouse' | 'pen' | 'touch';
/** [x, y, t, pressure] */
export type Sample = [number, number, number, number];
export interface Stroke {
  pointer_type: PointerKind;
  samples: Sample[];
}

const round = (value: number, places: number) => {
  const factor = 10 ** places;
  return Math.round(value * factor) / factor;
};
const KINDS: readonly string[] = ['mouse', 'pen', 'touch'];

/** What is read of a pointer event (a PointerEvent is one). */
export interface PointerSample {
  readonly pointerId: number;
  readonly pointerType: string;
  readonly clientX: number;
  readonly clientY: number;
  readonly pressure: number;
  readonly timeStamp: number;
  getCoalescedEvents?(): PointerSample[];
}
/** What is read of the pad's canvas. */
interface Surface {
  getBoundingClientRect(): { left: number; top: number; width: number; height: number };
}

/** A stroke as kept here: `unusable` when the recorder could not follow it. */
type Kept = Stroke & { unusable?: true };

export class StrokeRecorder {
  readonly strokes: Kept[] = [];
  /** The first sample's time on the page's clock, and by the phone's clock (ms since 1970). */
  private origin: number | undefined;
  private startedAt = 0;
  private lastT = 0;
  private count = 0;
  private current: { pointerId: number; stroke: Kept; overflow: boolean } | undefined;
  /**
   * A stroke the recorder could not follow (no pointer event to start from, a pointer type the
   * format has no name for): then no record is sent rather than a wrong one.
   */
  private unusable = 0;

  constructor(private readonly canvas: Surface) {}

  get samples(): number {
    return this.count;
  }

  /** A stroke begins (the pad's beginStroke), at `down`, its pointerdown. */
  begin(down: PointerSample | undefined): void {
    const kind = down && KINDS.includes(down.pointerType) ? (down.pointerType as PointerKind) : undefined;
    const stroke: Kept = { pointer_type: kind ?? 'mouse', samples: [] };
    this.strokes.push(stroke);
    if (!down || !kind) {
      this.unusable++;
      stroke.unusable = true;
      this.current = undefined;
      return;
    }
    this.current = { pointerId: down.pointerId, stroke, overflow: this.strokes.length > MAX_STROKES };
    this.take([down]);
  }

  /** A pointermove or pointerup anywhere: the drawing pointer's samples, coalesced ones included. */
  move(event: PointerSample): void {
    if (!this.current || event.pointerId !== this.current.pointerId) return;
    const merged = typeof event.getCoalescedEvents === 'function' ? event.getCoalescedEvents() : [];
    this.take(merged.length > 0 ? merged : [event]);
  }

  /** The stroke ends (the pad's endStroke); true when it went past the limits and must be removed. */
  end(): boolean {
    const overflow = this.current?.overflow ?? false;
    this.current = undefined;
    return overflow;
  }

  /** The last stroke away. */
  undo(): void {
    const stroke = this.strokes.pop();
    if (!stroke) return;
    this.count -= stroke.samples.length;
    if (stroke.unusable) this.unusable--;
    if (this.strokes.length === 0) this.clear();
    else if (this.count === 0) {
      // Only strokes without samples are left: the next sample starts the clock again.
      this.origin = undefined;
      this.lastT = 0;
    } else this.lastT = this.strokes.findLast((s) => s.samples.length > 0)?.samples.at(-1)?.[2] ?? 0;
  }

  clear(): void {
    this.strokes.length = 0;
    this.origin = undefined;
    this.startedAt = 0;
    this.lastT = 0;
    this.count = 0;
    this.current = undefined;
    this.unusable = 0;
  }

  /** The record as the service takes it (field `strokes`), or undefined when there is none to send. */
  toJSON(pixelRatio: number): string | undefined {
    if (this.strokes.length === 0 || this.unusable > 0 || this.origin === undefined) return undefined;
    const box = this.canvas.getBoundingClientRect();
    return JSON.stringify({
      format: STROKES_FORMAT,
      started_at_unix_ms: round(this.startedAt, 3),
      pad: { width: round(box.width, 2), height: round(box.height, 2), pixel_ratio: round(pixelRatio, 4) },
      sample_fields: ['x', 'y', 't', 'pressure'],
      strokes: this.strokes.map((s) => ({ pointer_type: s.pointer_type, samples: s.samples })),
    });
  }

  private take(events: PointerSample[]): void {
    const current = this.current!;
    // Where the canvas is now (the page does not scroll under a stroke: touch-action none).
    const box = this.canvas.getBoundingClientRect();
    for (const e of events) {
      if (current.overflow || this.count >= MAX_SAMPLES) {
        current.overflow = true;
        return;
      }
      const origin = (this.origin ??= e.timeStamp);
      if (this.count === 0) this.startedAt = performance.timeOrigin + origin;
      const t = Math.max(round(e.timeStamp - origin, 3), this.lastT);
      const pressure = Number.isFinite(e.pressure) ? Math.min(1, Math.max(0, e.pressure)) : 0;
      current.stroke.samples.push([round(e.clientX - box.left, 2), round(e.clientY - box.top, 2), t, round(pressure, 4)]);
      this.lastT = t;
      this.count++;
    }
  }
}
