import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { AttachmentKind, FIELD_TYPES, FieldType } from '@dojang/domain';
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
  ValidateBy,
  ValidateIf,
  ValidateNested,
} from 'class-validator';

/**
 * Optional, but not nullable: an absent property is skipped, while `null` is validated like any
 * other value and so refused (400) instead of reaching the controllers, which would otherwise
 * crash on it (500) or store it (PATCH content: null would wipe the body).
 */
const Optional = () => ValidateIf((_object: object, value: unknown) => value !== undefined);

/** One part of a document of several (docs/API.md, "Documents of several parts"): a body or an uploaded PDF. */
export class DocumentPartDto {
  @ApiPropertyOptional({ type: 'string', maxLength: 500, description: 'Printed as the part\'s heading (HTML/text parts). Part 0 defaults to the document\'s title (shown as show_title says); later parts print none unless given.' })
  @Optional() @IsString() @MaxLength(500) title?: string;
  @ApiPropertyOptional({ type: 'string', maxLength: 2_000_000, description: 'The part\'s body (give content or file_url).' }) @Optional() @IsString() @MaxLength(2_000_000) content?: string;
  @ApiPropertyOptional({ enum: ['html', 'text'], description: 'With content: default html.' }) @Optional() @IsIn(['html', 'text']) content_format?: 'html' | 'text';
  @ApiPropertyOptional({ type: 'string', maxLength: 2048, description: 'A PDF uploaded with POST /files (its file_url).' }) @Optional() @IsString() @MaxLength(2048) file_url?: string;
}

export class CreateDocumentDto {
  // Required (the controller answers missing_parameter), though checked there rather than here.
  @ApiProperty({ type: 'string', maxLength: 500 }) @Optional() @IsString() @MaxLength(500) title?: string;
  @ApiPropertyOptional({ type: 'string', maxLength: 2_000_000 }) @Optional() @IsString() @MaxLength(2_000_000) content?: string;
  @ApiPropertyOptional({ enum: ['html', 'text'] }) @Optional() @IsIn(['html', 'text']) content_format?: 'html' | 'text';
  @ApiPropertyOptional({ type: 'string', maxLength: 2048 }) @Optional() @IsString() @MaxLength(2048) file_url?: string;
  @ApiPropertyOptional({ type: 'string', maxLength: 200 }) @Optional() @IsString() @MaxLength(200) author_name?: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) @Optional() @IsObject() metadata?: Record<string, unknown>;
  @ApiPropertyOptional({ type: 'string', minLength: 1, maxLength: 200, description: 'Your own id for the document: kept, returned in every webhook about it, and searchable (GET /documents?external_id=).' })
  @Optional() @IsString() @IsNotEmpty() @MaxLength(200) external_id?: string;
  @ApiPropertyOptional({ type: 'string', maxLength: 100 }) @Optional() @IsString() @MaxLength(100) from_template?: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) @Optional() @IsObject() variables?: Record<string, unknown>;
  @ApiPropertyOptional({ type: 'boolean', description: 'Default true: the rendered PDF prints the title as a centred heading above the body on page 1. false: the body starts at the top margin (content only; fixed at creation).' })
  @Optional() @IsBoolean() show_title?: boolean;
  @ApiPropertyOptional({ type: () => [DocumentPartDto], minItems: 1, maxItems: 10, description: 'Several files in one document, shown and signed in order, delivered as one signed PDF (instead of content, file_url or from_template).' })
  @Optional() @IsArray() @ArrayNotEmpty() @ArrayMaxSize(10) @ValidateNested({ each: true }) @Type(() => DocumentPartDto) parts?: DocumentPartDto[];
}

