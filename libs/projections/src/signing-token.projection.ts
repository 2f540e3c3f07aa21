import { StoredEvent } from '@dojang/event-store';
import { ReadDoc, Write } from '@dojang/read-store';
import { Projection } from './projection';
import { documentIdOf } from './document.projection';

export const SIGNING_TOKENS = 'signing_tokens';

/** Looks a signing link up by the SHA-256 of its token; the token itself is never stored. */
export interface SigningTokenRow extends ReadDoc {
  document_id: string;
  participant_id: string;
  organization_id: string;
  livemode: boolean;
}

export const signingTokenProjection: Projection = {
  name: 'signing_tokens',
  collections: [{ name: SIGNING_TOKENS }],
  handles: new Set(['DocumentSent']),
  keys: (event) => (event.data.links as Array<{ token_hash: string }>).map((l) => ({ collection: SIGNING_TOKENS, id: l.token_hash })),
  evolve(event: StoredEvent): Write[] {
    const links = event.data.links as Array<{ participant_id: string; token_hash: string }>;
    return links.map((l) => ({
      op: 'put' as const,
      collection: SIGNING_TOKENS,
      doc: {
        id: l.token_hash,
        document_id: documentIdOf(event),
        participant_id: l.participant_id,
        organization_id: String(event.metadata.organization_id),
        livemode: Boolean(event.metadata.livemode),
      } satisfies SigningTokenRow,
    }));
  },
};
