import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsIn, IsInt, IsNotEmpty, IsObject, IsString, Max, MaxLength, Min, ValidateIf, ValidateNested } from 'class-validator';

const Optional = () => ValidateIf((_o: object, value: unknown) => value !== undefined);
/** Required in the inline shape (no template_id), as it always was; the template shape leaves it out. */
const RequiredInline = () => ValidateIf((o: { template_id?: unknown }, value: unknown) => o.template_id === undefined || value !== undefined);

export class RecipientDto {
  @ApiProperty({ description: 'Where the signing request is e-mailed (live keys; test keys put it in the outbox).', example: 'hong@example.com' })
  @IsDefined()
  @IsString()
  @MaxLength(320)
  email: string;

  @ApiPropertyOptional({ description: 'Name shown on the document and in the e-mail; defaults to the e-mail address.', example: '홍길동' })
  @Optional()
  @IsString()
  @MaxLength(200)
  name?: string;
}

/**
 * Two shapes: inline (title, content, recipient: as SPEC shows it) or from a template
 * (template_id and roles, with optional variables, values, metadata and title).
 */
export class CreateSignatureRequestDto {
  @ApiPropertyOptional({ description: 'Document title. Required without template_id; with one it defaults to the template\'s name.', maxLength: 500, example: '용역 계약서' })
  @RequiredInline()
  @IsDefined()
  @IsString()
  @MaxLength(500)
  title?: string;

  @ApiPropertyOptional({ description: 'Contract body (HTML, or plain text with content_format text). Required without template_id; not allowed with one.', example: '<p>갑과 을은 다음과 같이 용역 계약을 체결한다.</p>' })
  @RequiredInline()
  @IsDefined()
  @IsString()
  @MaxLength(2_000_000)
  content?: string;

  @ApiPropertyOptional({ enum: ['html', 'text'], default: 'html' })
  @Optional()
  @IsIn(['html', 'text'])
  content_format?: 'html' | 'text';

  @ApiPropertyOptional({ type: () => RecipientDto, description: 'The one recipient (e-mail). Required without template_id; with one, use roles.' })
  @RequiredInline()
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => RecipientDto)
  recipient?: RecipientDto;

  @ApiPropertyOptional({ description: 'Note passed to the recipient in the e-mail.', maxLength: 2000 })
  @Optional()
  @IsString()
  @MaxLength(2000)
  message?: string;

  @ApiPropertyOptional({ description: 'Days until the request expires; the organization default applies when absent.', minimum: 1, maximum: 365 })
  @Optional()
  @IsInt()
  @Min(1)
  @Max(365)
  expires_in_days?: number;

  @ApiPropertyOptional({ type: 'string', maxLength: 100, description: 'Send a template (tmpl_…) with its roles, fields and placeholders filled: give roles, and variables for its {{placeholders}}.' })
  @Optional()
  @IsString()
  @MaxLength(100)
  template_id?: string;

  @ApiPropertyOptional({
    type: 'object',
    description: 'With template_id: who fills each of the template\'s roles. Every role must be given; sms_pin needs phone.',
    additionalProperties: {
      type: 'object',
      properties: {
        name: { type: 'string', maxLength: 200 },
        email: { type: 'string', maxLength: 320 },
        phone: { type: 'string', maxLength: 32, description: 'Korean (010-1234-5678) or international (+1 415 555 2671).' },
        auth: { type: 'string', enum: ['sms_pin', 'none'], description: 'Overrides the role\'s auth for this recipient.' },
      },
      required: ['name'],
      additionalProperties: false,
    },
    example: { employee: { name: '김지원', phone: '010-1234-5678' }, representative: { name: '홍길동', email: 'ceo@example.com', auth: 'none' } },
  })
  @Optional()
  @IsObject()
  roles?: Record<string, unknown>;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'With template_id: values of the template\'s {{placeholders}}.' })
  @Optional()
  @IsObject()
  variables?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] },
    description: 'With template_id: prefilled field values by template field id (checked as the field\'s value).',
  })
  @Optional()
  @IsObject()
  values?: Record<string, unknown>;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'With template_id: the document\'s metadata.' })
  @Optional()
  @IsObject()
  metadata?: Record<string, unknown>;

  @ApiPropertyOptional({ type: 'string', minLength: 1, maxLength: 200, description: 'With template_id: your own id for the document, returned in every webhook about it.' })
  @Optional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  external_id?: string;
}