export class UpdateDocumentDto {
  @ApiPropertyOptional({ type: () => [DocumentPartDto], minItems: 1, maxItems: 10, description: 'Every part, replacing the draft\'s (a document made with parts; not with content).' })
  @Optional() @IsArray() @ArrayNotEmpty() @ArrayMaxSize(10) @ValidateNested({ each: true }) @Type(() => DocumentPartDto) parts?: DocumentPartDto[];
  @ApiPropertyOptional({ type: 'string', maxLength: 500 }) @Optional() @IsString() @MaxLength(500) title?: string;
  @ApiPropertyOptional({ type: 'string', maxLength: 2_000_000 }) @Optional() @IsString() @MaxLength(2_000_000) content?: string;
  @ApiPropertyOptional({ type: 'string', maxLength: 200 }) @Optional() @IsString() @MaxLength(200) author_name?: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) @Optional() @IsObject() metadata?: Record<string, unknown>;
}

export class ListDocumentsQuery {
  @ApiPropertyOptional({ enum: ['draft', 'sent', 'completed', 'canceled', 'declined', 'expired'] }) @IsOptional() @IsIn(['draft', 'sent', 'completed', 'canceled', 'declined', 'expired']) status?: string;
  @ApiPropertyOptional({ type: 'string' }) @IsOptional() @IsString() created_after?: string;
  @ApiPropertyOptional({ type: 'string' }) @IsOptional() @IsString() limit?: string;
  @ApiPropertyOptional({ type: 'string' }) @IsOptional() @IsString() starting_after?: string;
  @ApiPropertyOptional({ type: 'string', description: 'id of the first item of the next page: returns the page before it' }) @IsOptional() @IsString() ending_before?: string;
  @ApiPropertyOptional({ type: 'string', maxLength: 200, description: 'Only the documents given this external_id (at creation, or by their bulk send row).' })
  @IsOptional() @IsString() @MaxLength(200) external_id?: string;
  /** `metadata[사번]=E-1`: one key and its value. */
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, description: 'metadata[key]=value: only the documents whose metadata holds that value under that key (one key per request).' })
  @IsOptional() @IsObject() metadata?: Record<string, unknown>;
}

export class ParticipantDto {
  @ApiProperty({ type: 'string', maxLength: 200 }) @IsDefined() @IsString() @IsNotEmpty() @MaxLength(200) name: string;
  @ApiPropertyOptional({ type: 'string', maxLength: 32 }) @Optional() @IsString() @MaxLength(32) phone?: string;
  // An address the notifier can use (blank means none), checked like member e-mails are.
  @ApiPropertyOptional({ type: 'string', maxLength: 320, format: 'email' })
  @Optional() @IsString() @MaxLength(320) @Matches(/^\s*([^\s@]+@[^\s@]+\.[^\s@]+)?\s*$/, { message: 'email must be an e-mail address, e.g. hong@example.com.' })
  email?: string;
  @ApiPropertyOptional({ enum: ['signer', 'reviewer', 'cc'] }) @Optional() @IsIn(['signer', 'reviewer', 'cc']) role?: 'signer' | 'reviewer' | 'cc';
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 1000 }) @Optional() @IsInt() @Min(1) @Max(1000) signing_order?: number;
  @ApiPropertyOptional({ enum: ['sms_pin', 'none'] }) @Optional() @IsIn(['sms_pin', 'none']) auth?: 'sms_pin' | 'none';
  @ApiPropertyOptional({ type: 'string', format: 'uri', maxLength: 2048, description: 'https URL the signing page sends the signer to after signing or declining, with ?dojang_event=signed|declined&document_id=…&participant_id=…' })
  @Optional() @IsString() @MaxLength(2048) redirect_url?: string;
  @ApiPropertyOptional({ type: 'string', maxLength: 100, description: 'Signing group: participants with the same group (same role and signing_order) are asked together; the first of them to sign signs for all.' })
  @Optional() @IsString() @MaxLength(100) group?: string;
  @ApiPropertyOptional({ type: 'boolean', description: 'Lets this signer hand their signing to another person through their link (POST /v1/signing/{token}/delegate). Default false.' })
  @Optional() @IsBoolean() allow_delegation?: boolean;
  @ApiPropertyOptional({ type: 'boolean', description: 'Signs for the sending organization: only a representative is offered, and may stamp, the organization\'s registered seals (seal_source organization). Not for a cc. Default false.' })
  @Optional() @IsBoolean() representative?: boolean;
  @ApiPropertyOptional({
    enum: ['auto', 'email', 'sms', 'kakao'],
    description: 'How messages reach them. auto (default): e-mail when there is an address, and requests and reminders to the phone too (KakaoTalk 알림톡 when the organization set it up, else SMS/LMS). email, sms or kakao: only there (kakao falls back to SMS/LMS when KakaoTalk fails).',
  })
  @Optional() @IsIn(['auto', 'email', 'sms', 'kakao']) channel?: 'auto' | 'email' | 'sms' | 'kakao';
  @ApiPropertyOptional({ enum: ['ko', 'en'], description: 'Language of their messages. Default: Korean, or English for a foreign (+country code other than +82) phone number.' })
  @Optional() @IsIn(['ko', 'en']) language?: 'ko' | 'en';
}

