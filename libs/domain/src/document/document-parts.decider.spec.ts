import { DeciderSpecification } from '../shared/decider.spec-helpers';
import { documentDecider } from './document.decider';
import { CreateDocument, ReplaceFields, SendDocument, UpdateDocument } from './document.commands';
import { DocumentEvent, DocumentPart, Field, ParticipantSetup } from './document.events';
import { absolutePage, layParts } from './document-parts';

/** Documents of several parts (issue 21 item 5): created, edited, fields per part, laid out at send. */
const spec = DeciderSpecification.for(documentDecider);

const DOC = '3f2b8c1e-7a4d-4e59-9c0b-1d2e3f4a5b6c';
const KIM = 'a0000001-0000-4000-8000-000000000001';
const T0 = '2024-05-01T09:00:00.000Z';
const T1 = '2024-05-01T10:00:00.000Z';
const HASH = (c: string) => c.repeat(64);

const contract: DocumentPart = { title: null, content_blob: { sha256: HASH('a'), byte_size: 100 }, content_format: 'html', file: null };
const consent: DocumentPart = { title: '개인정보 수집·이용 동의서', content_blob: null, content_format: 'pdf', file: { file_id: 'file_consent01', sha256: HASH('c'), byte_size: 2000, page_count: 2 } };
const rules: DocumentPart = { title: '취업규칙 확인서', content_blob: { sha256: HASH('d'), byte_size: 50 }, content_format: 'text', file: null };

const create = (parts: DocumentPart[] | undefined, over: Partial<CreateDocument> = {}): CreateDocument => ({
  type: 'CreateDocument',
  now: T0,
  document_id: DOC,
  organization_id: 'org',
  livemode: false,
  title: '근로계약서',
  content_blob: parts?.[0]?.content_blob ?? null,
  content_format: parts?.[0]?.content_format ?? 'html',
  file: parts?.[0]?.file ?? null,
  author_name: 'Acme',
  metadata: {},
  from_template: null,
  ...(parts ? { parts } : {}),
  ...over,
});

const created = (parts: DocumentPart[]): DocumentEvent => ({
  type: 'DocumentCreated',
  data: {
    document_id: DOC,
    organization_id: 'org',
    livemode: false,
    title: '근로계약서',
    content_blob: parts[0].content_blob,
    content_format: parts[0].content_format,
    file: parts[0].file,
    author_name: 'Acme',
    metadata: {},
    from_template: null,
    duplicated_from: null,
    created_at: T0,
    parts,
  },
});
const kim: ParticipantSetup = { id: KIM, name: 'Kim', phone: null, email: 'kim@example.com', role: 'signer', signing_order: 1, auth: 'none' };
const field = (over: Partial<Field>): Field => ({ id: 'f1', participant_id: KIM, type: 'signature', page: 1, x: 10, y: 70, width: 30, height: 10, required: true, upload_only: false, ...over });
const draft = (parts = [contract, consent]): DocumentEvent[] => [created(parts), { type: 'ParticipantAdded', data: { participant: kim, added_at: T0 } }];
const replace = (fields: Field[], part_page_counts?: Array<number | null>): ReplaceFields => ({ type: 'ReplaceFields', now: T1, fields, ...(part_page_counts ? { part_page_counts } : {}) });
const send = (parts: Array<{ first_page: number; page_count: number }> | undefined, page_count = 5): SendDocument => ({
  type: 'SendDocument',
  now: T1,
  expires_at: null,
  message: null,
  page_count,
  original_pdf: { sha256: HASH('e'), byte_size: 9000 },
  links: [{ participant_id: KIM, token_hash: HASH('1') }],
  ...(parts ? { parts } : {}),
});

describe('creating a document of several parts', () => {
  it('records every part; the first stands for the body (readers that know no parts see it)', () => {
    const state = spec.given([]).when(create([contract, consent, rules])).then([created([contract, consent, rules])]);
    expect(state).toMatchObject({ content_format: 'html', content_blob: contract.content_blob, parts: [contract, consent, rules], page_count: null });
  });

  it('knows the page count at once when every part is an uploaded PDF', () => {
    const state = spec.given([]).when(create([consent, consent])).then([created([consent, consent])]);
    expect(state.page_count).toBe(4);
  });

  it('a one-part document made with content records no parts, as before', () => {
    spec.given([]).when(create(undefined, { content_blob: contract.content_blob })).thenEvents(([e]) => {
      expect(e.type).toBe('DocumentCreated');
      expect('parts' in e.data).toBe(false);
    });
  });

  it('refuses an empty list, too many parts, and a part with both or neither body and file, naming it', () => {
    spec.given([]).when(create([])).thenThrows('missing_parameter', { param: 'parts' });
    spec.given([]).when(create(Array(11).fill(contract))).thenThrows('invalid_parameter', { param: 'parts' });
    spec.given([]).when(create([contract, { ...consent, content_blob: contract.content_blob }])).thenThrows('missing_parameter', { param: 'parts[1].content' });
    spec.given([]).when(create([contract, { ...rules, content_blob: null }])).thenThrows('missing_parameter', { param: 'parts[1].content' });
    spec.given([]).when(create([contract, { ...rules, content_format: 'pdf' }])).thenThrows('invalid_parameter', { param: 'parts[1].content_format' });
  });
});

