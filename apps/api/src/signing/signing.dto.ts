import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsDefined, IsIn, IsNotEmpty, IsObject, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

export class VerifyPinDto {
  @ApiProperty({ type: 'string', maxLength: 12 }) @IsDefined() @IsString() @MaxLength(12) pin: string;
}

export class SignDto {
  @ApiProperty({ type: 'boolean' }) @IsDefined() @IsBoolean() consent: boolean;
  @ApiPropertyOptional({ type: 'string', maxLength: 1_500_000 }) @IsOptional() @IsString() @MaxLength(1_500_000) signature?: string;
  @ApiPropertyOptional({ type: 'string', maxLength: 100 }) @IsOptional() @IsString() @MaxLength(100) seal_id?: string;
  @ApiPropertyOptional({ type: 'string', maxLength: 1_500_000 }) @IsOptional() @IsString() @MaxLength(1_500_000) seal_image?: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }] },
    description: 'The participant\'s field values by field id: strings for text, initials, date (1995-03-15, 1995.03.15, 1995. 3. 15. or 1995년 3월 15일; recorded YYYY-MM-DD) and dropdown, a number or a number as written (3500000, 3,500,000, 3,500,000원, ₩3,500,000) for number, true/false for checkbox and radio (true on the chosen button). Not for signature, seal, read-only, name, email, phone or signing_date fields.',
  })
  @IsOptional() @IsObject() values?: Record<string, unknown>;
  @ApiPropertyOptional({
    type: 'string',
    enum: ['made', 'drawn', 'uploaded', 'organization'],
    description: 'Where the seal came from, recorded on the signing event (seal.source, with the image\'s SHA-256): made (POST …/seal_preview; give seal_shape and seal_text, and its image as seal_image: the server renders it again and refuses another image with 400 seal_image_mismatch), drawn or uploaded (seal_image), organization (seal_id; a representative participant only, else 400 seal_representative_only). Absent: uploaded for seal_image, organization for seal_id.',
  })
  @IsOptional() @IsIn(['made', 'drawn', 'uploaded', 'organization'], { message: 'seal_source must be made, drawn, uploaded or organization.' })
  seal_source?: 'made' | 'drawn' | 'uploaded' | 'organization';
  @ApiPropertyOptional({ type: 'string', enum: ['round', 'square'], description: 'With seal_source made: the shape given to POST …/seal_preview.' })
  @IsOptional() @IsIn(['round', 'square'], { message: 'seal_shape must be round or square.' })
  seal_shape?: 'round' | 'square';
  // No MaxLength: any text a seal cannot take is 400 seal_text_invalid, whatever its length.
  @ApiPropertyOptional({ type: 'string', description: 'With seal_source made: the text given to POST …/seal_preview (default the participant\'s name).' })
  @IsOptional() @IsString() seal_text?: string;
}

/** A signing draft's changes: values by field id, null clearing one (PUT /signing/{token}/draft). */
export class SaveDraftDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }] },
    description: 'Values by field id in the shapes POST …/sign takes (an attachment field\'s value is the attachment_id of POST …/attachments); null clears a field. Merged into the saved draft.',
  })
  @IsDefined() @IsObject() values: Record<string, unknown>;
}

/** A seal made from a name (POST /signing/{token}/seal_preview). */
export class SealPreviewDto {
  @ApiProperty({ type: 'string', enum: ['round', 'square'] })
  @IsDefined() @IsIn(['round', 'square'], { message: 'shape must be round or square.' })
  shape: 'round' | 'square';
  // No MaxLength: any text a seal cannot take is 400 seal_text_invalid, whatever its length.
  @ApiPropertyOptional({ type: 'string', description: '1 to 10 characters after trimming: Hangul, Hanja, Latin letters, digits, spaces and the middle dot (·); default the participant\'s name. Anything else (emoji, symbols, control or direction characters, more than 10): 400 seal_text_invalid.' })
  @IsOptional() @IsString() text?: string;
}

export class DeclineDto {
  @ApiProperty({ type: 'string', maxLength: 1000 }) @IsDefined() @IsString() @MaxLength(1000) reason: string;
}

/** Who the signer hands their signing to; the link goes to the phone (SMS) and/or the e-mail. */
export class DelegateDto {
  @ApiProperty({ type: 'string', maxLength: 200 }) @IsDefined() @IsString() @IsNotEmpty() @MaxLength(200) name: string;
  @ApiPropertyOptional({ type: 'string', maxLength: 32, description: 'Needed when the participant signs with an SMS PIN: the delegate verifies a PIN sent to this phone.' })
  @IsOptional() @IsString() @MaxLength(32) phone?: string;
  @ApiPropertyOptional({ type: 'string', maxLength: 320, format: 'email' })
  @IsOptional() @IsString() @MaxLength(320) @Matches(/^\s*([^\s@]+@[^\s@]+\.[^\s@]+)?\s*$/, { message: 'email must be an e-mail address, e.g. hong@example.com.' })
  email?: string;
}
