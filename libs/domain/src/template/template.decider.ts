import { Decider, assertNever } from '../shared/decider';
import { DomainError, conflict, invalid, notFound } from '../shared/domain-error';
import { KEY_NAME_RULE, MAX_ROLE_NAME, isRoleName, keyName } from '../shared/key-names';
import { isBuiltInKeyName } from '../shared/client-keys';
import { BlobPointer, BodyRef, DocumentPart, Field } from '../document/document.events';
import { layParts, validateParts } from '../document/document-parts';
import { validateFields } from '../document/document.decider';
import {
  MAX_TEMPLATE_CONTENT,
  MAX_TEMPLATE_FIELDS,
  MAX_TEMPLATE_NAME,
  MAX_TEMPLATE_ROLES,
  TemplateContract,
  TemplateEvent,
  TemplateField,
  TemplateRole,
} from './template.events';

export interface TemplateState extends TemplateContract {
  exists: boolean;
  id: string;
  organization_id: string;
  livemode: boolean;
  /** 1 at creation, one more per TemplateUpdated. */
  version: number;
  archived: boolean;
  content_blob: BodyRef;
  created_at: string;
  updated_at: string;
}

export const initialTemplateState = (): TemplateState => ({
  exists: false,
  id: '',
  organization_id: '',
  livemode: false,
  version: 0,
  archived: false,
  name: '',
  content_blob: { sha256: '', byte_size: 0 },
  variables: [],
  roles: [],
  fields: [],
  created_at: '',
  updated_at: '',
});

/** The shell extracts the placeholder names (libs/seals) so the domain stays free of parsing. */
export type CreateTemplate = {
  type: 'CreateTemplate';
  template_id: string;
  organization_id: string;
  livemode: boolean;
  name: string;
  /** The body, already in the blob store (after validateTemplateContent). */
  content_blob: BlobPointer;
  variables: string[];
  roles?: TemplateRole[];
  fields?: TemplateField[];
  /** Several files, bodies already stored; content_blob is then part 0's (empty when it is a PDF). */
  parts?: DocumentPart[];
  /**
   * Each part's page count (one entry for a template of one body), as the shell rendered the
   * template's own bodies (placeholders as written) or read its PDFs: fields are checked to lie on
   * them. Absent: not known (no field to check).
   */
  page_counts?: number[];
  now: string;
};

/** A new version: what is given replaces the current one, the rest is carried over. */
export type UpdateTemplate = {
  type: 'UpdateTemplate';
  name?: string;
  /** A new body with its placeholder names. */
  body?: { content_blob: BlobPointer; variables: string[] };
  roles?: TemplateRole[];
  fields?: TemplateField[];
  /** Every part, replacing the current ones (a new body alone makes it a template of one body again). */
  parts?: { parts: DocumentPart[]; variables: string[] };
  /** The resulting template's page counts per part (see CreateTemplate.page_counts). */
  page_counts?: number[];
  now: string;
};

export type ArchiveTemplate = { type: 'ArchiveTemplate'; now: string };

export type TemplateCommand = CreateTemplate | UpdateTemplate | ArchiveTemplate;

/**
 * The body's rules, checked by the shell before it stores the body: the decider sees only the
 * blob's hash and size.
 */
export function validateTemplateContent(content: string): void {
  if (!content.trim()) throw invalid('missing_parameter', 'content is required.', 'content');
  if (content.length > MAX_TEMPLATE_CONTENT) throw invalid('invalid_parameter', 'content is too long.', 'content');
}

const TEMPLATE_ID = /^tmpl_[A-Za-z0-9]{8,64}$/;
const PARTICIPANT_ROLES = ['signer', 'reviewer', 'cc'];
const AUTHS = ['sms_pin', 'none'];

/**
 * Roles and the fields placed for them, checked with the very rules PUT /v1/documents/{id}/fields
 * applies (validateFields), a field's role standing in for its participant, and what sending would
 * refuse that the template alone decides: a signer role without a required field, a field past its
 * part's last page (`pageCounts`, the template's own render). What only a filled-in document can
 * tell (its variables' length, a participant's e-mail) is checked again when a document is made.
 */