export class ParticipantBatchDto {
  @ApiProperty({ type: () => [ParticipantDto], minItems: 1, maxItems: 50 })
  @IsDefined() @IsArray() @ArrayNotEmpty() @ArrayMaxSize(50) @ValidateNested({ each: true }) @Type(() => ParticipantDto)
  participants: ParticipantDto[];
}

/** A prefilled value: a string, a number (number fields) or a boolean (checkbox, radio); the domain checks it against the field. */
const IsScalarValue = () =>
  ValidateBy({
    name: 'isScalarValue',
    validator: {
      validate: (v: unknown) => (typeof v === 'string' && v.length <= 10_000) || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)),
      defaultMessage: (args) => `${args?.property ?? 'value'} must be a string (at most 10000 characters), a number or a boolean.`,
    },
  });

/** Where a field goes by what the document says (docs/API.md, "Placing fields by anchor"). */
export class FieldAnchorDto {
  @ApiProperty({ type: 'string', minLength: 1, maxLength: 200, description: 'A {{type:name}} placeholder written in HTML content (e.g. {{signature:employee}}; it renders as blank room), or any text of the PDF, e.g. (인) (white space ignored).' })
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(200) text: string;
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 1000, description: 'Which appearance, counted in reading order over the pages (default 1).' })
  @Optional() @IsInt() @Min(1) @Max(1000) occurrence?: number;
  @ApiPropertyOptional({ type: 'number', minimum: -100, maximum: 100, description: 'Percent of the page width added to the found text\'s left edge (default 0).' })
  @Optional() @IsNumber() @Min(-100) @Max(100) offset_x?: number;
  @ApiPropertyOptional({ type: 'number', minimum: -100, maximum: 100, description: 'Percent of the page height added to the found text\'s top edge (default 0; negative moves up).' })
  @Optional() @IsNumber() @Min(-100) @Max(100) offset_y?: number;
  @ApiPropertyOptional({ type: 'number', minimum: 1, maximum: 100, description: 'The field\'s width in percent of the page (default: the found text\'s width, at least 1).' })
  @Optional() @IsNumber() @Min(1) @Max(100) width?: number;
  @ApiPropertyOptional({ type: 'number', minimum: 1, maximum: 100, description: 'The field\'s height in percent of the page (default: the found text\'s height, at least 1).' })
  @Optional() @IsNumber() @Min(1) @Max(100) height?: number;
}

/** Coordinates are required unless the field gives an anchor (then they are found, and must be left out). */
const Placed = () => ValidateIf((o: FieldDto) => o.anchor === undefined);

