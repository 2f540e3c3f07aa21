import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayNotEmpty, IsArray, IsBoolean, IsDefined, IsIn, IsInt, IsOptional, IsString, IsUUID, Max, MaxLength, Min, ValidateIf, ValidateNested } from 'class-validator';
import { DocumentPartDto, FieldDto } from '../documents/document.dto';

/** Optional but not nullable (as in document.dto.ts): null is validated and refused. */
const Optional = () => ValidateIf((_o: object, value: unknown) => value !== undefined);

export class TemplateRoleDto {
  @ApiProperty({ type: 'string', maxLength: 40, description: 'The template\'s name for the participant: a letter of any script first (Hangul included), then letters, digits, _ and - (직원, 대표, employee). It is the prefix of its CSV columns (직원.phone) and the key under roles when sending.', example: 'employee' })
  @IsDefined() @IsString() @MaxLength(40) role: string;
  @ApiPropertyOptional({ enum: ['signer', 'reviewer', 'cc'], default: 'signer' }) @Optional() @IsIn(['signer', 'reviewer', 'cc']) participant_role?: 'signer' | 'reviewer' | 'cc';
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 1000, default: 1 }) @Optional() @IsInt() @Min(1) @Max(1000) signing_order?: number;
  @ApiPropertyOptional({ enum: ['sms_pin', 'none'], description: 'Default sms_pin, none for cc; a signature request may override it per recipient.' }) @Optional() @IsIn(['sms_pin', 'none']) auth?: 'sms_pin' | 'none';
  @ApiPropertyOptional({ type: 'boolean', description: 'Whoever fills this role signs for the organization: the participant is made representative (may stamp the organization\'s seals). Not for cc. Default false.' })
  @Optional() @IsBoolean() representative?: boolean;
}

/** A field as PUT /documents/{id}/fields takes it, placed for a role instead of a participant. */
export class TemplateFieldDto extends OmitType(FieldDto, ['participant_id'] as const) {
  @ApiProperty({ type: 'string', description: 'One of the template\'s roles.', example: 'employee' }) @IsDefined() @IsString() @MaxLength(40) role: string;
  @ApiPropertyOptional({ type: 'string', format: 'uuid', description: 'Keep a field\'s id across versions by sending it back; a new one is made when absent.' })
  @Optional() @IsUUID() id?: string;
}

export class CreateTemplateDto {
  @ApiProperty({ description: 'Name shown in template lists; the default title of documents made from it.', maxLength: 200, example: '근로계약서 표준' })
  @IsDefined()
  @IsString()
  @MaxLength(200)
  name: string;

  @ApiPropertyOptional({
    description: 'HTML body with {{variable}} placeholders, filled when a document is created with from_template. Required unless parts are given.',
    example: '<p>{{employee_name}}님과 {{company}}는 다음과 같이 근로계약을 체결한다.</p>',
  })
  // Required unless parts are given (the controller answers missing_parameter).
  @Optional()
  @IsString()
  @MaxLength(2_000_000)
  content?: string;

  @ApiPropertyOptional({ type: () => [DocumentPartDto], minItems: 1, maxItems: 10, description: 'Several files (instead of content), as POST /documents takes them: bodies may hold {{variable}} placeholders and anchors; every document made from the template holds these parts.' })
  @Optional() @IsArray() @ArrayNotEmpty() @ArrayMaxSize(10) @ValidateNested({ each: true }) @Type(() => DocumentPartDto)
  parts?: DocumentPartDto[];

  @ApiPropertyOptional({ type: () => [TemplateRoleDto], maxItems: 50, description: 'The participants to fill in (names unique).' })
  @Optional() @IsArray() @ArrayMaxSize(50) @ValidateNested({ each: true }) @Type(() => TemplateRoleDto)
  roles?: TemplateRoleDto[];

  @ApiPropertyOptional({ type: () => [TemplateFieldDto], maxItems: 500, description: 'Fields placed for the roles, validated as PUT /documents/{id}/fields validates them.' })
  @Optional() @IsArray() @ArrayMaxSize(500) @ValidateNested({ each: true }) @Type(() => TemplateFieldDto)
  fields?: TemplateFieldDto[];
}

/** PATCH: what is given replaces the current version's, the rest is carried over into the new version. */
export class UpdateTemplateDto {
  @ApiPropertyOptional({ type: 'string', maxLength: 200 }) @Optional() @IsString() @MaxLength(200) name?: string;
  @ApiPropertyOptional({ type: 'string', maxLength: 2_000_000 }) @Optional() @IsString() @MaxLength(2_000_000) content?: string;
  @ApiPropertyOptional({ type: () => [DocumentPartDto], minItems: 1, maxItems: 10, description: 'Every part, replacing the current ones (a new version); content alone makes it a template of one body.' })
  @Optional() @IsArray() @ArrayNotEmpty() @ArrayMaxSize(10) @ValidateNested({ each: true }) @Type(() => DocumentPartDto)
  parts?: DocumentPartDto[];
  @ApiPropertyOptional({ type: () => [TemplateRoleDto], maxItems: 50 })
  @Optional() @IsArray() @ArrayMaxSize(50) @ValidateNested({ each: true }) @Type(() => TemplateRoleDto)
  roles?: TemplateRoleDto[];
  @ApiPropertyOptional({ type: () => [TemplateFieldDto], maxItems: 500 })
  @Optional() @IsArray() @ArrayMaxSize(500) @ValidateNested({ each: true }) @Type(() => TemplateFieldDto)
  fields?: TemplateFieldDto[];
}

export class ListTemplatesQuery {
  @ApiPropertyOptional({ description: 'Page size, 1 to 100 (default 20).', example: '20' })
  @IsOptional()
  @IsString()
  limit?: string;

  @ApiPropertyOptional({ description: 'Cursor: the id of the last template of the previous page.' })
  @IsOptional()
  @IsString()
  starting_after?: string;

  @ApiPropertyOptional({ description: 'Cursor: the id of the first template of the next page; returns the page before it.' })
  @IsOptional()
  @IsString()
  ending_before?: string;
}
