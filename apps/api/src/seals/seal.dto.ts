import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsDefined, IsIn, IsOptional, IsString, MaxLength, ValidateIf } from 'class-validator';

/** Optional but not nullable (null is validated, and refused). */
const Optional = () => ValidateIf((_o: object, value: unknown) => value !== undefined);

export class CreateSealDto {
  @ApiPropertyOptional({ description: 'Display name. Defaults to company_name for a generated seal; required for an uploaded one.', maxLength: 100, example: '대표이사 직인' })
  @Optional()
  @IsString()
  @MaxLength(100)
  name?: string;

  @ApiPropertyOptional({ enum: ['corporate', 'usage'], default: 'corporate', description: 'corporate (법인 직인) or usage (사용 인감).' })
  @Optional()
  @IsIn(['corporate', 'usage'])
  type?: 'corporate' | 'usage';

  @ApiProperty({ enum: ['generated', 'uploaded'], description: 'generated renders a round red seal from company_name on the server; uploaded takes image.' })
  @IsDefined()
  @IsIn(['generated', 'uploaded'])
  source: 'generated' | 'uploaded';

  @ApiPropertyOptional({ description: 'Company name to render (source generated), at most 30 characters.', example: '주식회사 도장' })
  @Optional()
  @IsString()
  @MaxLength(200)
  company_name?: string;

  @ApiPropertyOptional({ description: 'Seal image as a base64 data URL (source uploaded): PNG or JPEG judged by its bytes, at most 1 MB decoded.', example: 'data:image/png;base64,iVBORw0KGgo…' })
  @Optional()
  @IsString()
  @MaxLength(1_500_000)
  image?: string;

  @ApiPropertyOptional({ description: 'A restricted seal cannot be chosen by signers through a signing link.', default: false })
  @Optional()
  @IsBoolean()
  restricted?: boolean;
}

export class ListSealsQuery {
  @ApiPropertyOptional({ description: 'Page size, 1 to 100 (default 20).' })
  @IsOptional()
  @IsString()
  limit?: string;

  @ApiPropertyOptional({ description: 'Cursor: the id of the last seal of the previous page.' })
  @IsOptional()
  @IsString()
  starting_after?: string;

  @ApiPropertyOptional({ description: 'Cursor: the id of the first seal of the next page; returns the page before it.' })
  @IsOptional()
  @IsString()
  ending_before?: string;
}
