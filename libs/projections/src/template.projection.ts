import { BodyRef, DocumentPart, PartPages, TEMPLATE_EVENT_TYPES, TemplateEvent, TemplateField, TemplateRole } from '@dojang/domain';
import { StoredEvent } from '@dojang/event-store';
import { ReadDoc, Write } from '@dojang/read-store';
import { Projection, RowLookup } from './projection';

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
  /** The current version's roles and fields (empty for templates made before they existed). */
  roles: TemplateRole[];
  fields: TemplateField[];
  /** The current version's parts (templates of several files only). */
  parts?: DocumentPart[];
  /** Where each part fell in the template's render at save (TemplateContract.part_pages). */
  part_pages?: PartPages[];
  version: number;
  /** Archived templates are not listed and cannot be used; GET still shows them. */
  archived: boolean;
  created_at: string;
  updated_at: string;
  /** created_at|id: newest-first listing with a stable cursor. */
  sort_key: string;
}

export const templateProjection: Projection = {
  name: 'templates',
  // 2: versions, roles, fields and archiving (a rebuild gives every row `archived`, which the list filters on).
  version: 2,
  collections: [{ name: TEMPLATES, indexes: [['organization_id', 'livemode', 'archived', 'sort_key']] }],
  handles: new Set(TEMPLATE_EVENT_TYPES),
  keys: (event) => [{ collection: TEMPLATES, id: String(event.data.template_id) }],
  evolve(stored: StoredEvent, rows: RowLookup): Write[] {
    const event = stored as unknown as TemplateEvent;
    if (event.type === 'TemplateCreated') {
      const d = event.data;
      const row: TemplateReadRow = {
        id: d.template_id,
        organization_id: d.organization_id,
        livemode: d.livemode,
        name: d.name,
        content_blob: d.content_blob,
        variables: d.variables,
        roles: d.roles ?? [],
        fields: d.fields ?? [],
        ...(d.parts ? { parts: d.parts } : {}),
        ...(d.part_pages ? { part_pages: d.part_pages } : {}),
        version: 1,
        archived: false,
        created_at: d.created_at,
        updated_at: d.created_at,
        sort_key: `${d.created_at}|${d.template_id}`,
      };
      return [{ op: 'put', collection: TEMPLATES, doc: row }];
    }
    const current = rows(TEMPLATES, event.data.template_id) as TemplateReadRow | null;
    if (!current) return [];
    if (event.type === 'TemplateUpdated') {
      const d = event.data;
      // Setting the version (not adding one) keeps a replay of the same event a no-op.
      const { content: _inline, parts: _parts, part_pages: _pages, ...rest } = current;
      const row: TemplateReadRow = {
        ...rest,
        name: d.name,
        content_blob: d.content_blob,
        variables: d.variables,
        roles: d.roles,
        fields: d.fields,
        ...(d.parts ? { parts: d.parts } : {}),
        ...(d.part_pages ? { part_pages: d.part_pages } : {}),
        version: d.version,
        updated_at: d.updated_at,
      };
      return [{ op: 'put', collection: TEMPLATES, doc: row }];
    }
    return [{ op: 'put', collection: TEMPLATES, doc: { ...current, archived: true, updated_at: event.data.archived_at } }];
  },
};
