import { DeciderSpecification } from '../shared/decider.spec-helpers';
import { TemplateCommand, templateDecider } from './template.decider';
import { MAX_TEMPLATE_NAME, TemplateEvent, templateStreamId } from './template.events';

const spec = DeciderSpecification.for(templateDecider);
const T0 = '2026-03-02T09:00:00.000Z';
const ID = 'tmpl_0123456789abcdef01234567';
const ORG = 'org_0123456789abcdef01234567';

const create = (over: Partial<TemplateCommand> = {}): TemplateCommand => ({
  type: 'CreateTemplate',
  template_id: ID,
  organization_id: ORG,
  livemode: false,
  name: ' 근로계약서 ',
  content: '<p>{{name}}님과 {{company}}는 계약한다.</p>',
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
    content: '<p>{{name}}님과 {{company}}는 계약한다.</p>',
    variables: ['name', 'company'],
    created_at: T0,
  },
});

describe('template decider', () => {
  it('creates a template with a trimmed name, its body as given and its variables', () => {
    const state = spec.given([]).when(create()).then([created()]);
    expect(state).toMatchObject({ exists: true, id: ID, name: '근로계약서', variables: ['name', 'company'] });
  });

  it('creates a template once', () => {
    spec.given([created()]).when(create()).thenThrows('template_exists', 'conflict');
  });

  it.each([
    ['missing_parameter', 'name', { name: '  ' }],
    ['invalid_parameter', 'name', { name: 'x'.repeat(MAX_TEMPLATE_NAME + 1) }],
    ['missing_parameter', 'content', { content: ' \n ' }],
    ['invalid_parameter', 'template_id', { template_id: 'doc_1' }],
  ])('refuses %s %s', (code, param, over) => {
    spec.given([]).when(create(over as Partial<TemplateCommand>)).thenThrows(code, { kind: 'invalid', param });
  });

  it('names its stream after the template', () => {
    expect(templateStreamId(ID)).toBe(`template-${ID}`);
  });
});
