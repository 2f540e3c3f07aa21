import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsOptional, IsString, MaxLength } from 'class-validator';

export class CreateTemplateDto {
  @ApiProperty({ description: 'Name shown in template lists.', maxLength: 200, example: '근로계약서 표준' })
  @IsDefined()
  @IsString()
  @MaxLength(200)
  name: string;

  @ApiProperty({
    description: 'HTML body with {{variable}} placeholders, filled when a document is created with from_template.',
    example: '<p>{{employee_name}}님과 {{company}}는 다음과 같이 근로계약을 체결한다.</p>',
  })
  @IsDefined()
  @IsString()
  @MaxLength(2_000_000)
  content: string;
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
