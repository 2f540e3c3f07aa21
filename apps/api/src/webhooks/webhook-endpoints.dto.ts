import { ArrayMaxSize, IsArray, IsBoolean, IsDefined, IsIn, IsOptional, IsString, MaxLength, ValidateIf } from 'class-validator';

/** Optional but not nullable (see document.dto.ts). */
const Optional = () => ValidateIf((_object: object, value: unknown) => value !== undefined);
/** Optional, and null is a value of its own (clears the field). */
const OptionalNullable = () => ValidateIf((_object: object, value: unknown) => value !== undefined && value !== null);

export class CreateWebhookEndpointDto {
  @IsDefined() @IsString() @MaxLength(2048) url: string;
  @Optional() @IsArray() @ArrayMaxSize(50) @IsString({ each: true }) events?: string[];
  @Optional() @IsString() @MaxLength(500) description?: string;
}

export class UpdateWebhookEndpointDto {
  @Optional() @IsString() @MaxLength(2048) url?: string;
  @Optional() @IsArray() @ArrayMaxSize(50) @IsString({ each: true }) events?: string[];
  @OptionalNullable() @IsString() @MaxLength(500) description?: string | null;
  /** `enabled` or `disabled`, as the endpoint shows it. */
  @Optional() @IsIn(['enabled', 'disabled']) status?: 'enabled' | 'disabled';
  /** Stripe-style alias of status. */
  @Optional() @IsBoolean() disabled?: boolean;
}

export class ListWebhookEndpointsQuery {
  @IsOptional() @IsString() limit?: string;
  @IsOptional() @IsString() starting_after?: string;
}

export class ListWebhookDeliveriesQuery {
  @IsOptional() @IsIn(['pending', 'delivering', 'succeeded', 'failed', 'canceled']) status?: string;
  @IsOptional() @IsString() event_id?: string;
  @IsOptional() @IsString() limit?: string;
  @IsOptional() @IsString() starting_after?: string;
}
