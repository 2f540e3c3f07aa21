import { Decider, assertNever } from '../shared/decider';
import { conflict, invalid } from '../shared/domain-error';
import { MAX_SEAL_IMAGE_BYTES, MAX_SEAL_NAME, SealCreated, SealEvent, SealSource, SealType } from './seal.events';

export interface SealState {
  exists: boolean;
  id: string;
  organization_id: string;
  livemode: boolean;
  name: string;
  type: SealType;
  source: SealSource;
  company_name: string | null;
  restricted: boolean;
  image: SealCreated['data']['image'] | null;
  created_at: string;
}

export const initialSealState = (): SealState => ({
  exists: false,
  id: '',
  organization_id: '',
  livemode: false,
  name: '',
  type: 'corporate',
  source: 'generated',
  company_name: null,
  restricted: false,
  image: null,
  created_at: '',
});

/** The shell has rendered (generated) or inspected (uploaded) the image and stored its bytes. */
export type SealCommand = {
  type: 'CreateSeal';
  seal_id: string;
  organization_id: string;
  livemode: boolean;
  name: string;
  seal_type: SealType;
  source: SealSource;
  company_name: string | null;
  restricted: boolean;
  image: SealCreated['data']['image'];
  now: string;
};

const SEAL_ID = /^seal_[A-Za-z0-9]{8,64}$/;
const SHA256 = /^[0-9a-f]{64}$/;

export function evolveSeal(state: SealState, event: SealEvent): SealState {
  switch (event.type) {
    case 'SealCreated': {
      const d = event.data;
      return {
        exists: true,
        id: d.seal_id,
        organization_id: d.organization_id,
        livemode: d.livemode,
        name: d.name,
        type: d.type,
        source: d.source,
        company_name: d.company_name,
        restricted: d.restricted,
        image: d.image,
        created_at: d.created_at,
      };
    }
    default:
      return assertNever(event.type);
  }
}

export function decideSeal(command: SealCommand, state: SealState): SealEvent[] {
  switch (command.type) {
    case 'CreateSeal': {
      if (state.exists) throw conflict('seal_exists', 'The seal already exists.');
      if (!SEAL_ID.test(command.seal_id)) throw invalid('invalid_parameter', 'seal_id is malformed.', 'seal_id');
      const name = command.name.trim();
      if (!name) throw invalid('missing_parameter', 'name is required.', 'name');
      if (name.length > MAX_SEAL_NAME) throw invalid('invalid_parameter', `name must be at most ${MAX_SEAL_NAME} characters.`, 'name');
      if (command.seal_type !== 'corporate' && command.seal_type !== 'usage') {
        throw invalid('invalid_parameter', 'type must be corporate or usage.', 'type');
      }
      if (command.source !== 'generated' && command.source !== 'uploaded') {
        throw invalid('invalid_parameter', 'source must be generated or uploaded.', 'source');
      }
      if (command.source === 'generated' && !command.company_name?.trim()) {
        throw invalid('missing_parameter', 'company_name is required for a generated seal.', 'company_name');
      }
      if (command.source === 'uploaded' && command.company_name !== null) {
        throw invalid('invalid_parameter', 'company_name applies to generated seals only.', 'company_name');
      }
      const img = command.image;
      if (!SHA256.test(img.sha256) || !(img.byte_size > 0)) throw invalid('invalid_parameter', 'image is malformed.', 'image');
      if (command.source === 'uploaded' && img.byte_size > MAX_SEAL_IMAGE_BYTES) {
        throw invalid('file_too_large', 'image must be at most 1 MB.', 'image');
      }
      return [
        {
          type: 'SealCreated',
          data: {
            seal_id: command.seal_id,
            organization_id: command.organization_id,
            livemode: command.livemode,
            name,
            type: command.seal_type,
            source: command.source,
            company_name: command.source === 'generated' ? (command.company_name as string).trim() : null,
            restricted: command.restricted,
            image: { ...img },
            created_at: command.now,
          },
        },
      ];
    }
    default:
      return assertNever(command.type);
  }
}

export const sealDecider: Decider<SealState, SealCommand, SealEvent> = {
  initialState: initialSealState,
  evolve: evolveSeal,
  decide: decideSeal,
};
