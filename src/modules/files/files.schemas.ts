/** Schemas of the file endpoints (16 and 18); the descriptions are the contract's decisions. */
import { Type, type Static } from 'typebox';

export const PhotoQuery = Type.Object({
  modulepart: Type.String({
    description:
      "Owning module, as in Dolibarr's document.php: `commande` (orders), `facture` (invoices), `propal` or its " +
      'folder name `propale` (proposals), `fichinter` or its folder name `ficheinter` (interventions), `bericht` (reports). ' +
      'Anything else: 400 FILE_MODULE_UNKNOWN.',
  }),
  file: Type.String({
    minLength: 1,
    maxLength: 1000,
    description:
      'Path relative to the module folder, Dolibarr-style: `<object folder>/<name>`, where the object folder is the ' +
      "object's ref (as Dolibarr sanitizes it for folder names), e.g. `CO2401-0001/photo.jpg`. " +
      'Refused with 400 FILE_PATH_INVALID: `.`, `..` or empty segments, absolute paths, backslashes, NUL and control ' +
      'characters, %-escapes left after the one URL decoding (double encoding), links leading out of the folder, and a ' +
      'path without an object folder (a single segment). An object the caller may not see, an unknown ref (compared ' +
      'exactly, also on case-insensitive databases) and a missing file: 404 FILE_NOT_FOUND.',
  }),
  size: Type.Optional(
    Type.Union([Type.Literal('small'), Type.Literal('mini')], {
      description:
        "Serve Dolibarr's thumbnail `thumbs/<base>_<size><ext>` instead: `small` fits 480×270, `mini` 128×72. " +
        'A missing thumbnail of a JPEG, PNG or WebP image is made on this request; other files have none ' +
        '(404 THUMBNAIL_UNAVAILABLE).',
    }),
  ),
  jwt: Type.Optional(Type.String({ description: 'The token, for `<img src>` which cannot send headers. Headers are read first.' })),
});
export type PhotoQuery = Static<typeof PhotoQuery>;

const FileContent = { schema: { type: 'string', format: 'binary' } } as const;

/** 200/206 bodies are the file's bytes, not JSON. */
export const PhotoResponse = {
  description:
    "The file's bytes. Content-Type is decided from the bytes (a PNG named .jpg is image/png); unknown types, and " +
    'markup or scripts whatever their bytes say, are application/octet-stream. Headers: ETag, Last-Modified, ' +
    "Accept-Ranges, `Cache-Control: private, max-age=3600`, `Content-Disposition: inline; filename*=UTF-8''<name>`, " +
    '`X-Content-Type-Options: nosniff`.',
  content: {
    'image/jpeg': FileContent,
    'image/png': FileContent,
    'image/webp': FileContent,
    'application/pdf': FileContent,
    'audio/*': FileContent,
    'application/octet-stream': FileContent,
  },
} as const;

const Id = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });
const IdText = Type.String({ pattern: '^[1-9][0-9]{0,9}$' });
const FileName = Type.String({
  minLength: 1,
  maxLength: 255,
  description:
    "A plain file name directly in the order's folder, as the attachment list gives it. No `/` (so nothing in " +
    '`thumbs/` or a subfolder), no `.`/`..`, backslash, NUL or %-escape: 400 FILE_PATH_INVALID.',
});

/** Whose folder a file is deleted from: an order's (the default) or an intervention's. */
const FolderOwner = Type.Union([Type.Literal('commande'), Type.Literal('fichinter')], {
  description:
    'Whose folder: `commande` (the default: `id` is an order, `commande/<ref>/`) or `fichinter` (`id` is an intervention, `ficheinter/<ref>/`).',
});

export const DeletePhotoBody = Type.Object(
  {
    id: Type.Optional(Type.Union([Id, IdText], { description: 'Order id (an integer; a string of digits is accepted too).' })),
    file: Type.Optional(FileName),
    element_type: Type.Optional(FolderOwner),
  },
  { description: 'The parameters; they may be given as query parameters instead.' },
);
export type DeletePhotoBody = Static<typeof DeletePhotoBody>;

export const DeletePhotoQuery = Type.Object({
  id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'Order id, when not in the body.' })),
  file: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'File name, when not in the body.' })),
  element_type: Type.Optional(FolderOwner),
});
export type DeletePhotoQuery = Static<typeof DeletePhotoQuery>;

export const DeletePhotoResponse = Type.Object({
  deleted: Type.Literal(true),
  name: Type.String({ description: 'The file name deleted.' }),
});
