/**
 * The demo company's logo ("Muster Haustechnik"): a house with a flame and a drop of water on a
 * blue square, and the name beside it. Drawn from SVG with sharp, so the repository carries no
 * binary; the lettering is DejaVu Sans like the rest of the demo. The seed installs it as
 * Dolibarr's company logo (mycompany/logos/) and the ODT cover sheet embeds the same picture.
 */
import sharp from 'sharp';

const BLUE = '#0d4a86';
const ORANGE = '#f28c28';

/** Size of the drawing in pixels (about 3 : 1, so it fits the 40 × 18 mm logo box of the PDF header). */
export const DEMO_LOGO_SIZE = { width: 860, height: 280 } as const;

const SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="${DEMO_LOGO_SIZE.width}" height="${DEMO_LOGO_SIZE.height}" viewBox="0 0 ${DEMO_LOGO_SIZE.width} ${DEMO_LOGO_SIZE.height}">
  <rect x="10" y="10" width="260" height="260" rx="44" fill="${BLUE}"/>
  <path d="M140 52 L236 132 L214 132 L214 226 L66 226 L66 132 L44 132 Z" fill="#ffffff"/>
  <g transform="translate(90 100)">
    <path d="M50 8 C64 30 84 46 84 76 C84 100 68 116 50 116 C32 116 16 100 16 76 C16 58 26 46 34 36 C36 50 42 58 50 60 C46 44 44 26 50 8 Z" fill="${ORANGE}"/>
    <path d="M50 66 C60 78 68 86 68 98 C68 109 60 116 50 116 C40 116 32 109 32 98 C32 86 42 78 50 66 Z" fill="${BLUE}"/>
  </g>
  <text x="312" y="150" font-family="DejaVu Sans" font-weight="bold" font-size="112" fill="${BLUE}">MUSTER</text>
  <text x="316" y="236" font-family="DejaVu Sans" font-size="58" letter-spacing="6" fill="#4a4a4a">HAUSTECHNIK</text>
</svg>`;

/** The logo as a PNG with a transparent background. */
export async function makeDemoLogo(): Promise<Buffer> {
  return sharp(Buffer.from(SVG)).png().toBuffer();
}
