import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

export class SendDocumentDto {
  @IsOptional() @IsInt() @Min(1) @Max(365) expires_in_days?: number;
  @IsOptional() @IsString() @MaxLength(2000) message?: string;
}
