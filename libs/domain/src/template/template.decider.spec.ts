import { DeciderSpecification } from '../shared/decider.spec-helpers';
import { DomainError } from '../shared/domain-error';
import { CreateTemplate, TemplateCommand, templateAtVersion, templateDecider, validateTemplateContent } from './template.decider';
import { instantiateTemplate } from './template-instance';
import { MAX_TEMPLATE_CONTENT, MAX_TEMPLATE_NAME, TemplateEvent, TemplateField, TemplateRole, templateStreamId } from './template.events';

const spec = DeciderSpecification.for(templateDecider);
const T0 = '2026-03-02T09:00:00.000Z';
const ID = 'tmpl_0123456789abcdef01234567';
const ORG = 'org_0123456789abcdef01234567';
/** The body is in the blob store; the command and the event carry its SHA-256 and size. */
const BODY = { sha256: 'a'.repeat(64), byte_size: 57 };

const create = (over: Partial<CreateTemplate> = {}): CreateTemplate => ({
  type: 'CreateTemplate',
  template_id: ID,
  organization_id: ORG,
  livemode: false,
  name: ' 근로계약서 ',
  content_blob: BODY,
  variables: ['name', 'company'],
  now: T0,
  ...over,
});

const created = (): TemplateEvent => ({
  type: 'TemplateCreated',
  data: {
    template_id: ID,
    organization_id: ORG,
    livemode: false,
    name: '근로계약서',
    content_blob: BODY,
    variables: ['name', 'company'],
    created_at: T0,
  },
});

