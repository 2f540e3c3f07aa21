import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsObject, IsString, MaxLength, ValidateIf, ValidateNested } from 'class-validator';
import { DATE_FORMATS } from '@dojang/domain';

/** Optional but not nullable. */
const Optional = () => ValidateIf((_object: object, value: unknown) => value !== undefined);
/** Optional, and null is a value of its own (clears the setting). */
const OptionalNullable = () => ValidateIf((_object: object, value: unknown) => value !== undefined && value !== null);

export class BrandDto {
  @ApiPropertyOptional({ type: 'string', maxLength: 40, nullable: true, description: 'The name people know the sender by: e-mail From name and subject prefix, SMS prefix [name], signing page header. null: the organization\'s name.' })
  @OptionalNullable() @IsString() @MaxLength(200) display_name?: string | null;
  @ApiPropertyOptional({ type: 'string', pattern: '^#[0-9a-fA-F]{6}$', nullable: true, description: 'Hex colour for e-mails and the signing page header.' })
  @OptionalNullable() @IsString() @MaxLength(20) color?: string | null;
  @ApiPropertyOptional({ type: 'string', format: 'email', maxLength: 320, nullable: true, description: 'Reply-To of the e-mails.' })
  @OptionalNullable() @IsString() @MaxLength(400) reply_to?: string | null;
}

export class QuietHoursDto {
  @ApiPropertyOptional({ type: 'string', pattern: '^([01]\\d|2[0-3]):[0-5]\\d$', example: '21:00' }) @IsString() @MaxLength(5) start: string;
  @ApiPropertyOptional({ type: 'string', pattern: '^([01]\\d|2[0-3]):[0-5]\\d$', example: '08:00' }) @IsString() @MaxLength(5) end: string;
}

export class KakaoSettingsDto {
  @ApiPropertyOptional({ type: 'string', maxLength: 64, description: 'Sender profile key (pfId) of the KakaoTalk business channel.' }) @IsString() @MaxLength(64) pf_id: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string', maxLength: 64 },
    description: 'Approved 알림톡 template code per message kind: signing_request, reminder, completed, canceled, expired, declined. A kind without one goes by SMS/LMS.',
    example: { signing_request: 'DOJANG_REQ_01', reminder: 'DOJANG_REM_01' },
  })
  @IsObject() templates: Record<string, string>;
}

/** PATCH /v1/organization: the settings an integrator manages itself. Each part is optional; null turns it off. */
export class UpdateOrganizationDto {
  @ApiPropertyOptional({ type: () => BrandDto }) @Optional() @IsObject() @ValidateNested() @Type(() => BrandDto) brand?: BrandDto;
  @ApiPropertyOptional({ type: 'string', maxLength: 64, example: 'Asia/Seoul', description: 'IANA time zone.' }) @Optional() @IsString() @MaxLength(64) time_zone?: string;
  @ApiPropertyOptional({
    enum: [...DATE_FORMATS],
    example: 'YYYY. M. D.',
    description: 'How documents sent from now on print dates (date fields in the PDF, the audit certificate and form_data; dates of times in Korean messages): 1995년 3월 15일, 1995. 3. 15., 1995.03.15 or 1995-03-15. Anything else: 400 invalid_parameter naming date_format.',
  })
  @Optional() @IsString() @MaxLength(32) date_format?: string;
  @ApiPropertyOptional({ type: () => QuietHoursDto, nullable: true, description: 'null: no quiet hours.' })
  @OptionalNullable() @IsObject() @ValidateNested() @Type(() => QuietHoursDto) quiet_hours?: QuietHoursDto | null;
  @ApiPropertyOptional({ type: () => KakaoSettingsDto, nullable: true, description: 'null: KakaoTalk off.' })
  @OptionalNullable() @IsObject() @ValidateNested() @Type(() => KakaoSettingsDto) kakao?: KakaoSettingsDto | null;
}
