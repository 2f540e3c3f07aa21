import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

export class SendDocumentDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 365 }) @IsOptional() @IsInt() @Min(1) @Max(365) expires_in_days?: number;
  @ApiPropertyOptional({
    type: 'string',
    format: 'date',
    example: '2026-12-10',
    description: 'The last day to sign, instead of expires_in_days: the request ends at 23:59:59.999 of that day in the organization\'s time_zone.',
  })
  @IsOptional() @IsString() @MaxLength(10) expires_on?: string;
  @ApiPropertyOptional({ type: 'string', maxLength: 2000 }) @IsOptional() @IsString() @MaxLength(2000) message?: string;
}

export class CancelDocumentDto {
  @ApiPropertyOptional({ type: 'string', maxLength: 1000, description: 'Shown to the participants in the cancel notice and on their signing links, and recorded in DocumentCanceled.' })
  @IsOptional() @IsString() @MaxLength(1000) reason?: string;
}
