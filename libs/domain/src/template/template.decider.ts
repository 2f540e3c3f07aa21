import { Decider, assertNever } from '../shared/decider';
import { conflict, invalid } from '../shared/domain-error';
import { BlobPointer, BodyRef } from '../document/document.events';
import { MAX_TEMPLATE_CONTENT, MAX_TEMPLATE_NAME, TemplateEvent } from './template.events';

export interface TemplateState {
  exists: boolean;
  id: string;
  organization_id: string;
  livemode: boolean;
  name: string;
  content_blob: BodyRef | null;
  variables: string[];
  created_at: string;
}

export const initialTemplateState = (): TemplateState => ({
  exists: false,
  id: '',
  organization_id: '',
  livemode: false,
  name: '',
  content_blob: null,
  variables: [],
  created_at: '',
});

/** The shell extracts the placeholder names (libs/seals) so the domain stays free of parsing. */
export type TemplateCommand = {
  type: 'CreateTemplate';
  template_id: string;
  organization_id: string;
  livemode: boolean;
  name: string;
  /** The body, already in the blob store (after validateTemplateContent). */
  content_blob: BlobPointer;
  variables: string[];
  now: string;
};

/**
 * The body's rules, checked by the shell before it stores the body: the decider sees only the
 * blob's hash and size.
 */
export function validateTemplateContent(content: string): void {
  if (!content.trim()) throw invalid('missing_parameter', 'content is required.', 'content');
  if (content.length > MAX_TEMPLATE_CONTENT) throw invalid('invalid_parameter', 'content is too long.', 'content');
}

const TEMPLATE_ID = /^tmpl_[A-Za-z0-9]{8,64}$/;

export function evolveTemplate(state: TemplateState, event: TemplateEvent): TemplateState {
  switch (event.type) {
    case 'TemplateCreated': {
      const d = event.data;
      return {
        exists: true,
        id: d.template_id,
        organization_id: d.organization_id,
        livemode: d.livemode,
        name: d.name,
        content_blob: d.content_blob,
        variables: d.variables,
        created_at: d.created_at,
      };
    }
    default:
      return assertNever(event.type);
  }
}

export function decideTemplate(command: TemplateCommand, state: TemplateState): TemplateEvent[] {
  switch (command.type) {
    case 'CreateTemplate': {
      if (state.exists) throw conflict('template_exists', 'The template already exists.');
      if (!TEMPLATE_ID.test(command.template_id)) throw invalid('invalid_parameter', 'template_id is malformed.', 'template_id');
      const name = command.name.trim();
      if (!name) throw invalid('missing_parameter', 'name is required.', 'name');
      if (name.length > MAX_TEMPLATE_NAME) throw invalid('invalid_parameter', `name must be at most ${MAX_TEMPLATE_NAME} characters.`, 'name');
      if (!command.content_blob.byte_size) throw invalid('missing_parameter', 'content is required.', 'content');
      return [
        {
          type: 'TemplateCreated',
          data: {
            template_id: command.template_id,
            organization_id: command.organization_id,
            livemode: command.livemode,
            name,
            content_blob: { sha256: command.content_blob.sha256, byte_size: command.content_blob.byte_size },
            variables: [...command.variables],
            created_at: command.now,
          },
        },
      ];
    }
    default:
      return assertNever(command.type);
  }
}

export const templateDecider: Decider<TemplateState, TemplateCommand, TemplateEvent> = {
  initialState: initialTemplateState,
  evolve: evolveTemplate,
  decide: decideTemplate,
};
