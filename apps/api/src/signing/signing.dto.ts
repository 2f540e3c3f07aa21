import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsDefined, IsNotEmpty, IsObject, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

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
