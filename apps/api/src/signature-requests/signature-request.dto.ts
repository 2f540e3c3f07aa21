import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsIn, IsInt, IsObject, IsString, Max, MaxLength, Min, ValidateIf, ValidateNested } from 'class-validator';

const Optional = () => ValidateIf((_o: object, value: unknown) => value !== undefined);

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

export class CreateSignatureRequestDto {
  @ApiProperty({ description: 'Document title.', maxLength: 500, example: '용역 계약서' })
  @IsDefined()
  @IsString()
  @MaxLength(500)
  title: string;

  @ApiProperty({ description: 'Contract body (HTML, or plain text with content_format text).', example: '<p>갑과 을은 다음과 같이 용역 계약을 체결한다.</p>' })
  @IsDefined()
  @IsString()
  @MaxLength(2_000_000)
  content: string;

  @ApiPropertyOptional({ enum: ['html', 'text'], default: 'html' })
  @Optional()
  @IsIn(['html', 'text'])
  content_format?: 'html' | 'text';

  @ApiProperty({ type: () => RecipientDto })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => RecipientDto)
  recipient: RecipientDto;

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
}
