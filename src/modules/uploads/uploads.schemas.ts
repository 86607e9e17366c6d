/** Request and response schemas of the upload endpoints (5 and 19). */
import { Type, type Static } from 'typebox';
import { RowId } from '../common/common.schemas.js';
import { PhotoEvidence } from '../photo-evidence/photo-evidence.schemas.js';

export const UploadPhotoQuery = Type.Object({
  id: RowId('Order id (llx_commande.rowid).'),
  action: Type.String({ maxLength: 64, description: 'Must be `upload_photo`; any other action is 400 ACTION_UNKNOWN.' }),
});

export const UploadInterventionPhotoQuery = Type.Object({
  id: RowId('Intervention id (llx_fichinter.rowid).'),
  action: Type.String({ maxLength: 64, description: 'Must be `upload_photo`; any other action is 400 ACTION_UNKNOWN.' }),
});

export const UploadVoiceQuery = Type.Object({
  id: RowId('Order id (llx_commande.rowid), or intervention id with `element_type=fichinter`.'),
  element_type: Type.Optional(
    Type.Union([Type.Literal('commande'), Type.Literal('fichinter')], {
      description: 'Whose folder: `commande` (the default, `commande/<ref>/`) or `fichinter` (`ficheinter/<ref>/`).',
    }),
  ),
});

export const UploadResponse = Type.Object(
  {
    name: Type.String({
      description:
        'Stored file name in the order folder (cleaned as dol_sanitizeFileName, extension from the detected type, `_2`, `_3` … when taken).',
    }),
    size: Type.Integer({ minimum: 0, description: 'Bytes.' }),
    type: Type.String({ description: 'MIME type detected from the bytes, e.g. image/jpeg, audio/ogg.' }),
    mtime: Type.Integer({ description: 'Modification time, Unix seconds.' }),
    url: Type.String({ description: 'The file endpoint link: /api/photo.php?modulepart=commande&file=<folder>/<name> (URI-encoded).' }),
    thumb_small_url: Type.Union([Type.String(), Type.Null()], {
      description: 'Link to the 480×270 thumbnail (`&size=small`); null for audio and HEIC/HEIF.',
    }),
    thumb_mini_url: Type.Union([Type.String(), Type.Null()], {
      description: 'Link to the 128×72 thumbnail (`&size=mini`); null for audio and HEIC/HEIF.',
    }),
    evidence: Type.Union([PhotoEvidence, Type.Null()], {
      description: 'For a photo, what the service recorded on receiving it (see PhotoEvidence); null for a voice recording.',
    }),
  },
  {
    description: 'The new attachment, in the shape of the order attachment list (GET /api/orders.php?id=…&action=photos), plus `evidence`.',
  },
);
export type UploadResponseBody = Static<typeof UploadResponse>;
