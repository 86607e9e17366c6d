/**
 * Pages of another PDF (the cover sheet LibreOffice renders from an ODT) placed into a pdfkit
 * document. pdfkit cannot import pages, so each page becomes a Form XObject: its content streams,
 * decoded and joined, are the form's stream, and every object its resources reach (fonts, images,
 * patterns ...) is copied into the pdfkit document with its stream bytes as they are, Filter and
 * DecodeParms included. Text stays text, so it remains extractable. Objects shared by several
 * pages are copied once. Annotations (links) are not carried over.
 *
 * The report PDF is PDF/A-1b, and so is LibreOffice's cover (libreoffice.ts): what is copied keeps
 * the file PDF/A-1b, as long as what the form adds does too. The page's /Group (a transparency
 * group, which PDF/A-1 forbids) is therefore left out, as are annotations. A source that is not
 * PDF/A-1 (transparency, fonts not embedded) makes a report PDF that is not either.
 *
 * pdfkit internals relied on: `doc.ref(data)` and `ref.end(bytes)` (a `Filter` present when the
 * ref is made keeps pdfkit from deflating the bytes again), `ref.data` for filling a dictionary
 * after the ref exists (cycles), pdfkit's serialisation of JS values (string = name, Uint8Array =
 * hex string, plain object = dictionary), and `doc.page.xobjects` (the page's /XObject resources).
 */
import { readFile } from 'node:fs/promises';
import {
  decodePDFRawStream,
  PDFArray,
  PDFBool,
  PDFDict,
  PDFDocument as PdfLibDocument,
  PDFHexString,
  PDFName,
  PDFNumber,
  PDFRawStream,
  PDFRef,
  PDFStream,
  PDFString,
  type PDFContext,
  type PDFObject,
  type PDFPage as PdfLibPage,
} from 'pdf-lib';

/** An indirect object of the pdfkit document (PDFReference, not in @types/pdfkit). */
interface PdfKitRef {
  data: unknown;
  end(chunk?: Uint8Array): void;
}
interface PdfKitInternals {
  ref(data?: unknown): PdfKitRef;
  page: { width: number; height: number; xobjects: Record<string, PdfKitRef> };
}
const internals = (doc: PDFKit.PDFDocument): PdfKitInternals => doc as unknown as PdfKitInternals;

export interface ImportedPdf {
  pageCount: number;
  /** @internal */
  pages: PdfLibPage[];
  /** @internal Copies made so far, by pdf-lib object tag ("12 0 R"), shared by all pages. */
  copies: Map<string, PdfKitRef | null>;
  /** @internal The pdfkit document the copies belong to; set by the first page drawn. */
  target: PDFKit.PDFDocument | null;
}

/** Reads a PDF for placing its pages. Throws when it is not a readable, unencrypted PDF. */
export async function loadCoverPdf(file: string): Promise<ImportedPdf> {
  const pdf = await PdfLibDocument.load(await readFile(file), { updateMetadata: false });
  const pages = pdf.getPages();
  return { pageCount: pages.length, pages, copies: new Map(), target: null };
}

/**
 * Draws page `index` of `source` onto the current pdfkit page: scaled to fit, centred, turned as
 * its /Rotate says, clipped to its CropBox.
 */
export function drawPdfPageAsForm(doc: PDFKit.PDFDocument, source: ImportedPdf, index: number): void {
  if (source.target && source.target !== doc) throw new Error('drawPdfPageAsForm: an ImportedPdf belongs to one document');
  source.target = doc;
  const page = source.pages[index];
  if (!page) throw new Error(`drawPdfPageAsForm: no page ${index}`);
  const copier = new ObjectCopier(internals(doc), page.doc.context, source.copies);
  const box = page.getCropBox();
  const form = internals(doc).ref({
    Type: 'XObject',
    Subtype: 'Form',
    FormType: 1,
    BBox: [box.x, box.y, box.x + box.width, box.y + box.height],
    Resources: copier.copy(page.node.Resources()) ?? {},
    // No /Group: a transparency group is not allowed in PDF/A-1, and a PDF/A-1 page has no
    // transparency for it to apply to.
  });
  form.end(pageContent(page));

  const name = `Cover${index + 1}`;
  internals(doc).page.xobjects[name] = form;
  const { width: pageWidth, height: pageHeight } = internals(doc).page;
  const rotation = (((page.getRotation().angle % 360) + 360) % 360) as 0 | 90 | 180 | 270;
  const quarter = rotation === 90 || rotation === 270;
  const [seenWidth, seenHeight] = quarter ? [box.height, box.width] : [box.width, box.height];
  const scale = Math.min(pageWidth / seenWidth, pageHeight / seenHeight);
  const offsetX = (pageWidth - seenWidth * scale) / 2;
  const offsetY = (pageHeight - seenHeight * scale) / 2;
  // The page's rotation as a matrix on the box moved to the origin (PDF space, y up).
  const rotations: Record<typeof rotation, [number, number, number, number, number, number]> = {
    0: [1, 0, 0, 1, 0, 0],
    90: [0, -1, 1, 0, 0, box.width],
    180: [-1, 0, 0, -1, box.width, box.height],
    270: [0, 1, -1, 0, box.height, 0],
  };
  const [a, b, c, d, e, f] = rotations[rotation];
  doc.save();
  // pdfkit's pages start with a y-down transform; undo it to work in PDF space.
  doc.transform(1, 0, 0, -1, 0, pageHeight);
  doc.transform(
    scale * a,
    scale * b,
    scale * c,
    scale * d,
    scale * (e - a * box.x - c * box.y) + offsetX,
    scale * (f - b * box.x - d * box.y) + offsetY,
  );
  doc.addContent(`/${name} Do`);
  doc.restore();
}