export class FieldDto {
  @ApiProperty({ type: 'string' }) @IsDefined() @IsString() @IsNotEmpty() participant_id: string;
  @ApiProperty({ enum: FIELD_TYPES, description: 'signature and seal take images at signing; the other types take values (see docs/API.md, "Field types").' })
  @IsDefined() @IsIn(FIELD_TYPES as unknown as string[]) type: FieldType;
  @ApiPropertyOptional({ type: () => FieldAnchorDto, description: 'Place the field by text in the document instead of page/x/y/width/height (leave those out). Resolved now against the document\'s PDF; the response shows the page and box found.' })
  @Optional() @IsObject() @ValidateNested() @Type(() => FieldAnchorDto) anchor?: FieldAnchorDto;
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 9, description: 'The part the field is on (documents of several parts). With page it may be left out (the part holding that page); given, page must be one of its pages. With anchor: the part searched (default 0).' })
  @Optional() @IsInt() @Min(0) @Max(9) part?: number;
  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: 'The page of the whole document, every part counted once (page n of part p is parts[p].first_page + n - 1), as the PDF\'s footers, the signing session and the page images number it. Required unless anchor is given.' }) @Placed() @IsDefined() @IsInt() @Min(1) page?: number;
  @ApiPropertyOptional({ type: 'number', minimum: 0, maximum: 100, description: 'Percent of the displayed page width from its left edge (required unless anchor is given).' }) @Placed() @IsDefined() @IsNumber() @Min(0) @Max(100) x?: number;
  @ApiPropertyOptional({ type: 'number', minimum: 0, maximum: 100, description: 'Percent of the displayed page height from its top edge (required unless anchor is given).' }) @Placed() @IsDefined() @IsNumber() @Min(0) @Max(100) y?: number;
  // At least MIN_FIELD_SIZE_PERCENT (1): the decider refuses smaller boxes, naming the field.
  @ApiPropertyOptional({ type: 'number', minimum: 1, maximum: 100, description: 'Percent of the displayed page width, at least 1 (required unless anchor is given).' }) @Placed() @IsDefined() @IsNumber() @Min(0) @Max(100) width?: number;
  @ApiPropertyOptional({ type: 'number', minimum: 1, maximum: 100, description: 'Percent of the displayed page height, at least 1 (required unless anchor is given).' }) @Placed() @IsDefined() @IsNumber() @Min(0) @Max(100) height?: number;
  @ApiPropertyOptional({ type: 'boolean', description: 'Default true, except checkboxes in a group (default false: min_checked says how many).' }) @Optional() @IsBoolean() required?: boolean;
  @ApiPropertyOptional({ type: 'boolean' }) @Optional() @IsBoolean() upload_only?: boolean;
  @ApiPropertyOptional({ type: 'string', maxLength: 200, description: 'Shown to the signer, in form_data and in the audit certificate.' }) @Optional() @IsString() @MaxLength(200) label?: string;
  @ApiPropertyOptional({ type: 'boolean', description: 'The signer sees the sender\'s value and cannot change it (needs value).' }) @Optional() @IsBoolean() read_only?: boolean;
  @ApiPropertyOptional({ oneOf: [{ type: 'string', maxLength: 10_000 }, { type: 'number' }, { type: 'boolean' }], description: 'The sender\'s prefill: text, a number (3500000, or as written: 3,500,000, 3,500,000원, ₩3,500,000), a date (1995-03-15, 1995.03.15, 1995. 3. 15., 1995년 3월 15일; recorded YYYY-MM-DD), a dropdown option, true/false for checkbox and radio.' })
  @Optional() @IsScalarValue() value?: string | number | boolean;
  @ApiPropertyOptional({ type: 'number', minimum: 4, maximum: 72, description: 'Text-like types: points; absent: fitted to the box.' }) @Optional() @IsNumber() font_size?: number;
  @ApiPropertyOptional({ type: 'boolean', description: 'text: allow line breaks (the text wraps in its box).' }) @Optional() @IsBoolean() multiline?: boolean;
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 10_000, description: 'text: at most this many characters (default 1000).' }) @Optional() @IsInt() max_length?: number;
  @ApiPropertyOptional({ type: 'string', maxLength: 200, description: 'text: a regular expression the whole value must match; it must run in linear time (no backreferences or lookaround).' }) @Optional() @IsString() @MaxLength(200) pattern?: string;
  @ApiPropertyOptional({ type: 'string', maxLength: 200, description: 'text: the message shown when the value does not match pattern.' }) @Optional() @IsString() @MaxLength(200) pattern_message?: string;
  @ApiPropertyOptional({ type: 'number', description: 'number: the smallest value.' }) @Optional() @IsNumber() min?: number;
  @ApiPropertyOptional({ type: 'number', description: 'number: the largest value.' }) @Optional() @IsNumber() max?: number;
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 6, description: 'number: decimal places allowed (default 0); a number_format other than plain shows exactly this many.' }) @Optional() @IsInt() decimals?: number;
  @ApiPropertyOptional({ enum: ['plain', 'grouped', 'won', 'krw'], description: 'number: how the value is printed in the PDF, the audit certificate and form_data\'s display_value: plain as recorded (3500000, default), grouped 3,500,000, won 3,500,000원, krw ₩3,500,000. The value itself is always recorded plain.' })
  @Optional() @IsIn(['plain', 'grouped', 'won', 'krw']) number_format?: 'plain' | 'grouped' | 'won' | 'krw';
  @ApiPropertyOptional({ type: 'array', items: { type: 'string', maxLength: 200 }, maxItems: 100, description: 'dropdown: the choices (at least one).' })
  @Optional() @IsArray() @ArrayMaxSize(100) @IsString({ each: true }) @MaxLength(200, { each: true }) options?: string[];
  @ApiPropertyOptional({ type: 'string', maxLength: 100, description: 'checkbox and radio: fields of one participant answered together.' }) @Optional() @IsString() @MaxLength(100) group?: string;
  @ApiPropertyOptional({ type: 'string', maxLength: 200, description: 'radio: the choice this button stands for.' }) @Optional() @IsString() @MaxLength(200) option?: string;
  @ApiPropertyOptional({ type: 'integer', minimum: 0, description: 'checkbox group: at least this many checked.' }) @Optional() @IsInt() min_checked?: number;
  @ApiPropertyOptional({ type: 'integer', minimum: 0, description: 'checkbox group: at most this many checked.' }) @Optional() @IsInt() max_checked?: number;
  @ApiPropertyOptional({ enum: ['ko', 'en'], description: 'date and signing_date: ko writes 2027년 1월 2일, en 2027-01-02; absent: the organization\'s date_format (PATCH /v1/organization; default 2027년 1월 2일).' }) @Optional() @IsIn(['ko', 'en']) locale?: 'ko' | 'en';
  // The domain checks each entry (fields[i].accept[j]) so the refusal names it.
  @ApiPropertyOptional({ type: 'array', items: { type: 'string', enum: ['pdf', 'jpeg', 'png'] }, maxItems: 3, description: 'attachment: the kinds of file it takes, judged by the bytes (default all three).' })
  @Optional() @IsArray() @ArrayMaxSize(3) accept?: AttachmentKind[];
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 26214400, description: 'attachment: the largest upload in bytes (default 10485760 = 10 MiB, at most 25 MiB).' }) @Optional() @IsInt() max_bytes?: number;
}

