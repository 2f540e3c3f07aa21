import { BodyRef } from '../document/document.events';
import { DomainEvent } from '../shared/decider';

/** Longest template body accepted, in UTF-16 units (the same bound as a document's content). */
export const MAX_TEMPLATE_CONTENT = 2_000_000;
export const MAX_TEMPLATE_NAME = 200;

export type TemplateCreated = DomainEvent<
  'TemplateCreated',
  {
    template_id: string;
    organization_id: string;
    livemode: boolean;
    name: string;
    /** HTML with {{variable}} placeholders, in the blob store (bodies never go into events). */
    content_blob: BodyRef;
    /** Placeholder names in order of first appearance, extracted when the template was created. */
    variables: string[];
    created_at: string;
  }
>;

export type TemplateEvent = TemplateCreated;

export const TEMPLATE_EVENT_TYPES: readonly TemplateEvent['type'][] = ['TemplateCreated'];

export const templateStreamId = (templateId: string) => `template-${templateId}`;