describe('editing the parts of a draft', () => {
  const update = (over: Partial<UpdateDocument>): UpdateDocument => ({ type: 'UpdateDocument', now: T1, ...over });

  it('replaces every part; the body follows the new first part', () => {
    const state = spec.given(draft()).when(update({ parts: [consent, contract] })).then([{ type: 'DocumentUpdated', data: { parts: [consent, contract], updated_at: T1 } }]);
    expect(state).toMatchObject({ content_format: 'pdf', file: consent.file, content_blob: null, parts: [consent, contract] });
  });

  it('refuses content on a document with parts, and a change that strands a field', () => {
    spec.given(draft()).when(update({ content_blob: { sha256: HASH('f'), byte_size: 3 } })).thenThrows('invalid_parameter', { param: 'content' });
    const withField = [...draft(), { type: 'FieldsReplaced', data: { fields: [field({ part: 1 })], replaced_at: T0 } } as DocumentEvent];
    spec.given(withField).when(update({ parts: [contract] })).thenThrows('invalid_parameter', { param: 'parts', message: 'fields[0] is on part 1' });
  });
});

describe('fields on parts', () => {
  it('accepts a field on each part, pages counted within the part', () => {
    spec.given(draft()).when(replace([field({ id: 'a' }), field({ id: 'b', part: 1, page: 2 })], [3, 2])).thenEvents(([e]) => expect(e.type).toBe('FieldsReplaced'));
  });

  it('refuses a part the document does not have, and a page past its part', () => {
    spec.given(draft()).when(replace([field({ part: 2 })])).thenThrows('invalid_parameter', { param: 'fields[0].part', message: 'from 0 to 1' });
    spec.given(draft()).when(replace([field({ part: -1 })])).thenThrows('invalid_parameter', { param: 'fields[0].part' });
    // The uploaded part's two pages are known without a render.
    spec.given(draft()).when(replace([field({ part: 1, page: 3 })])).thenThrows('field_page_out_of_range', { param: 'fields[0].page', message: 'part 1 has 2 pages' });
    // The rendered part's, from the shell.
    spec.given(draft()).when(replace([field({ page: 4 })], [3, 2])).thenThrows('field_page_out_of_range', { param: 'fields[0].page' });
  });

  it('a one-part document takes part 0 only', () => {
    const single: DocumentEvent[] = [
      { ...created([contract]), data: { ...created([contract]).data, parts: undefined } } as DocumentEvent,
      { type: 'ParticipantAdded', data: { participant: kim, added_at: T0 } },
    ];
    spec.given(single).when(replace([field({ part: 0 })], undefined)).thenEvents(([e]) => expect(e.type).toBe('FieldsReplaced'));
    spec.given(single).when(replace([field({ part: 1 })])).thenThrows('invalid_parameter', { param: 'fields[0].part', message: 'one part' });
  });
});

describe('sending a document of parts', () => {
  const placed = [...draft(), { type: 'FieldsReplaced', data: { fields: [field({ id: 'a' }), field({ id: 'b', part: 1, page: 2 })], replaced_at: T0 } } as DocumentEvent];

  it('records where each part starts; fields map to pages of the joined PDF', () => {
    const layout = layParts([3, 2]);
    expect(layout).toEqual([
      { first_page: 1, page_count: 3 },
      { first_page: 4, page_count: 2 },
    ]);
    const state = spec.given(placed).when(send(layout)).thenEvents(([e]) => {
      expect(e).toMatchObject({ type: 'DocumentSent', data: { page_count: 5, parts: layout } });
    });
    expect(state.part_pages).toEqual(layout);
    expect(state.fields.map((f) => absolutePage(state, f))).toEqual([1, 5]);
  });

  it('refuses a field past the pages its part turned out to have, naming the part in the document-wide numbering', () => {
    // Field b is page 2 of part 1; part 1 rendered to one page, page 4 of the document: the field
    // would be page 5, the page number the API, the footers and the signing session use.
    spec.given(placed).when(send(layParts([3, 1]), 4)).thenThrows('field_page_out_of_range', {
      message: 'fields[1] is on page 5 but its part (part 1) is page 4 of the document\'s 4 pages (pages count across the whole document): move it with PUT /v1/documents/{id}/fields',
      param: 'fields[1].page',
    });
    spec.given(placed).when(send(layParts([1, 1]), 2)).thenThrows('field_page_out_of_range', {
      message: 'fields[1] is on page 3 but its part (part 1) is page 2 of the document\'s 2 pages (pages count across the whole document): move it with PUT /v1/documents/{id}/fields',
    });
  });

  it('a one-part document is sent exactly as before (no parts recorded), its pages absolute', () => {
    const single: DocumentEvent[] = [
      { ...created([contract]), data: { ...created([contract]).data, parts: undefined } } as DocumentEvent,
      { type: 'ParticipantAdded', data: { participant: kim, added_at: T0 } },
      { type: 'FieldsReplaced', data: { fields: [field({ page: 2 })], replaced_at: T0 } },
    ];
    const state = spec.given(single).when(send(undefined, 2)).thenEvents(([e]) => expect('parts' in e.data).toBe(false));
    expect(absolutePage(state, state.fields[0])).toBe(2);
  });
});
