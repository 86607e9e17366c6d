/** The photo evidence in answers (upload and page answers). */
import { Type } from 'typebox';

const Coordinate = (what: string, limit: number) =>
  Type.Union([Type.Number({ minimum: -limit, maximum: limit }), Type.Null()], {
    description: `${what}, decimal degrees (WGS 84, kept to 7 decimals); null when not recorded.`,
  });

export const PhotoEvidence = Type.Object(
  {
    sha256: Type.String({ description: 'SHA-256 (hex) of the bytes the service received.' }),
    size: Type.Integer({ minimum: 0, description: 'Bytes received.' }),
    received_at: Type.Integer({ description: "When the service received them, Unix seconds (the server's clock)." }),
    exif_taken_at: Type.Union([Type.String(), Type.Null()], {
      description:
        'EXIF DateTimeOriginal (else DateTimeDigitized) as the camera wrote it, `YYYY-MM-DD HH:MM:SS` in its local time; null without one.',
    }),
    exif_offset: Type.Union([Type.String(), Type.Null()], {
      description:
        'EXIF OffsetTimeOriginal (`+01:00`), when the camera wrote one a place uses (at most ±14:00, minutes below 60); another is dropped and the time kept without an offset.',
    }),
    exif_gps_lat: Coordinate("Latitude from the photo's EXIF GPS tags (0, 0 counts as none)", 90),
    exif_gps_lon: Coordinate("Longitude from the photo's EXIF GPS tags", 180),
    taken_at_device: Type.Union([Type.String(), Type.Null()], {
      description: "The phone's capture time as it sent it (`taken_at_device`, RFC 3339 with its offset); null when none was sent.",
    }),
    taken_at_device_unix: Type.Union([Type.Integer(), Type.Null()], { description: 'That instant, Unix seconds.' }),
    gps_lat: Coordinate("The phone's latitude at capture (`gps_lat`, sent only when the person allowed it)", 90),
    gps_lon: Coordinate("The phone's longitude at capture (`gps_lon`)", 180),
  },
  {
    description:
      "What the service recorded when it received the photo (migration 0014): the bytes' SHA-256, EXIF time and place, and what the phone sent with it. " +
      "It is part of the page's content for a signature's hash (form `fieldreport-pages/3`), and the PDF prints time and place under the photo.",
  },
);

/** A page image's evidence, or null (none recorded: a file uploaded before evidence was kept, or placed by other means). */
export const PageEvidence = (which: string) =>
  Type.Union([PhotoEvidence, Type.Null()], {
    description: `The evidence of ${which}, or null when none was recorded (a file from before, or placed outside the upload).`,
  });
