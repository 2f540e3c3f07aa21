import { BodyRef, TEMPLATE_EVENT_TYPES, TemplateCreated } from '@dojang/domain';
import { StoredEvent } from '@dojang/event-store';
import { ReadDoc, Write } from '@dojang/read-store';
import { Projection } from './projection';

export const TEMPLATES = 'templates';

/** A document template: looked up by id when a document is created from it, and listed. */
export interface TemplateReadRow extends ReadDoc {
  organization_id: string;
  livemode: boolean;
  name: string;
  /** The body's blob (inline text for templates recorded before bodies left the events). */
  content_blob: BodyRef;
  /** Only in rows projected before that change, until a rebuild. */
  content?: string;
  variables: string[];
  created_at: string;
  /** created_at|id: newest-first listing with a stable cursor. */
  sort_key: string;
}

export const templateProjection: Projection = {
  name: 'templates',
  collections: [{ name: TEMPLATES, indexes: [['organization_id', 'livemode', 'sort_key']] }],
  handles: new Set(TEMPLATE_EVENT_TYPES),
  keys: (event) => [{ collection: TEMPLATES, id: String(event.data.template_id) }],
  evolve(event: StoredEvent): Write[] {
    const d = (event as unknown as TemplateCreated).data;
    const row: TemplateReadRow = {
      id: d.template_id,
      organization_id: d.organization_id,
      livemode: d.livemode,
      name: d.name,
      content_blob: d.content_blob,
      variables: d.variables,
      created_at: d.created_at,
      sort_key: `${d.created_at}|${d.template_id}`,
    };
    return [{ op: 'put', collection: TEMPLATES, doc: row }];
  },
};
