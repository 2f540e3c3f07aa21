import * as classTransformer from 'class-transformer';
import * as classValidator from 'class-validator';
import { ArgumentMetadata } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { readdirSync } from 'fs';
import { join } from 'path';
import { CreateBulkSendDto } from '../bulk-sends/bulk-send.dto';
import { CreateDocumentDto, ParticipantBatchDto, ReplaceFieldsDto } from '../documents/document.dto';
import { UpdateOrganizationDto } from '../organization/organization-settings.dto';
import { CreateTemplateDto, UpdateTemplateDto } from '../templates/template.dto';
import { UpdateWebhookEndpointDto } from '../webhooks/webhook-endpoints.dto';
import { ApiError } from './api-error';
import { createValidationPipe } from './validation.pipe';

const body = (metatype: Function): ArgumentMetadata => ({ type: 'body', metatype: metatype as ArgumentMetadata['metatype'] });

async function refusal(value: unknown, metatype: Function): Promise<ApiError> {
  const pipe = createValidationPipe();
  try {
    await pipe.transform(value, body(metatype));
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('accepted');
}

describe('list lengths and kinds before validation (validation pipe)', () => {
  let toInstance: jest.SpyInstance;
  let validate: jest.SpyInstance;
  beforeEach(() => {
    toInstance = jest.spyOn(classTransformer, 'plainToClass');
    validate = jest.spyOn(classValidator, 'validate');
  });
  afterEach(() => jest.restoreAllMocks());

  it.each([
    ['PUT /documents/{id}/fields', ReplaceFieldsDto, { fields: Array.from({ length: 501 }, () => ({})) }, 'fields'],
    ['POST /templates fields', CreateTemplateDto, { name: '근로계약서', fields: Array.from({ length: 999 }, () => ({})) }, 'fields'],
    ['POST /templates roles', CreateTemplateDto, { name: '근로계약서', roles: Array.from({ length: 51 }, () => ({})) }, 'roles'],
    ['PATCH /templates parts', UpdateTemplateDto, { parts: Array.from({ length: 11 }, () => ({})) }, 'parts'],
    ['POST /documents parts', CreateDocumentDto, { title: '계약', parts: Array.from({ length: 11 }, () => ({})) }, 'parts'],
    ['POST participants/batch', ParticipantBatchDto, { participants: Array.from({ length: 51 }, () => ({})) }, 'participants'],
    ['a field\'s options', ReplaceFieldsDto, { fields: [{}, { options: Array.from({ length: 101 }, () => 'x') }] }, 'fields[1].options'],
    ['POST /bulk_sends rows', CreateBulkSendDto, { template_id: 'tmpl_1', rows: Array.from({ length: 10_001 }, () => ({})) }, 'rows'],
    ['PATCH /organization brand as a list', UpdateOrganizationDto, { brand: Array.from({ length: 1_000 }, (_, i) => i) }, 'brand'],
    ['webhook events', UpdateWebhookEndpointDto, { events: Array.from({ length: 51 }, () => 'document.completed') }, 'events'],
  ])('%s: refused on its length or kind, with no element copied or validated', async (_route, dto, value, param) => {
    const err = await refusal(value, dto);
    expect(err).toMatchObject({ status: 400, code: 'invalid_parameter', param });
    expect(toInstance).not.toHaveBeenCalled();
    expect(validate).not.toHaveBeenCalled();
  });

  it('a body within the limits still goes through class-transformer and class-validator', async () => {
    const err = await refusal({ fields: [{ type: 'nonsense' }] }, ReplaceFieldsDto);
    expect(err.param).toMatch(/^fields\[0\]/);
    expect(toInstance).toHaveBeenCalledTimes(1);
    expect(validate).toHaveBeenCalledTimes(1);
  });

  it('every list a DTO takes has an @ArrayMaxSize, so none is validated element by element before its length', () => {
    // Every DTO of the API, so a new one is held to the rule too.
    for (const file of readdirSync(join(__dirname, '..'), { recursive: true, encoding: 'utf8' })) {
      // Loaded for their decorators' side effect on the metadata storage, by a path found at run time.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      if (file.endsWith('.dto.ts')) require(join(__dirname, '..', file));
    }
    const stored = (getMetadataStorage() as unknown as { validationMetadatas: Map<Function, ValidationMetadata[]> }).validationMetadatas;
    const lists = new Map<string, Set<string>>();
    for (const m of [...stored.values()].flat()) {
      const key = `${(m.target as Function).name}.${m.propertyName}`;
      const names = lists.get(key) ?? new Set<string>();
      names.add(m.name ?? m.type);
      lists.set(key, names);
    }
    const unbounded = [...lists].filter(([, names]) => names.has('isArray') && !names.has('arrayMaxSize')).map(([key]) => key);
    expect(lists.size).toBeGreaterThan(50);
    expect(unbounded).toEqual([]);
  });
});