describe('template decider', () => {
  it('creates a template with a trimmed name, its body ref as given and its variables', () => {
    const state = spec.given([]).when(create()).then([created()]);
    expect(state).toMatchObject({ exists: true, id: ID, name: '근로계약서', variables: ['name', 'company'] });
  });

  it('creates a template once', () => {
    spec.given([created()]).when(create()).thenThrows('template_exists', 'conflict');
  });

  it.each([
    ['missing_parameter', 'name', { name: '  ' }],
    ['invalid_parameter', 'name', { name: 'x'.repeat(MAX_TEMPLATE_NAME + 1) }],
    ['missing_parameter', 'content', { content_blob: { sha256: 'e'.repeat(64), byte_size: 0 } }],
    ['invalid_parameter', 'template_id', { template_id: 'doc_1' }],
  ])('refuses %s %s', (code, param, over) => {
    spec.given([]).when(create(over as Partial<CreateTemplate>)).thenThrows(code, { kind: 'invalid', param });
  });

  it('records only the hash and size of the body, never text that came with the ref', () => {
    spec.given([]).when(create({ content_blob: { ...BODY, inline: '<p>x</p>' } as typeof BODY })).then([created()]);
  });

  // The shell checks the text before it stores the blob; the decider sees only the ref.
  it.each([
    ['missing_parameter', ' \n '],
    ['invalid_parameter', 'x'.repeat(MAX_TEMPLATE_CONTENT + 1)],
  ])('validateTemplateContent refuses %s content', (code, content) => {
    expect(() => validateTemplateContent(content)).toThrow(DomainError);
    try {
      validateTemplateContent(content);
    } catch (err) {
      expect(err).toMatchObject({ code, param: 'content' });
    }
  });

  it('validateTemplateContent accepts a body at the limit', () => {
    expect(() => validateTemplateContent('x'.repeat(MAX_TEMPLATE_CONTENT))).not.toThrow();
  });

  it('names its stream after the template', () => {
    expect(templateStreamId(ID)).toBe(`template-${ID}`);
  });

  describe('roles, fields, versions and archiving (issue 21 item 9)', () => {
    const T1 = '2026-03-03T09:00:00.000Z';
    const ROLES: TemplateRole[] = [
      { role: 'employee', participant_role: 'signer', signing_order: 1, auth: 'sms_pin' },
      { role: 'representative', participant_role: 'signer', signing_order: 2, auth: 'none' },
      { role: 'hr', participant_role: 'cc', signing_order: 1, auth: 'none' },
    ];
    const F1 = '11111111-1111-4111-8111-111111111111';
    const F2 = '22222222-2222-4222-8222-222222222222';
    const F3 = '33333333-3333-4333-8333-333333333333';
    const field = (over: Partial<TemplateField> = {}): TemplateField => ({ id: F1, role: 'employee', type: 'signature', page: 1, x: 10, y: 80, width: 30, height: 8, required: true, upload_only: false, ...over });
    const FIELDS: TemplateField[] = [
      field(),
      field({ id: F2, role: 'representative', x: 60 }),
      field({ id: F3, type: 'text', label: '주소', y: 50, max_length: 100 }),
    ];
    const withRoles = (): TemplateEvent => ({ type: 'TemplateCreated', data: { ...(created().data as object), roles: ROLES, fields: FIELDS } as never });

    it('creates a template with roles and fields placed for them', () => {
      const state = spec.given([]).when(create({ roles: ROLES, fields: FIELDS })).then([withRoles()]);
      expect(state).toMatchObject({ version: 1, archived: false, roles: ROLES, fields: FIELDS });
    });

    it('takes role names in Hangul (직원, 대표): letters of any script, as CSV columns and params write them', () => {
      const roles: TemplateRole[] = [
        { role: '직원', participant_role: 'signer', signing_order: 1, auth: 'sms_pin' },
        { role: '대표', participant_role: 'signer', signing_order: 2, auth: 'none' },
      ];
      const fields = [field({ role: '직원' }), field({ id: F2, role: '대표', x: 60 })];
      const state = spec.given([]).when(create({ roles, fields })).then([{ type: 'TemplateCreated', data: { ...(created().data as object), roles, fields } as never }]);
      expect(state.roles.map((r) => r.role)).toEqual(['직원', '대표']);
    });

    it.each([
      ['a role name with a control character', { roles: [{ ...ROLES[0], role: '직원\u0007' }], fields: [] }, 'roles[0].role'],
      ['a role name starting with a digit', { roles: [{ ...ROLES[0], role: '1직원' }], fields: [] }, 'roles[0].role'],
      ['a role name with a blank', { roles: [{ ...ROLES[0], role: '직 원' }], fields: [] }, 'roles[0].role'],
      // The shell composes names (keyName) before the command: a decomposed one here was not read.
      ['a decomposed role name', { roles: [{ ...ROLES[0], role: '직원'.normalize('NFD') }], fields: [] }, 'roles[0].role'],
      ['a duplicate role name', { roles: [ROLES[0], { ...ROLES[1], role: 'employee' }], fields: [] }, 'roles[1].role'],
      ['a role name with a dot (it is a CSV column prefix)', { roles: [{ ...ROLES[0], role: 'employee.main' }], fields: [] }, 'roles[0].role'],
      ['an unknown participant_role', { roles: [{ ...ROLES[0], participant_role: 'witness' as never }], fields: [] }, 'roles[0].participant_role'],
      ['a signing_order of 0', { roles: [{ ...ROLES[0], signing_order: 0 }], fields: [] }, 'roles[0].signing_order'],
      ['an unknown auth', { roles: [{ ...ROLES[0], auth: 'otp' as never }], fields: [] }, 'roles[0].auth'],
      ['a field for a role the template lacks', { roles: ROLES, fields: [field({ role: 'witness' })] }, 'fields[0].role'],
      ['a field id used twice', { roles: ROLES, fields: [field(), field({ x: 50 })] }, 'fields[1].id'],
      // The document's own field rules, reused: the same params PUT /fields answers with.
      ['a field past the page edge', { roles: ROLES, fields: [field({ x: 90, width: 20 })] }, 'fields[0]'],
      ['a dropdown without options', { roles: ROLES, fields: [field({ type: 'dropdown' })] }, 'fields[0].options'],
      ['a radio group of one', { roles: ROLES, fields: [field({ type: 'radio', group: 'g', option: 'a' })] }, 'fields[0].group'],
      ['a prefill that fails its pattern', { roles: ROLES, fields: [field({ type: 'text', pattern: '^[0-9]+$', value: 'abc' })] }, 'fields[0].value'],
      // Issue 32 item 2: what sending would refuse is refused at save, naming the role or field.
      ['a signer role without a field', { roles: ROLES, fields: [FIELDS[0], FIELDS[2]] }, 'roles[1].role'],
      ['a signer role whose only field is optional', { roles: ROLES, fields: [FIELDS[0], field({ id: F2, role: 'representative', x: 60, required: false })] }, 'roles[1].role'],
      ['a cc role marked representative', { roles: [ROLES[0], ROLES[1], { ...ROLES[2], representative: true }], fields: FIELDS }, 'roles[2].representative'],
      // Issue 34: a field hiding another is refused as PUT /fields refuses it.
      ['a field covering most of another', { roles: ROLES, fields: [...FIELDS, field({ id: '44444444-4444-4444-8444-444444444444', role: 'representative', x: 62, y: 81 })] }, 'fields[3]'],
      ['a field past the last page of the template', { roles: ROLES, fields: [FIELDS[0], field({ id: F2, role: 'representative', x: 60, page: 99 })], page_counts: [2] }, 'fields[1].page'],
    ])('refuses %s, naming it', (_what, over, param) => {
      spec.given([]).when(create(over as Partial<CreateTemplate>)).thenThrows(expect.any(String) as never, { kind: 'invalid', param });
    });

    // Issue 33 §11: a role is a key of the request's `roles` and a CSV column prefix.
    it.each(['constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype', '__proto__'])('refuses a role named %s (a built-in of JavaScript objects), naming it', (name) => {
      spec.given([]).when(create({ roles: [{ ...ROLES[0], role: name }], fields: [] })).thenThrows('invalid_parameter', { kind: 'invalid', param: 'roles[0].role' });
    });

    it('roles with no fields yet pass: their fields are placed next, in the field-placement editor (issue 34)', () => {
      spec.given([]).when(create({ roles: ROLES, fields: [] })).thenEvents((events) => expect(events).toHaveLength(1));
      // Once any field is placed, every signer role needs its required one (issue 32 item 2).
      spec.given([]).when(create({ roles: ROLES, fields: [FIELDS[0]] })).thenThrows('signer_without_required_field', { kind: 'invalid', param: 'roles[1].role' });
    });

    it('a cc or reviewer role needs no field; a field on the last page, or an anchored one, passes', () => {
      const roles: TemplateRole[] = [ROLES[0], { ...ROLES[1], participant_role: 'reviewer' }, ROLES[2]];
      spec.given([]).when(create({ roles, fields: [field({ page: 2 })], page_counts: [2] })).thenEvents((events) => expect(events).toHaveLength(1));
      const anchor = { text: '서명', occurrence: 1, offset_x: 0, offset_y: 0, width: null, height: null };
      spec.given([]).when(create({ roles, fields: [field({ anchor, page: 1 })], page_counts: [1] })).thenEvents((events) => expect(events).toHaveLength(1));
    });

    it('a field past a one-body template\'s last page is refused in plain page numbers (no parts to count within)', () => {
      const refusal = spec.given([]).when(create({ roles: ROLES, fields: [FIELDS[0], field({ id: F2, role: 'representative', x: 60, page: 99 })], page_counts: [2] })).thenThrows('field_page_out_of_range', { param: 'fields[1].page' });
      expect(refusal.message).toBe('fields[1].page is 99 but the template has 2 pages.');
    });

    it('an update checks the resulting contract: a page count that leaves a field behind is refused naming it', () => {
      spec.given([withRoles()]).when({ type: 'UpdateTemplate', name: 'v2', page_counts: [1], fields: [FIELDS[0], field({ id: F2, role: 'representative', page: 3 })], now: T1 }).thenThrows('field_page_out_of_range', { param: 'fields[1].page' });
    });

    it('an update is a new version with the whole contract; what is not given is carried over', () => {
      spec
        .given([withRoles()])
        .when({ type: 'UpdateTemplate', name: '근로계약서 v2', now: T1 })
        .then([{ type: 'TemplateUpdated', data: { template_id: ID, version: 2, name: '근로계약서 v2', content_blob: BODY, variables: ['name', 'company'], roles: ROLES, fields: FIELDS, updated_at: T1 } }]);
    });

    it('the same contract again makes no version (a retried update changes nothing)', () => {
      spec.given([withRoles()]).when({ type: 'UpdateTemplate', name: '근로계약서', roles: ROLES, now: T1 }).thenNothing();
    });

    it('dropping a role that fields are placed for is refused unless the fields come too', () => {
      spec.given([withRoles()]).when({ type: 'UpdateTemplate', roles: [ROLES[0], ROLES[2]], now: T1 }).thenThrows('invalid_parameter', { param: 'roles', message: /"representative", which fields\[1\] is placed for/ });
      const state = spec
        .given([withRoles()])
        .when({ type: 'UpdateTemplate', roles: [ROLES[0]], fields: [FIELDS[0]], now: T1 })
        .thenEvents((events) => expect(events[0]).toMatchObject({ type: 'TemplateUpdated', data: { version: 2, roles: [ROLES[0]], fields: [FIELDS[0]] } }));
      expect(state.version).toBe(2);
    });

    it('archives once; an archived template cannot be updated', () => {
      const archived: TemplateEvent = { type: 'TemplateArchived', data: { template_id: ID, version: 1, archived_at: T1 } };
      spec.given([withRoles()]).when({ type: 'ArchiveTemplate', now: T1 }).then([archived]);
      spec.given([withRoles(), archived]).when({ type: 'ArchiveTemplate', now: T1 }).thenNothing();
      spec.given([withRoles(), archived]).when({ type: 'UpdateTemplate', name: 'x', now: T1 }).thenThrows('template_archived', 'conflict');
    });

    it('updating or archiving a template that does not exist is template_not_found', () => {
      spec.given([]).when({ type: 'UpdateTemplate', name: 'x', now: T1 }).thenThrows('template_not_found', 'not_found');
      spec.given([]).when({ type: 'ArchiveTemplate', now: T1 }).thenThrows('template_not_found', 'not_found');
    });

    it('templateAtVersion folds the stream up to the version a document or a bulk send kept', () => {
      const v2: TemplateEvent = { type: 'TemplateUpdated', data: { template_id: ID, version: 2, name: 'v2', content_blob: BODY, variables: [], roles: [ROLES[0]], fields: [FIELDS[0]], updated_at: T1 } };
      expect(templateAtVersion([withRoles(), v2], 1)).toMatchObject({ version: 1, name: '근로계약서', roles: ROLES });
      expect(templateAtVersion([withRoles(), v2], 2)).toMatchObject({ version: 2, name: 'v2', roles: [ROLES[0]] });
      expect(templateAtVersion([withRoles(), v2], 3)).toBeNull();
    });

    describe('parts and anchored fields', () => {
      const B1 = { sha256: 'b'.repeat(64), byte_size: 40 };
      const B2 = { sha256: 'c'.repeat(64), byte_size: 30 };
      const PARTS = [
        { title: null, content_blob: B1, content_format: 'html' as const, file: null },
        { title: '개인정보 수집·이용 동의서', content_blob: B2, content_format: 'html' as const, file: null },
      ];
      const ANCHOR = { text: '{{signature:employee}}', occurrence: 1, offset_x: 0, offset_y: 0, width: null, height: null };
      const anchored = field({ anchor: ANCHOR, part: 1, page: 1, x: 0, y: 0, width: 10, height: 5 });
      const withParts = (): TemplateEvent =>
        ({ type: 'TemplateCreated', data: { ...(created().data as object), content_blob: B1, roles: ROLES, fields: [anchored, FIELDS[1]], parts: PARTS } }) as never;

      it('a template of parts records each body by hash and size, part 0\'s as its content, and keeps the anchor and part of its fields', () => {
        const state = spec
          .given([])
          .when(create({ content_blob: { sha256: '', byte_size: 0 }, parts: [{ ...PARTS[0], content_blob: { ...B1, inline: '<p>x</p>' } as typeof B1 }, PARTS[1]], roles: ROLES, fields: [anchored, FIELDS[1]] }))
          .then([withParts()]);
        expect(state.parts).toEqual(PARTS);
        expect(state.fields[0]).toMatchObject({ part: 1, anchor: ANCHOR });
      });

      it('refuses a field on a part the template does not have, and parts without a body or file', () => {
        spec.given([]).when(create({ roles: ROLES, fields: [{ ...anchored, part: 2 }], parts: PARTS })).thenThrows('invalid_parameter', { param: 'fields[0].part' });
        spec.given([]).when(create({ roles: ROLES, fields: [{ ...anchored, part: 1 }] })).thenThrows('invalid_parameter', { param: 'fields[0].part' });
        spec.given([]).when(create({ parts: [{ ...PARTS[0], content_blob: null }] })).thenThrows('missing_parameter', { param: 'parts[0].content' });
      });

      it('new parts are a new version; the same parts again are none; a body alone makes it one body again', () => {
        const swapped = [PARTS[1], PARTS[0]];
        spec
          .given([withParts()])
          .when({ type: 'UpdateTemplate', parts: { parts: swapped, variables: ['x'] }, now: T1 })
          .thenEvents((events) => expect(events[0]).toMatchObject({ type: 'TemplateUpdated', data: { version: 2, parts: swapped, content_blob: B2, variables: ['x'] } }));
        spec.given([withParts()]).when({ type: 'UpdateTemplate', parts: { parts: PARTS, variables: ['name', 'company'] }, now: T1 }).thenNothing();
        spec.given([withParts()]).when({ type: 'UpdateTemplate', body: { content_blob: BODY, variables: [] }, now: T1 }).thenThrows('invalid_parameter', { param: 'fields[0].part' });
        const state = spec
          .given([withParts()])
          .when({ type: 'UpdateTemplate', body: { content_blob: BODY, variables: [] }, fields: [FIELDS[0], FIELDS[1]], now: T1 })
          .thenEvents((events) => expect(events[0].data).not.toHaveProperty('parts'));
        expect(state.parts).toBeUndefined();
        expect(templateAtVersion([withParts()], 1)?.parts).toEqual(PARTS);
      });

      it('the backstop refusal of a kept field that new parts leave behind speaks document-wide pages, as the API numbers them', () => {
        // FIELDS[1] is page 1 of part 1 as recorded; new parts of 3 and 0 pages leave it on page 4
        // of a 3-page template. The message must not give the page within the part (1).
        const placedOnPart1 = (): TemplateEvent =>
          ({ type: 'TemplateCreated', data: { ...(created().data as object), content_blob: B1, roles: ROLES, fields: [FIELDS[0], { ...FIELDS[1], part: 1, page: 2 }], parts: PARTS } }) as never;
        const refusal = spec.given([placedOnPart1()]).when({ type: 'UpdateTemplate', parts: { parts: [PARTS[1], PARTS[0]], variables: [] }, page_counts: [3, 1], now: T1 }).thenThrows('field_page_out_of_range', { param: 'fields[1].page' });
        expect(refusal.message).toBe("fields[1].page is 5 but its part (part 1) is page 4 of the template's 4 pages (pages count across the whole template).");
        expect(refusal.message).not.toContain('within the part');
      });

      it('leaves anchored fields out of the overlap check: their box is known only where the anchor is found', () => {
        const twin = { ...anchored, id: 'dddddddd-dddd-4ddd-8ddd-dddddddddddd', required: false };
        spec.given([]).when(create({ roles: ROLES, fields: [anchored, twin, FIELDS[1]], parts: PARTS })).thenEvents((events) => expect(events).toHaveLength(1));
      });

      it('instantiateTemplate hands the anchor and part on to the document\'s field (the sender finds the anchor)', () => {
        const out = instantiateTemplate(
          { roles: ROLES, fields: [anchored] },
          { roles: { employee: { name: '김민준', email: null, phone: '01012345678' }, representative: { name: '대표', email: 'ceo@example.com', phone: null }, hr: { name: '인사', email: 'hr@example.com', phone: null } } },
          (kind, key) => `${kind}:${key}`,
        );
        expect(out.fields[0]).toMatchObject({ part: 1, anchor: ANCHOR, participant_id: 'participant:employee' });
      });
    });

    describe('instantiateTemplate: roles filled in, fields placed for the participants', () => {
      it('a role marked representative makes its participant representative; the others stay as they were', () => {
        const roles = [ROLES[0], { ...ROLES[1], representative: true }, ROLES[2]];
        const out = instantiateTemplate(
          { roles, fields: FIELDS },
          { roles: { employee: { name: '김지원', email: null, phone: '01012345678' }, representative: { name: '홍길동', email: 'ceo@example.com', phone: null }, hr: { name: '인사팀', email: null, phone: null } } },
          (kind, key) => `${kind}:${key}`,
        );
        expect(out.participants.map((p) => [p.id, p.representative])).toEqual([
          ['participant:employee', undefined],
          ['participant:representative', true],
          ['participant:hr', undefined],
        ]);
      });

      const contract = { roles: ROLES, fields: FIELDS };
      const ids = (kind: string, key: string) => `${kind}:${key}`;
      const people = {
        employee: { name: '김지원', email: null, phone: '01012345678' },
        representative: { name: '홍길동', email: 'ceo@example.com', phone: null },
        hr: { name: '인사팀', email: null, phone: null },
      };

      it('gives each role a participant and each field its participant, with prefilled values', () => {
        const out = instantiateTemplate(contract, { roles: people, values: { [F3]: '서울시 중구' } }, ids);
        expect(out.participants).toEqual([
          { id: 'participant:employee', name: '김지원', phone: '01012345678', email: null, role: 'signer', signing_order: 1, auth: 'sms_pin' },
          { id: 'participant:representative', name: '홍길동', phone: null, email: 'ceo@example.com', role: 'signer', signing_order: 2, auth: 'none' },
          { id: 'participant:hr', name: '인사팀', phone: null, email: null, role: 'cc', signing_order: 1, auth: 'none' },
        ]);
        expect(out.fields.map((f) => [f.id, f.participant_id, f.value])).toEqual([
          [`field:${F1}`, 'participant:employee', undefined],
          [`field:${F2}`, 'participant:representative', undefined],
          [`field:${F3}`, 'participant:employee', '서울시 중구'],
        ]);
      });

      it.each([
        ['a role the request omits', { roles: { employee: people.employee, hr: people.hr } }, 'missing_parameter', 'roles.representative'],
        ['a role the template lacks', { roles: { ...people, witness: people.hr } }, 'invalid_parameter', 'roles.witness'],
        ['an sms_pin role without a phone', { roles: { ...people, employee: { ...people.employee, phone: null } } }, 'missing_phone', 'roles.employee.phone'],
        ['a blank name', { roles: { ...people, representative: { ...people.representative, name: ' ' } } }, 'missing_parameter', 'roles.representative.name'],
        ['a bad e-mail', { roles: { ...people, representative: { ...people.representative, email: 'ceo@' } } }, 'invalid_parameter', 'roles.representative.email'],
        ['a signer no link can reach', { roles: { ...people, representative: { ...people.representative, email: null } } }, 'missing_parameter', 'roles.representative.email'],
        ['a value for a field the template lacks', { roles: people, values: { nope: 'x' } }, 'invalid_parameter', 'values.nope'],
        ['a value for a signature field', { roles: people, values: { [F1]: 'x' } }, 'invalid_parameter', `values.${F1}`],
        ['a value over the field\'s max_length', { roles: people, values: { [F3]: 'x'.repeat(101) } }, 'field_value_invalid', `values.${F3}`],
      ])('refuses %s, naming it', (_what, input, code, param) => {
        try {
          instantiateTemplate(contract, input as never, ids);
          throw new Error('accepted');
        } catch (err) {
          expect(err).toMatchObject({ code, param });
        }
      });

      it('a role is read from the request only as its own key, never from what a plain object inherits', () => {
        // A template stored before built-in role names were refused: `roles.constructor` absent is
        // missing, not the Object function (whose name "Object" became the participant's).
        const legacy = { roles: [{ role: 'constructor', participant_role: 'signer', signing_order: 1, auth: 'none' }], fields: [] } as never;
        try {
          instantiateTemplate(legacy, { roles: {} }, ids);
          throw new Error('accepted');
        } catch (err) {
          expect(err).toMatchObject({ code: 'missing_parameter', param: 'roles.constructor' });
        }
      });

      it('a recipient may override the role\'s auth (sms_pin for a role that defaults to none)', () => {
        const out = instantiateTemplate(contract, { roles: { ...people, representative: { ...people.representative, phone: '01099998888', auth: 'sms_pin' } } }, ids);
        expect(out.participants[1]).toMatchObject({ auth: 'sms_pin', phone: '01099998888' });
      });
    });
  });
});
