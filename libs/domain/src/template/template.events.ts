import { BodyRef, DocumentPart, ParticipantAuth, ParticipantRole, PartPages } from '../document/document.events';
import type { FieldAnchor } from '../document/field-anchor';
import { FieldSettings, FieldType } from '../document/field-types';
import { DomainEvent } from '../shared/decider';

/** Longest template body accepted, in UTF-16 units (the same bound as a document's content). */
export const MAX_TEMPLATE_CONTENT = 2_000_000;
export const MAX_TEMPLATE_NAME = 200;
/** A template's roles, as many as a document's participants in one batch. */
export const MAX_TEMPLATE_ROLES = 50;
export const MAX_TEMPLATE_FIELDS = 500;

/**
 * A participant to fill in when a document is made from the template: `role` is the template's
 * own name for it (employee, representative…), `participant_role` what it does on the document.
 */
export interface TemplateRole {
  role: string;
  participant_role: ParticipantRole;
  signing_order: number;
  auth: ParticipantAuth;
  /** Whoever fills the role signs for the organization (ParticipantSetup.representative); absent: false. */
  representative?: boolean;
}

/**
 * A field placed for a role: the shape PUT /v1/documents/{id}/fields takes, with `role` in place
 * of `participant_id`. Its id is stable across versions while the sender keeps it, and is what a
 * signature request's `values` name.
 */
export interface TemplateField extends FieldSettings {
  id: string;
  role: string;
  type: FieldType;
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
  required: boolean;
  upload_only: boolean;
  /** The part the field is on (templates of several parts); absent: part 0. */
  part?: number;
  /**
   * Placed by anchor text instead of coordinates: found when a document is made from the
   * template (its parts rendered then), exactly as PUT /v1/documents/{id}/fields finds it.
   * page/x/y/width/height are then a nominal box (page 1, the anchor's size) until that moment.
   */
  anchor?: FieldAnchor;
}

/** What one version of a template holds. */
export interface TemplateContract {
  name: string;
  /** HTML with {{variable}} placeholders, in the blob store (bodies never go into events). */
  content_blob: BodyRef;
  /** Placeholder names in order of first appearance, extracted when the body was given. */
  variables: string[];
  roles: TemplateRole[];
  fields: TemplateField[];
  /**
   * Where each part fell in the template's own render when it was saved (templates of several
   * parts with fields only): fields record their page within their part, and the API numbers
   * pages across the whole template by this, as it does a document's. Absent: not recorded.
   */
  part_pages?: PartPages[];
  /**
   * Several files (the shape of a document's parts, bodies with {{variable}} placeholders): a
   * document made from the template has these parts. content_blob is then part 0's body (empty
   * when part 0 is a PDF). Absent on templates of one body.
   */
  parts?: DocumentPart[];
}

export type TemplateCreated = DomainEvent<
  'TemplateCreated',
  {
    template_id: string;
    organization_id: string;
    livemode: boolean;
    name: string;
    content_blob: BodyRef;
    variables: string[];
    /** Absent in templates created before roles and fields (version 1, no roles, no fields). */
    roles?: TemplateRole[];
    fields?: TemplateField[];
    /** Only on templates made with several parts. */
    parts?: DocumentPart[];
    /** See TemplateContract.part_pages. */
    part_pages?: PartPages[];
    created_at: string;
  }
>;

/** A new version: the whole contract as it now stands (version 2, 3…). */
export type TemplateUpdated = DomainEvent<
  'TemplateUpdated',
  TemplateContract & {
    template_id: string;
    version: number;
    updated_at: string;
  }
>;

/** Archived: no longer listed nor usable; documents made from it keep what they copied. */
export type TemplateArchived = DomainEvent<'TemplateArchived', { template_id: string; version: number; archived_at: string }>;

export type TemplateEvent = TemplateCreated | TemplateUpdated | TemplateArchived;

export const TEMPLATE_EVENT_TYPES: readonly TemplateEvent['type'][] = ['TemplateCreated', 'TemplateUpdated', 'TemplateArchived'];

export const templateStreamId = (templateId: string) => `template-${templateId}`;
