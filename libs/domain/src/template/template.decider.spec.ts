import { DeciderSpecification } from '../shared/decider.spec-helpers';
import { DomainError } from '../shared/domain-error';
import { TemplateCommand, templateDecider, validateTemplateContent } from './template.decider';
import { MAX_TEMPLATE_CONTENT, MAX_TEMPLATE_NAME, TemplateEvent, templateStreamId } from './template.events';

const spec = DeciderSpecification.for(templateDecider);
const T0 = '2026-03-02T09:00:00.000Z';
const ID = 'tmpl_0123456789abcdef01234567';
const ORG = 'org_0123456789abcdef01234567';
/** The body is in the blob store; the command and the event carry its SHA-256 and size. */
const BODY = { sha256: 'a'.repeat(64), byte_size: 57 };

const create = (over: Partial<TemplateCommand> = {}): TemplateCommand => ({
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
    spec.given([]).when(create(over as Partial<TemplateCommand>)).thenThrows(code, { kind: 'invalid', param });
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
});
