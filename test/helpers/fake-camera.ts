/** What Chromium's fake camera shows (--use-file-for-fake-video-capture): an image as one frame of Y4M video. */
import sharp from 'sharp';

/** One frame of video, Y4M (4:2:0, full range), of `image` centred on white at 640 × 480: what Chromium's fake camera shows. */
export async function y4mOf(image: Buffer): Promise<Buffer> {
  const [w, h] = [640, 480];
  const { data } = await sharp(image)
    .resize({ width: 520, height: 360, fit: 'inside' })
    .flatten({ background: '#ffffff' })
    .extend({ top: 60, bottom: 60, left: 60, right: 60, background: '#ffffff' })
    .resize(w, h, { fit: 'contain', background: '#ffffff' })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const y = Buffer.alloc(w * h);
  const u = Buffer.alloc((w * h) / 4);
  const v = Buffer.alloc((w * h) / 4);
  const clamp = (n: number) => Math.max(0, Math.min(255, Math.round(n)));
  for (let row = 0; row < h; row++) {
    for (let col = 0; col < w; col++) {
      const i = (row * w + col) * 3;
      y[row * w + col] = clamp(0.299 * data[i]! + 0.587 * data[i + 1]! + 0.114 * data[i + 2]!);
    }
  }
  for (let row = 0; row < h; row += 2) {
    for (let col = 0; col < w; col += 2) {
      let [r, g, b] = [0, 0, 0];
      for (const [dr, dc] of [
        [0, 0],
        [0, 1],
        [1, 0],
        [1, 1],
      ] as const) {
        const i = ((row + dr) * w + col + dc) * 3;
        r += data[i]! / 4;
        g += data[i + 1]! / 4;
        b += data[i + 2]! / 4;
      }
      const at = (row / 2) * (w / 2) + col / 2;
      u[at] = clamp(128 - 0.168736 * r - 0.331264 * g + 0.5 * b);
      v[at] = clamp(128 + 0.5 * r - 0.418688 * g - 0.081312 * b);
    }
  }
  return Buffer.concat([Buffer.from(`YUV4MPEG2 W${w} H${h} F10:1 Ip A1:1 C420jpeg\nFRAME\n`), y, u, v]);
}
