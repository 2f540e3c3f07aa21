import { SEAL_EVENT_TYPES, SealCreated } from '@dojang/domain';
import { StoredEvent } from '@dojang/event-store';
import { ReadDoc, Write } from '@dojang/read-store';
import { Projection } from './projection';

export const SEALS = 'seals';

/** An organization seal: listed, and looked up by id when a signer stamps a seal field with it. */
export interface SealReadRow extends ReadDoc {
  organization_id: string;
  livemode: boolean;
  name: string;
  type: 'corporate' | 'usage';
  source: 'generated' | 'uploaded';
  company_name: string | null;
  restricted: boolean;
  image_sha256: string;
  image_byte_size: number;
  image_mime: 'image/png' | 'image/jpeg';
  image_width: number;
  image_height: number;
  created_at: string;
  sort_key: string;
}

export const sealProjection: Projection = {
  name: 'seals',
  collections: [{ name: SEALS, indexes: [['organization_id', 'livemode', 'sort_key']] }],
  handles: new Set(SEAL_EVENT_TYPES),
  keys: (event) => [{ collection: SEALS, id: String(event.data.seal_id) }],
  evolve(event: StoredEvent): Write[] {
    const d = (event as unknown as SealCreated).data;
    const row: SealReadRow = {
      id: d.seal_id,
      organization_id: d.organization_id,
      livemode: d.livemode,
      name: d.name,
      type: d.type,
      source: d.source,
      company_name: d.company_name,
      restricted: d.restricted,
      image_sha256: d.image.sha256,
      image_byte_size: d.image.byte_size,
      image_mime: d.image.mime,
      image_width: d.image.width,
      image_height: d.image.height,
      created_at: d.created_at,
      sort_key: `${d.created_at}|${d.seal_id}`,
    };
    return [{ op: 'put', collection: SEALS, doc: row }];
  },
};
