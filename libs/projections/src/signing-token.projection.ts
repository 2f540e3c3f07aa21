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

/**
 * The links an event creates: every participant's at send, the replacement after a correction or a delegation. A
 * replaced token keeps its row: the lookup compares it with the stream's current token hash, so
 * the old link answers 404 from the moment the correction is appended.
 */
function linksOf(event: StoredEvent): Array<{ participant_id: string; token_hash: string }> {
  if (event.type === 'ParticipantCorrected' || event.type === 'ParticipantDelegated') {
    const link = event.data.link as { token_hash: string } | null;
    return link ? [{ participant_id: String(event.data.participant_id), token_hash: link.token_hash }] : [];
  }
  return event.data.links as Array<{ participant_id: string; token_hash: string }>;
}

export const signingTokenProjection: Projection = {
  name: 'signing_tokens',
  collections: [{ name: SIGNING_TOKENS }],
  handles: new Set(['DocumentSent', 'ParticipantCorrected', 'ParticipantDelegated']),
  keys: (event) => linksOf(event).map((l) => ({ collection: SIGNING_TOKENS, id: l.token_hash })),
  evolve(event: StoredEvent): Write[] {
    const links = linksOf(event);
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
