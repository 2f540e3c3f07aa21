import { IsBoolean, IsDefined, IsOptional, IsString, MaxLength } from 'class-validator';

export class VerifyPinDto {
  @IsDefined() @IsString() @MaxLength(12) pin: string;
}

export class SignDto {
  @IsDefined() @IsBoolean() consent: boolean;
  @IsOptional() @IsString() @MaxLength(1_500_000) signature?: string;
  @IsOptional() @IsString() @MaxLength(100) seal_id?: string;
  @IsOptional() @IsString() @MaxLength(1_500_000) seal_image?: string;
}

export class DeclineDto {
  @IsDefined() @IsString() @MaxLength(1000) reason: string;
}
