import { DeciderSpecification } from '../shared/decider.spec-helpers';
import { AddParticipants, CreateDocument, DocumentCommand } from './document.commands';
import { DocumentEvent, ParticipantSetup } from './document.events';
import { documentSequence } from './document-sequence.decider';

/** Several document commands as one decision (a document made from a template): all or nothing. */
const spec = DeciderSpecification.for(documentSequence);

const DOC = '3f2b8c1e-7a4d-4e59-9c0b-1d2e3f4a5b6d';
const T0 = '2024-05-01T09:00:00.000Z';
const kim: ParticipantSetup = { id: 'a0000001-0000-4000-8000-000000000001', name: '김민지', phone: null, email: 'kim@example.com', role: 'signer', signing_order: 1, auth: 'none' };

const create: CreateDocument = {
  type: 'CreateDocument',
  now: T0,
  document_id: DOC,
  organization_id: 'org',
  livemode: false,
  title: '근로계약서',
  content_blob: { sha256: 'a'.repeat(64), byte_size: 100 },
  content_format: 'html',
  file: null,
  author_name: 'Acme',
  metadata: {},
  from_template: null,
};
const add = (participants: ParticipantSetup[]): AddParticipants => ({ type: 'AddParticipants', now: T0, participants });

describe('documentSequence', () => {
  it('decides each command on the state the ones before it left: a participant is added to the document created just before', () => {
    spec
      .given([])
      .when([create, add([kim])] satisfies DocumentCommand[])
      .thenEvents((events: DocumentEvent[]) => {
        expect(events.map((e) => e.type)).toEqual(['DocumentCreated', 'ParticipantAdded']);
      });
  });

  it('writes nothing when a later command is refused, though the earlier ones alone would pass', () => {
    // Adding to a document that does not exist yet is refused; so is the whole sequence.
    spec.given([]).when([add([kim]), create]).thenThrows('document_not_found', 'not_found');
  });

  it('decides an empty sequence as no events', () => {
    spec.given([]).when([]).thenNothing();
  });
});