export function validateTemplateContract(roles: TemplateRole[], fields: TemplateField[], parts = 1, pageCounts?: number[]): void {
  if (!Array.isArray(roles)) throw invalid('invalid_parameter', 'roles must be an array.', 'roles');
  if (roles.length > MAX_TEMPLATE_ROLES) throw invalid('invalid_parameter', `A template has at most ${MAX_TEMPLATE_ROLES} roles.`, 'roles');
  const names = new Set<string>();
  roles.forEach((r, i) => {
    const at = `roles[${i}]`;
    if (typeof r.role !== 'string' || !r.role) throw invalid('missing_parameter', `${at}.role must name the role (e.g. employee).`, `${at}.role`);
    // A role name is a CSV column prefix (`직원.phone`) and an error param (`roles.직원.phone`): the shared rule, no dots.
    if (!isRoleName(r.role) || r.role !== keyName(r.role)) {
      throw invalid('invalid_parameter', `${at}.role must be ${KEY_NAME_RULE} (at most ${MAX_ROLE_NAME}); got "${r.role.slice(0, 60)}".`, `${at}.role`);
    }
    if (isBuiltInKeyName(r.role)) {
      throw invalid('invalid_parameter', `${at}.role "${r.role}" is the name of a built-in property of JavaScript objects and cannot name a role; choose another (e.g. ${r.role}_role).`, `${at}.role`);
    }
    if (names.has(r.role)) throw invalid('invalid_parameter', `${at}.role "${r.role}" is listed twice; role names are unique.`, `${at}.role`);
    names.add(r.role);
    if (!PARTICIPANT_ROLES.includes(r.participant_role)) throw invalid('invalid_parameter', `${at}.participant_role must be one of ${PARTICIPANT_ROLES.join(', ')}.`, `${at}.participant_role`);
    if (!Number.isInteger(r.signing_order) || r.signing_order < 1 || r.signing_order > 1000) {
      throw invalid('invalid_parameter', `${at}.signing_order must be an integer from 1 to 1000.`, `${at}.signing_order`);
    }
    if (!AUTHS.includes(r.auth)) throw invalid('invalid_parameter', `${at}.auth must be one of ${AUTHS.join(', ')}.`, `${at}.auth`);
    if (r.representative && r.participant_role === 'cc') {
      throw invalid('invalid_parameter', `${at}.representative applies to signers and reviewers: a cc stamps no seal.`, `${at}.representative`);
    }
  });
  if (!Array.isArray(fields)) throw invalid('invalid_parameter', 'fields must be an array.', 'fields');
  if (fields.length > MAX_TEMPLATE_FIELDS) throw invalid('invalid_parameter', `A template has at most ${MAX_TEMPLATE_FIELDS} fields.`, 'fields');
  const ids = new Set<string>();
  fields.forEach((f, i) => {
    if (!names.has(f.role)) {
      throw invalid('invalid_parameter', `fields[${i}].role "${String(f.role).slice(0, 60)}" is not one of the template's roles (${[...names].join(', ') || 'none'}).`, `fields[${i}].role`);
    }
    if (ids.has(f.id)) throw invalid('invalid_parameter', `fields[${i}].id is used twice.`, `fields[${i}].id`);
    ids.add(f.id);
  });
  const { placed, owners } = asDocumentFields(fields, roles);
  // An anchored field's box is where its anchor is found: known only in the render (checked then,
  // templatePageCounts) and in each document made from the template (ReplaceFields).
  validateFields(placed, owners, parts, (i) => !fields[i].anchor);
  // What sending would refuse (sendProblemsOf), refused at save instead: a signer role with
  // nothing to fill makes every document from the template unsendable. A template with no field
  // at all is not laid out yet (its fields are placed next, in the field-placement editor): a
  // send from it is still refused, by the send itself.
  if (fields.length > 0) roles.forEach((r, i) => {
    if (r.participant_role === 'signer' && !fields.some((f) => f.role === r.role && f.required)) {
      throw invalid(
        'signer_without_required_field',
        `roles[${i}] ("${r.role}") is a signer with no required field: place at least one required field for it (fields[].role "${r.role}"), or make it a reviewer or cc.`,
        `roles[${i}].role`,
      );
    }
  });
  if (pageCounts) {
    // A field records its page within its part, but the integrator numbers a template's pages
    // across the whole template (as a document's): the refusal speaks that numbering. The shell
    // refuses a given field's page first (pageWithinPart); this backstop is what a kept field
    // meets when new parts leave it behind, or a one-body template's field past its last page.
    const layout = layParts(pageCounts);
    const total = pageCounts.reduce((sum, n) => sum + n, 0);
    const plural = (n: number) => `${n} page${n === 1 ? '' : 's'}`;
    fields.forEach((f, i) => {
      // An anchored field's page is where its anchor is found (the shell resolved it already).
      if (f.anchor) return;
      const at = layout[f.part ?? 0];
      if (at === undefined || f.page <= at.page_count) return;
      if (layout.length === 1) {
        throw invalid('field_page_out_of_range', `fields[${i}].page is ${f.page} but the template has ${plural(total)}.`, `fields[${i}].page`);
      }
      const last = at.first_page + at.page_count - 1;
      const range = at.page_count === 0 ? 'no page' : at.page_count === 1 ? `page ${at.first_page}` : `pages ${at.first_page} to ${last}`;
      throw invalid(
        'field_page_out_of_range',
        `fields[${i}].page is ${at.first_page + f.page - 1} but its part (part ${f.part ?? 0}) is ${range} of the template's ${plural(total)} (pages count across the whole template).`,
        `fields[${i}].page`,
      );
    });
  }
}

