import { DeciderSpecification } from '../shared/decider.spec-helpers';
import { SealCommand, sealDecider } from './seal.decider';
import { MAX_SEAL_IMAGE_BYTES, SealEvent, sealStreamId } from './seal.events';

const spec = DeciderSpecification.for(sealDecider);
const T0 = '2026-03-02T09:00:00.000Z';
const ID = 'seal_0123456789abcdef01234567';
const ORG = 'org_0123456789abcdef01234567';
const IMAGE = { sha256: 'cd'.repeat(32), byte_size: 4096, mime: 'image/png' as const, width: 300, height: 300 };

const generate = (over: Partial<SealCommand> = {}): SealCommand => ({
  type: 'CreateSeal',
  seal_id: ID,
  organization_id: ORG,
  livemode: true,
  name: '대표 직인',
  seal_type: 'corporate',
  source: 'generated',
  company_name: ' 주식회사 도장 ',
  restricted: false,
  image: IMAGE,
  now: T0,
  ...over,
});

const generated = (): SealEvent => ({
  type: 'SealCreated',
  data: {
    seal_id: ID,
    organization_id: ORG,
    livemode: true,
    name: '대표 직인',
    type: 'corporate',
    source: 'generated',
    company_name: '주식회사 도장',
    restricted: false,
    image: IMAGE,
    created_at: T0,
  },
});

describe('seal decider', () => {
  it('records a generated seal with its company name and image pointer', () => {
    const state = spec.given([]).when(generate()).then([generated()]);
    expect(state).toMatchObject({ exists: true, id: ID, source: 'generated', company_name: '주식회사 도장', image: IMAGE });
  });

  it('records an uploaded, restricted usage seal without a company name', () => {
    spec
      .given([])
      .when(generate({ source: 'uploaded', company_name: null, seal_type: 'usage', restricted: true, image: { ...IMAGE, mime: 'image/jpeg' } }))
      .thenEvents(([e]) => {
        expect(e.data).toMatchObject({ source: 'uploaded', company_name: null, type: 'usage', restricted: true, image: { mime: 'image/jpeg' } });
      });
  });

  it('creates a seal once', () => {
    spec.given([generated()]).when(generate()).thenThrows('seal_exists', 'conflict');
  });

  it.each([
    ['missing_parameter', 'name', { name: ' ' }],
    ['invalid_parameter', 'type', { seal_type: 'personal' }],
    ['invalid_parameter', 'source', { source: 'drawn' }],
    ['missing_parameter', 'company_name', { company_name: null }],
    ['invalid_parameter', 'company_name', { source: 'uploaded' }],
    ['invalid_parameter', 'image', { image: { ...IMAGE, sha256: 'nope' } }],
    ['file_too_large', 'image', { source: 'uploaded', company_name: null, image: { ...IMAGE, byte_size: MAX_SEAL_IMAGE_BYTES + 1 } }],
    ['invalid_parameter', 'seal_id', { seal_id: 'tmpl_0123456789' }],
  ])('refuses %s %s', (code, param, over) => {
    spec.given([]).when(generate(over as Partial<SealCommand>)).thenThrows(code, { kind: 'invalid', param });
  });

  it('names its stream after the seal', () => {
    expect(sealStreamId(ID)).toBe(`seal-${ID}`);
  });
});
