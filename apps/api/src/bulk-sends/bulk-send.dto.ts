import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MAX_BULK_SEND_ROWS } from '@dojang/domain';
import { ArrayMaxSize, IsArray, IsBoolean, IsDefined, IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min, ValidateIf } from 'class-validator';

const Optional = () => ValidateIf((_o: object, value: unknown) => value !== undefined);

export class CreateBulkSendDto {
  @ApiProperty({ type: 'string', maxLength: 100, description: 'The template (tmpl_…) with roles; its current version is kept for the whole job.' })
  @IsDefined() @IsString() @MaxLength(100) template_id: string;

  @ApiProperty({
    type: 'array',
    maxItems: MAX_BULK_SEND_ROWS,
    description: 'One entry per document: roles ({ [role]: { name, email?, phone?, auth? } }), variables, values (by template field id), metadata, external_id (unique in the job).',
    items: {
      type: 'object',
      properties: {
        roles: { type: 'object', additionalProperties: { type: 'object', additionalProperties: { type: 'string' } } },
        variables: { type: 'object', additionalProperties: true },
        values: { type: 'object', additionalProperties: true },
        metadata: { type: 'object', additionalProperties: { type: 'string' } },
        external_id: { type: 'string', maxLength: 200 },
      },
      additionalProperties: false,
    },
  })
  @IsDefined() @IsArray() @ArrayMaxSize(MAX_BULK_SEND_ROWS) rows: unknown[];

  @ApiPropertyOptional({ type: 'string', maxLength: 500, description: 'Every document\'s title; default the template\'s name.' }) @Optional() @IsString() @MaxLength(500) title?: string;
  @ApiPropertyOptional({ type: 'string', maxLength: 2000 }) @Optional() @IsString() @MaxLength(2000) message?: string;
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 365 }) @Optional() @IsInt() @Min(1) @Max(365) expires_in_days?: number;
  @ApiPropertyOptional({ type: 'boolean', description: 'Only validate every row: nothing is recorded or sent.' }) @Optional() @IsBoolean() dry_run?: boolean;
  @ApiPropertyOptional({ type: 'boolean', description: 'Send the valid rows and record the invalid ones as failed (default: any invalid row refuses the job).' })
  @Optional() @IsBoolean() skip_invalid_rows?: boolean;
}

/** The query of the CSV/XLSX upload (its body is multipart/form-data with the file in `file`). */
export class UploadBulkSendQuery {
  @ApiProperty({ type: 'string', maxLength: 100 }) @IsDefined() @IsString() @MaxLength(100) template_id: string;
  @ApiPropertyOptional({ enum: ['true', 'false'] }) @IsOptional() @IsIn(['true', 'false']) dry_run?: string;
  @ApiPropertyOptional({ enum: ['true', 'false'] }) @IsOptional() @IsIn(['true', 'false']) skip_invalid_rows?: string;
  @ApiPropertyOptional({ enum: ['utf-8', 'euc-kr'], description: 'CSV only; default: UTF-8 (with or without BOM), else EUC-KR.' }) @IsOptional() @IsString() encoding?: string;
  @ApiPropertyOptional({ type: 'string', maxLength: 500 }) @IsOptional() @IsString() @MaxLength(500) title?: string;
  @ApiPropertyOptional({ type: 'string', maxLength: 2000 }) @IsOptional() @IsString() @MaxLength(2000) message?: string;
}

export class ListBulkSendRowsQuery {
  @ApiPropertyOptional({ type: 'string' }) @IsOptional() @IsString() limit?: string;
  @ApiPropertyOptional({ type: 'string', description: 'A row number: the page after it.' }) @IsOptional() @IsString() starting_after?: string;
  @ApiPropertyOptional({ enum: ['sent', 'failed'] }) @IsOptional() @IsIn(['sent', 'failed']) state?: string;
}
