/**
 * Reading barcodes from the camera: the browser's own BarcodeDetector where it has one that reads
 * the codes parts carry (Chrome on Android and macOS), else the same interface from
 * `barcode-detector` (ZXing compiled to WebAssembly). The WebAssembly file is served by the app
 * itself and kept by its service worker, so scanning works offline; it is fetched only when a
 * scan starts, not with the app's first screen.
 */
import wasmUrl from 'zxing-wasm/reader/zxing_reader.wasm?url';

/** The codes on parts and their boxes: EAN-13 (and EAN-8, UPC), Code 128, Code 39, DataMatrix and QR codes. */
export const FORMATS = ['ean_13', 'ean_8', 'upc_a', 'upc_e', 'code_128', 'code_39', 'data_matrix', 'qr_code'] as const;

export interface Detector {
  detect(source: HTMLVideoElement | ImageBitmapSource): Promise<Array<{ rawValue: string; format: string }>>;
}

type NativeDetector = {
  new (options: { formats: string[] }): Detector;
  getSupportedFormats(): Promise<string[]>;
};

let made: Promise<Detector> | undefined;

/** The detector, made once. */
export function barcodeDetector(): Promise<Detector> {
  made ??= (async () => {
    const native = (globalThis as { BarcodeDetector?: NativeDetector }).BarcodeDetector;
    if (native) {
      const supported = await native.getSupportedFormats().catch(() => [] as string[]);
      const formats = FORMATS.filter((f) => supported.includes(f));
      if (formats.includes('ean_13') && formats.includes('code_128')) return new native({ formats });
    }
    const { BarcodeDetector, prepareZXingModule } = await import('barcode-detector/ponyfill');
    // Loaded and compiled now, so a reader that cannot be had (not kept yet and offline) says so
    // at once rather than failing on every picture.
    await prepareZXingModule({
      overrides: { locateFile: (path: string, prefix: string) => (path.endsWith('.wasm') ? wasmUrl : prefix + path) },
      fireImmediately: true,
    });
    return new BarcodeDetector({ formats: [...FORMATS] }) as unknown as Detector;
  })();
  made.catch(() => (made = undefined));
  return made;
}