/** A part as recorded: bodies by hash and size only (as a document records its parts). */
const partPointer = (part: DocumentPart): DocumentPart => ({
  ...part,
  content_blob: part.content_blob && { sha256: part.content_blob.sha256, byte_size: part.content_blob.byte_size },
});

/** Templates of several parts: content_blob is part 0's body, or empty when part 0 is a PDF. */
const firstBody = (parts: DocumentPart[]): BodyRef => parts[0].content_blob ?? { sha256: '', byte_size: 0 };

/**
 * The fields as a document would hold them, each role standing in for its participant. Contact
 * details are not known yet: owners count as having both, the document checks them at send.
 */
function asDocumentFields(fields: TemplateField[], roles: TemplateRole[]) {
  const placed: Field[] = fields.map(({ role, ...f }) => ({ ...f, participant_id: role }));
  const owners = roles.map((r) => ({ id: r.role, name: r.role, email: '?', phone: '?', role: r.participant_role, signing_order: r.signing_order, auth: r.auth }));
  return { placed, owners };
}

function validateName(raw: string): string {
  const name = raw.trim();
  if (!name) throw invalid('missing_parameter', 'name is required.', 'name');
  if (name.length > MAX_TEMPLATE_NAME) throw invalid('invalid_parameter', `name must be at most ${MAX_TEMPLATE_NAME} characters.`, 'name');
  return name;
}

const archivedError = () => new DomainError('conflict', 'template_archived', 'The template is archived: it can no longer be changed or used. Create a new template instead.');

function requireUsable(state: TemplateState): void {
  if (!state.exists) throw notFound('template_not_found', 'No such template.');
  if (state.archived) throw archivedError();
}

export function evolveTemplate(state: TemplateState, event: TemplateEvent): TemplateState {
  switch (event.type) {
    case 'TemplateCreated': {
      const d = event.data;
      return {
        exists: true,
        id: d.template_id,
        organization_id: d.organization_id,
        livemode: d.livemode,
        version: 1,
        archived: false,
        name: d.name,
        content_blob: d.content_blob,
        variables: d.variables,
        roles: d.roles ?? [],
        fields: d.fields ?? [],
        ...(d.parts ? { parts: d.parts } : {}),
        ...(d.part_pages ? { part_pages: d.part_pages } : {}),
        created_at: d.created_at,
        updated_at: d.created_at,
      };
    }
    case 'TemplateUpdated': {
      const d = event.data;
      return {
        ...state,
        version: d.version,
        name: d.name,
        content_blob: d.content_blob,
        variables: d.variables,
        roles: d.roles,
        fields: d.fields,
        parts: d.parts,
        part_pages: d.part_pages,
        updated_at: d.updated_at,
      };
    }
    case 'TemplateArchived':
      return { ...state, archived: true, updated_at: event.data.archived_at };
    default:
      return assertNever(event);
  }
}

