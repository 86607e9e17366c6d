/**
 * Reduces a photo off the main thread: decoded upright (EXIF orientation applied), scaled so its
 * longest side is at most `maxSide`, JPEG at quality 0.85, capture time kept (lib/photos/exif.ts).
 * Answers `{ id, blob }`, or `{ id, blob: null }` when the original is small enough or cannot be
 * decoded here (HEIC on most browsers): then the original is sent.
 */
import { readCaptureTime, withCaptureTime } from './exif';

interface Job {
  id: number;
  file: Blob;
  maxSide: number;
}

self.onmessage = async (event: MessageEvent<Job>) => {
  const { id, file, maxSide } = event.data;
  try {
    const bitmap = await createImageBitmap(file, { imageOrientation: 'from-image' });
    const longest = Math.max(bitmap.width, bitmap.height);
    if (longest <= maxSide) {
      bitmap.close();
      postMessage({ id, blob: null });
      return;
    }
    const scale = maxSide / longest;
    const width = Math.round(bitmap.width * scale);
    const height = Math.round(bitmap.height * scale);
    const canvas = new OffscreenCanvas(width, height);
    const context = canvas.getContext('2d');
    if (!context) throw new Error('no 2d context');
    context.imageSmoothingQuality = 'high';
    context.drawImage(bitmap, 0, 0, width, height);
    bitmap.close();
    const reduced = await canvas.convertToBlob({ type: 'image/jpeg', quality: 0.85 });
    const time = readCaptureTime(await file.slice(0, 256 * 1024).arrayBuffer());
    postMessage({ id, blob: time ? withCaptureTime(await reduced.arrayBuffer(), time) : reduced });
  } catch (error) {
    postMessage({ id, blob: null, error: error instanceof Error ? error.message : String(error) });
  }
};
