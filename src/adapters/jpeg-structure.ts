/**
 * The structure of a JPEG, checked as its bytes stream in (an upload, while it is written to disk),
 * without decoding a pixel: the start marker; every marker segment with a sound length; a frame
 * header (SOF) before the first scan; in each scan's entropy-coded data only stuffed bytes
 * (FF 00), restart markers or a marker that may follow a scan; and the end marker (EOI). Bytes
 * after EOI are allowed: phones append data there (a second image of an Ultra HDR photo, vendor
 * trailers), as every reader accepts.
 *
 * A file cut off, or with garbage after a sound header, fails here at the cost of a scan for FF
 * bytes (about a millisecond for a 4 MB photo), where a decode takes tens of milliseconds. The
 * decode follows in the background (thumbnails, print copy); what it still finds is logged.
 */

/** Where the checker is in the stream. */
type State =
  | 'soi0' // expecting FF of SOI
  | 'soi1' // expecting D8
  | 'marker' // expecting FF before a marker
  | 'code' // expecting the marker's code (after one or more FF)
  | 'len0'
  | 'len1'
  | 'skip' // inside a segment's payload
  | 'scan' // entropy-coded data
  | 'scanFF' // after an FF in entropy-coded data
  | 'done'; // after EOI

/** Markers without a length: TEM and the restart markers (RST0-7). */
const standalone = (code: number) => code === 0x01 || (code >= 0xd0 && code <= 0xd7);
/** Start-of-frame markers (SOF0-SOF15 but DHT C4, JPG C8, DAC CC). */
const isFrame = (code: number) => code >= 0xc0 && code <= 0xcf && code !== 0xc4 && code !== 0xc8 && code !== 0xcc;
/** Markers a reader accepts between segments: C0-FE but the reserved and standalone ones, which are handled apart. */
const isSegment = (code: number) => code >= 0xc0 && code <= 0xfe && !standalone(code) && code !== 0xd8 && code !== 0xd9;

export class JpegStructure {
  private state: State = 'soi0';
  private code = 0;
  private remaining = 0;
  private length = 0;
  private frame = false;
  private scans = 0;
  private problem: string | undefined;

  /** Feeds the next bytes. */
  update(chunk: Uint8Array): void {
    let i = 0;
    const n = chunk.length;
    while (i < n && this.problem === undefined) {
      switch (this.state) {
        case 'done':
          return;
        case 'soi0':
          if (chunk[i++] !== 0xff) return this.fail('no JPEG start marker');
          this.state = 'soi1';
          break;
        case 'soi1':
          if (chunk[i++] !== 0xd8) return this.fail('no JPEG start marker');
          this.state = 'marker';
          break;
        case 'marker':
          if (chunk[i++] !== 0xff) return this.fail('a marker was expected');
          this.state = 'code';
          break;
        case 'code': {
          const code = chunk[i++]!;
          if (code === 0xff) break; // fill bytes before a marker
          this.marker(code);
          break;
        }
        case 'len0':
          this.length = chunk[i++]! << 8;
          this.state = 'len1';
          break;
        case 'len1':
          this.length |= chunk[i++]!;
          if (this.length < 2) return this.fail('a segment length below 2');
          this.remaining = this.length - 2;
          this.state = 'skip';
          if (this.remaining === 0) this.afterSegment();
          break;
        case 'skip': {
          const take = Math.min(this.remaining, n - i);
          i += take;
          this.remaining -= take;
          if (this.remaining === 0) this.afterSegment();
          break;
        }
        case 'scan': {
          const at = chunk.indexOf(0xff, i);
          if (at < 0) return;
          i = at + 1;
          this.state = 'scanFF';
          break;
        }
        case 'scanFF': {
          const code = chunk[i++]!;
          if (code === 0x00 || (code >= 0xd0 && code <= 0xd7)) this.state = 'scan';
          else if (code === 0xff)
            break; // fill bytes
          else this.marker(code);
          break;
        }
      }
    }
  }

  private marker(code: number): void {
    if (code === 0xd9) {
      if (this.scans === 0) return this.fail('the image ends before its first scan');
      this.state = 'done';
      return;
    }
    if (standalone(code)) {
      this.state = 'marker';
      return;
    }
    if (!isSegment(code)) return this.fail(`an invalid marker FF${code.toString(16).padStart(2, '0').toUpperCase()}`);
    if (code === 0xda && !this.frame) return this.fail('a scan before the frame header');
    if (isFrame(code)) this.frame = true;
    this.code = code;
    this.state = 'len0';
  }

  private afterSegment(): void {
    if (this.code === 0xda) {
      this.scans += 1;
      this.state = 'scan';
    } else this.state = 'marker';
  }

  private fail(why: string): void {
    this.problem = why;
  }

  /** After the last bytes: undefined for a sound structure, else what is wrong. */
  result(): string | undefined {
    if (this.problem !== undefined) return this.problem;
    return this.state === 'done' ? undefined : 'the image is cut off (no end marker)';
  }
}
