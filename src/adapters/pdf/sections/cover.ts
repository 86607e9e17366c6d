/**
 * The cover: the pages of the PDF LibreOffice made from the ODT cover-sheet template, each placed
 * whole on a sheet of its own, or the built-in cover (title and a few lines, centred) where there is
 * no template or it could not be converted. Cover sheets carry no header; they count in "Seite x / y".
 */
import { drawPdfPageAsForm, loadCoverPdf, type ImportedPdf } from '../../pdf-import.js';
import {
  drawPdfKitImage,
  measure,
  mm,
  PDF_LAYOUT,
  SANS,
  SANS_BOLD,
  textIn,
  uprightSize,
  type Doc,
  type PdfKitImage,
  type TextStyle,
} from '../kit.js';
import type { PdfCover } from '../model.js';

export interface PreparedCover {
  sheets: number;
  /** Draws cover sheet `index` on the current (new) page. */
  draw(doc: Doc, index: number, logo: PdfKitImage | null): void;
}

export async function prepareCover(cover: PdfCover | null): Promise<PreparedCover | null> {
  if (!cover) return null;
  if (cover.kind === 'pdf') {
    const imported: ImportedPdf = await loadCoverPdf(cover.path);
    return { sheets: imported.pageCount, draw: (doc, index) => drawPdfPageAsForm(doc, imported, index) };
  }
  return { sheets: 1, draw: (doc, _index, logo) => drawBuiltinCover(doc, cover, logo) };
}

function drawBuiltinCover(doc: Doc, cover: { title: string; lines: string[] }, logo: PdfKitImage | null): void {
  if (logo) {
    const { width, height } = uprightSize(logo);
    const scale = Math.min(PDF_LAYOUT.logoWidth / width, PDF_LAYOUT.logoHeight / height);
    drawPdfKitImage(doc, logo, PDF_LAYOUT.side, mm(8), width * scale, height * scale);
  }
  const page = {
    x: PDF_LAYOUT.side,
    y: PDF_LAYOUT.top,
    w: doc.page.width - 2 * PDF_LAYOUT.side,
    h: doc.page.height - PDF_LAYOUT.top - PDF_LAYOUT.bottom,
  };
  const titleStyle: TextStyle = { font: SANS_BOLD, size: 26, align: 'center' };
  const lineStyle: TextStyle = { font: SANS, size: 13, align: 'center', color: '#333333' };
  let y = page.y + page.h * 0.3;
  const titleHeight = measure(doc, cover.title, page.w, titleStyle, page.h * 0.3);
  textIn(doc, cover.title, { ...page, y, h: titleHeight }, titleStyle);
  y += titleHeight + mm(8);
  for (const line of cover.lines) {
    const height = measure(doc, line, page.w, lineStyle, page.y + page.h - y);
    if (height <= 0) break;
    textIn(doc, line, { ...page, y, h: height }, lineStyle);
    y += height + mm(1.5);
  }
}
