import { DomainEvent } from '../shared/decider';
import { BlobPointer } from '../document/document.events';

export type SealType = 'corporate' | 'usage';
export type SealSource = 'generated' | 'uploaded';

export const MAX_SEAL_NAME = 100;
/** Uploaded seal images are at most 1 MB (checked by their bytes in the shell, kept here as an invariant). */
export const MAX_SEAL_IMAGE_BYTES = 1024 * 1024;

export type SealCreated = DomainEvent<
  'SealCreated',
  {
    seal_id: string;
    organization_id: string;
    livemode: boolean;
    name: string;
    type: SealType;
    source: SealSource;
    /** The name the image was generated from; null for an uploaded image. */
    company_name: string | null;
    restricted: boolean;
    /** The PNG or JPEG in the blob store; events never carry the bytes. */
    image: BlobPointer & { mime: 'image/png' | 'image/jpeg'; width: number; height: number };
    created_at: string;
  }
>;

export type SealEvent = SealCreated;

export const SEAL_EVENT_TYPES: readonly SealEvent['type'][] = ['SealCreated'];

export const sealStreamId = (sealId: string) => `seal-${sealId}`;
