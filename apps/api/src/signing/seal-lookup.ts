import { ReadDoc } from '@dojang/read-store';

/** The seals read model (written by the seals slice): enough to stamp a seal by id. */
export const SEALS = 'seals';

export interface SealRow extends ReadDoc {
  organization_id: string;
  livemode: boolean;
  name: string;
  type: 'corporate' | 'usage';
  source: 'generated' | 'uploaded';
  restricted: boolean;
  image_sha256: string;
  image_byte_size: number;
  image_mime?: 'image/png' | 'image/jpeg';
  created_at: string;
}
