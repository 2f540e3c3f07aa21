import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';

export class CreateDocumentDto {
  @IsOptional() @IsString() @MaxLength(500) title?: string;
  @IsOptional() @IsString() @MaxLength(2_000_000) content?: string;
  @IsOptional() @IsIn(['html', 'text']) content_format?: 'html' | 'text';
  @IsOptional() @IsString() @MaxLength(2048) file_url?: string;
  @IsOptional() @IsString() @MaxLength(200) author_name?: string;
  @IsOptional() @IsObject() metadata?: Record<string, unknown>;
  @IsOptional() @IsString() @MaxLength(100) from_template?: string;
  @IsOptional() @IsObject() variables?: Record<string, unknown>;
}

export class UpdateDocumentDto {
  @IsOptional() @IsString() @MaxLength(500) title?: string;
  @IsOptional() @IsString() @MaxLength(2_000_000) content?: string;
  @IsOptional() @IsString() @MaxLength(200) author_name?: string;
  @IsOptional() @IsObject() metadata?: Record<string, unknown>;
}

export class ListDocumentsQuery {
  @IsOptional() @IsIn(['draft', 'sent', 'completed', 'canceled', 'declined', 'expired']) status?: string;
  @IsOptional() @IsString() created_after?: string;
  @IsOptional() @IsString() limit?: string;
  @IsOptional() @IsString() starting_after?: string;
}

export class ParticipantDto {
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(200) name: string;
  @IsOptional() @IsString() @MaxLength(32) phone?: string;
  @IsOptional() @IsString() @MaxLength(320) email?: string;
  @IsOptional() @IsIn(['signer', 'reviewer', 'cc']) role?: 'signer' | 'reviewer' | 'cc';
  @IsOptional() @IsInt() @Min(1) @Max(1000) signing_order?: number;
  @IsOptional() @IsIn(['sms_pin', 'none']) auth?: 'sms_pin' | 'none';
}

export class ParticipantBatchDto {
  @IsDefined() @IsArray() @ArrayNotEmpty() @ArrayMaxSize(50) @ValidateNested({ each: true }) @Type(() => ParticipantDto)
  participants: ParticipantDto[];
}

export class FieldDto {
  @IsDefined() @IsString() @IsNotEmpty() participant_id: string;
  @IsDefined() @IsIn(['signature', 'seal']) type: 'signature' | 'seal';
  @IsDefined() @IsInt() @Min(1) page: number;
  @IsDefined() @IsNumber() @Min(0) @Max(100) x: number;
  @IsDefined() @IsNumber() @Min(0) @Max(100) y: number;
  @IsDefined() @IsNumber() @Min(0) @Max(100) width: number;
  @IsDefined() @IsNumber() @Min(0) @Max(100) height: number;
  @IsOptional() @IsBoolean() required?: boolean;
  @IsOptional() @IsBoolean() upload_only?: boolean;
}

export class ReplaceFieldsDto {
  @IsDefined() @IsArray() @ArrayMaxSize(500) @ValidateNested({ each: true }) @Type(() => FieldDto)
  fields: FieldDto[];
}