/** The template as it stood at `version` (a document or a bulk send keeps the version it came from). */
export function templateAtVersion(events: readonly TemplateEvent[], version: number): TemplateState | null {
  let state = initialTemplateState();
  for (const event of events) {
    if (event.type === 'TemplateUpdated' && event.data.version > version) break;
    state = evolveTemplate(state, event);
  }
  return state.exists && state.version === version ? state : null;
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export function decideTemplate(command: TemplateCommand, state: TemplateState): TemplateEvent[] {
  switch (command.type) {
    case 'CreateTemplate': {
      if (state.exists) throw conflict('template_exists', 'The template already exists.');
      if (!TEMPLATE_ID.test(command.template_id)) throw invalid('invalid_parameter', 'template_id is malformed.', 'template_id');
      const name = validateName(command.name);
      const parts = command.parts?.map(partPointer);
      if (parts) validateParts(parts);
      else if (!command.content_blob.byte_size) throw invalid('missing_parameter', 'content is required.', 'content');
      const roles = command.roles ?? [];
      const fields = command.fields ?? [];
      validateTemplateContract(roles, fields, parts?.length ?? 1, command.page_counts);
      return [
        {
          type: 'TemplateCreated',
          data: {
            template_id: command.template_id,
            organization_id: command.organization_id,
            livemode: command.livemode,
            name,
            content_blob: parts ? firstBody(parts) : { sha256: command.content_blob.sha256, byte_size: command.content_blob.byte_size },
            variables: [...command.variables],
            // Templates without roles record the event exactly as before.
            ...(command.roles !== undefined || command.fields !== undefined ? { roles, fields } : {}),
            ...(parts ? { parts } : {}),
            ...(parts && command.page_counts && fields.length > 0 ? { part_pages: layParts(command.page_counts) } : {}),
            created_at: command.now,
          },
        },
      ];
    }
    case 'UpdateTemplate': {
      requireUsable(state);
      const name = command.name !== undefined ? validateName(command.name) : state.name;
      if (command.body && !command.body.content_blob.byte_size) throw invalid('missing_parameter', 'content must not be empty.', 'content');
      if (command.body && command.parts) throw invalid('invalid_parameter', 'Give content or parts, not both.', 'parts');
      // New parts replace the current ones; a new body alone makes the template one body again.
      const parts = command.parts ? command.parts.parts.map(partPointer) : command.body ? undefined : state.parts;
      if (command.parts) validateParts(parts as DocumentPart[]);
      const content_blob = command.parts
        ? firstBody(parts as DocumentPart[])
        : command.body
          ? { sha256: command.body.content_blob.sha256, byte_size: command.body.content_blob.byte_size }
          : state.content_blob;
      const variables = command.parts ? [...command.parts.variables] : command.body ? [...command.body.variables] : state.variables;
      const roles = command.roles ?? state.roles;
      const fields = command.fields ?? state.fields;
      if (command.roles !== undefined && command.fields === undefined) {
        // The fields kept must still have their roles: name the field, and say to send both.
        const names = new Set(roles.map((r) => r.role));
        const orphan = fields.findIndex((f) => !names.has(f.role));
        if (orphan >= 0) {
          throw invalid('invalid_parameter', `roles leaves out "${fields[orphan].role}", which fields[${orphan}] is placed for: send fields too.`, 'roles');
        }
      }
      validateTemplateContract(roles, fields, parts?.length ?? 1, command.page_counts);
      const partPages = parts && command.page_counts && fields.length > 0 ? { part_pages: layParts(command.page_counts) } : {};
      const next = { name, content_blob, variables, roles, fields, ...(parts ? { parts } : {}), ...partPages };
      const current = {
        name: state.name,
        content_blob: state.content_blob,
        variables: state.variables,
        roles: state.roles,
        fields: state.fields,
        ...(state.parts ? { parts: state.parts } : {}),
        ...(state.part_pages ? { part_pages: state.part_pages } : {}),
      };
      // The same contract again is not a new version: a retried update changes nothing.
      if (sameJson(next, current)) return [];
      return [{ type: 'TemplateUpdated', data: { template_id: state.id, version: state.version + 1, ...next, updated_at: command.now } }];
    }
    case 'ArchiveTemplate':
      if (!state.exists) throw notFound('template_not_found', 'No such template.');
      if (state.archived) return [];
      return [{ type: 'TemplateArchived', data: { template_id: state.id, version: state.version, archived_at: command.now } }];
    default:
      return assertNever(command);
  }
}

export const templateDecider: Decider<TemplateState, TemplateCommand, TemplateEvent> = {
  initialState: initialTemplateState,
  evolve: evolveTemplate,
  decide: decideTemplate,
};