export class ReplaceFieldsDto {
  @ApiProperty({ type: () => [FieldDto], maxItems: 500 })
  @IsDefined() @IsArray() @ArrayMaxSize(500) @ValidateNested({ each: true }) @Type(() => FieldDto)
  fields: FieldDto[];
}

/**
 * A correction of a participant who has not signed (PATCH …/participants/{id}). Blank phone or
 * email removes it. After send the participant's signing link is replaced.
 */
export class CorrectParticipantDto {
  @ApiPropertyOptional({ type: 'string', maxLength: 200 }) @Optional() @IsString() @IsNotEmpty() @MaxLength(200) name?: string;
  @ApiPropertyOptional({ type: 'string', maxLength: 32, description: 'Korean (010-1234-5678, +82 10-1234-5678) or international (+1 415 555 2671); blank removes it' })
  @Optional() @IsString() @MaxLength(32) phone?: string;
  @ApiPropertyOptional({ type: 'string', maxLength: 320, description: 'blank removes it' })
  @Optional() @IsString() @MaxLength(320) @Matches(/^\s*([^\s@]+@[^\s@]+\.[^\s@]+)?\s*$/, { message: 'email must be an e-mail address, e.g. hong@example.com.' })
  email?: string;
  @ApiPropertyOptional({ enum: ['sms_pin', 'none'] }) @Optional() @IsIn(['sms_pin', 'none']) auth?: 'sms_pin' | 'none';
}
