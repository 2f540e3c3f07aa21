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
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';

/**
 * Optional, but not nullable: an absent property is skipped, while `null` is validated like any
 * other value and so refused (400) instead of reaching the controllers, which would otherwise
 * crash on it (500) or store it (PATCH content: null would wipe the body).
 */
const Optional = () => ValidateIf((_object: object, value: unknown) => value !== undefined);

export class CreateDocumentDto {
  @Optional() @IsString() @MaxLength(500) title?: string;
  @Optional() @IsString() @MaxLength(2_000_000) content?: string;
  @Optional() @IsIn(['html', 'text']) content_format?: 'html' | 'text';
  @Optional() @IsString() @MaxLength(2048) file_url?: string;
  @Optional() @IsString() @MaxLength(200) author_name?: string;
  @Optional() @IsObject() metadata?: Record<string, unknown>;
  @Optional() @IsString() @MaxLength(100) from_template?: string;
  @Optional() @IsObject() variables?: Record<string, unknown>;
}

export class UpdateDocumentDto {
  @Optional() @IsString() @MaxLength(500) title?: string;
  @Optional() @IsString() @MaxLength(2_000_000) content?: string;
  @Optional() @IsString() @MaxLength(200) author_name?: string;
  @Optional() @IsObject() metadata?: Record<string, unknown>;
}

export class ListDocumentsQuery {
  @IsOptional() @IsIn(['draft', 'sent', 'completed', 'canceled', 'declined', 'expired']) status?: string;
  @IsOptional() @IsString() created_after?: string;
  @IsOptional() @IsString() limit?: string;
  @IsOptional() @IsString() starting_after?: string;
}

export class ParticipantDto {
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(200) name: string;
  @Optional() @IsString() @MaxLength(32) phone?: string;
  // An address the notifier can use (blank means none), checked like member e-mails are.
  @Optional() @IsString() @MaxLength(320) @Matches(/^\s*([^\s@]+@[^\s@]+\.[^\s@]+)?\s*$/, { message: 'email must be an e-mail address, e.g. hong@example.com.' })
  email?: string;
  @Optional() @IsIn(['signer', 'reviewer', 'cc']) role?: 'signer' | 'reviewer' | 'cc';
  @Optional() @IsInt() @Min(1) @Max(1000) signing_order?: number;
  @Optional() @IsIn(['sms_pin', 'none']) auth?: 'sms_pin' | 'none';
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
  @Optional() @IsBoolean() required?: boolean;
  @Optional() @IsBoolean() upload_only?: boolean;
}

export class ReplaceFieldsDto {
  @IsDefined() @IsArray() @ArrayMaxSize(500) @ValidateNested({ each: true }) @Type(() => FieldDto)
  fields: FieldDto[];
}