/** The page's content streams decoded and joined (a page may split its content over several). */
function pageContent(page: PdfLibPage): Uint8Array {
  const contents = page.node.Contents();
  const streams = contents instanceof PDFArray ? contents.asArray().map((item) => page.doc.context.lookup(item)) : [contents];
  const parts: Uint8Array[] = [];
  for (const stream of streams) {
    if (stream instanceof PDFRawStream) parts.push(decodePDFRawStream(stream).decode());
    else if (stream instanceof PDFStream) parts.push(stream.getContents());
    parts.push(new Uint8Array([0x0a]));
  }
  return Buffer.concat(parts);
}

/** Copies pdf-lib objects into pdfkit values, each indirect object once. */
class ObjectCopier {
  constructor(
    private readonly doc: PdfKitInternals,
    private readonly context: PDFContext,
    private readonly copies: Map<string, PdfKitRef | null>,
  ) {}

  copy(object: PDFObject | undefined): unknown {
    if (object === undefined) return null;
    if (object instanceof PDFRef) return this.copyIndirect(object);
    if (object instanceof PDFName) return object.asString().slice(1); // already #-escaped
    if (object instanceof PDFNumber) return object.asNumber();
    if (object instanceof PDFString || object instanceof PDFHexString) return object.asBytes(); // written as <hex>
    if (object instanceof PDFBool) return object.asBoolean();
    if (object instanceof PDFArray) return object.asArray().map((item) => this.copy(item));
    if (object instanceof PDFStream) return this.copyStream(object, undefined);
    if (object instanceof PDFDict) return this.copyDict(object, {});
    return null; // PDFNull, PDFInvalidObject
  }

  private copyIndirect(ref: PDFRef): unknown {
    const known = this.copies.get(ref.tag);
    if (known !== undefined) return known;
    const object = this.context.lookup(ref);
    if (object instanceof PDFStream) return this.copyStream(object, ref.tag);
    if (object instanceof PDFDict) {
      if (object.get(PDFName.of('Type')) === PDFName.of('Page')) return null; // a link back to a page: not wanted
      const target = this.doc.ref({});
      this.copies.set(ref.tag, target);
      this.copyDict(object, target.data as Record<string, unknown>);
      target.end();
      return target;
    }
    if (object instanceof PDFArray) {
      const items: unknown[] = [];
      const target = this.doc.ref(items);
      this.copies.set(ref.tag, target);
      for (const item of object.asArray()) items.push(this.copy(item));
      target.end();
      return target;
    }
    // Numbers, names, strings, null: written in place.
    return this.copy(object);
  }

  private copyDict(dict: PDFDict, into: Record<string, unknown>, skip: readonly string[] = []): Record<string, unknown> {
    for (const [key, value] of dict.entries()) {
      const name = key.asString().slice(1);
      // Parent would pull in the source's page tree.
      if (name === 'Parent' || skip.includes(name)) continue;
      into[name] = this.copy(value);
    }
    return into;
  }

  private copyStream(stream: PDFStream, tag: string | undefined): PdfKitRef {
    let bytes = stream.getContents();
    const filter = stream.dict.get(PDFName.of('Filter'));
    const data: Record<string, unknown> = {};
    if (bytes.length === 0)
      bytes = new Uint8Array([0x20]); // pdfkit writes no stream at all for zero bytes
    // Filter must be there when the ref is made, or pdfkit deflates the bytes a second time.
    else if (filter) data.Filter = this.copy(this.context.lookup(filter));
    const target = this.doc.ref(data);
    if (tag) this.copies.set(tag, target);
    this.copyDict(stream.dict, data, ['Length', 'Filter', ...(data.Filter ? [] : ['DecodeParms'])]);
    target.end(bytes);
    return target;
  }
}
