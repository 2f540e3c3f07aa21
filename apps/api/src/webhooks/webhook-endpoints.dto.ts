import { ApiProperty, ApiPropertyOptional, ApiPropertyOptions } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsBoolean, IsDefined, IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { PUBLIC_EVENT_TYPES } from '@dojang/projections';

/** Optional but not nullable (see document.dto.ts). */
const Optional = () => ValidateIf((_object: object, value: unknown) => value !== undefined);
/** Optional, and null is a value of its own (clears the field). */
const OptionalNullable = () => ValidateIf((_object: object, value: unknown) => value !== undefined && value !== null);

const EVENTS_DOC: ApiPropertyOptions = {
  type: 'string',
  isArray: true,
  enum: ['*', ...PUBLIC_EVENT_TYPES],
  maxItems: 50,
  description: 'Event types to receive; ["*"] (the default) means all, including types added later.',
};

export class CreateWebhookEndpointDto {
  @ApiProperty({ type: 'string', maxLength: 2048, format: 'uri', description: 'http or https; private, loopback and link-local targets are refused.' })
  @IsDefined()
  @IsString()
  @MaxLength(2048)
  url: string;

  @ApiPropertyOptional(EVENTS_DOC) @Optional() @IsArray() @ArrayMaxSize(50) @IsString({ each: true }) events?: string[];

  @ApiPropertyOptional({ type: 'string', maxLength: 500 }) @Optional() @IsString() @MaxLength(500) description?: string;
}

export class UpdateWebhookEndpointDto {
  @ApiPropertyOptional({ type: 'string', maxLength: 2048, format: 'uri' }) @Optional() @IsString() @MaxLength(2048) url?: string;

  @ApiPropertyOptional(EVENTS_DOC) @Optional() @IsArray() @ArrayMaxSize(50) @IsString({ each: true }) events?: string[];

  @ApiPropertyOptional({ type: 'string', maxLength: 500, nullable: true, description: 'null clears it.' })
  @OptionalNullable()
  @IsString()
  @MaxLength(500)
  description?: string | null;

  /** `enabled` or `disabled`, as the endpoint shows it. */
  @ApiPropertyOptional({ enum: ['enabled', 'disabled'] }) @Optional() @IsIn(['enabled', 'disabled']) status?: 'enabled' | 'disabled';

  /** Stripe-style alias of status. */
  @ApiPropertyOptional({ type: 'boolean', description: 'Alias of status: true disables, false enables.' }) @Optional() @IsBoolean() disabled?: boolean;
}

export class ListWebhookEndpointsQuery {
  @ApiPropertyOptional({ type: 'string', description: '1 to 100, default 20' }) @IsOptional() @IsString() limit?: string;
  @ApiPropertyOptional({ type: 'string', description: 'id of the last endpoint of the previous page' }) @IsOptional() @IsString() starting_after?: string;
  @ApiPropertyOptional({ type: 'string', description: 'id of the first endpoint of the next page: returns the page before it' }) @IsOptional() @IsString() ending_before?: string;
}

export class ListWebhookDeliveriesQuery {
  @ApiPropertyOptional({ enum: ['pending', 'delivering', 'succeeded', 'failed', 'canceled'] })
  @IsOptional()
  @IsIn(['pending', 'delivering', 'succeeded', 'failed', 'canceled'])
  status?: string;

  @ApiPropertyOptional({ type: 'string', description: 'only deliveries of this event (evt_…)' }) @IsOptional() @IsString() event_id?: string;
  @ApiPropertyOptional({ type: 'string', description: '1 to 100, default 20' }) @IsOptional() @IsString() limit?: string;
  @ApiPropertyOptional({ type: 'string', description: 'id of the last delivery of the previous page' }) @IsOptional() @IsString() starting_after?: string;
  @ApiPropertyOptional({ type: 'string', description: 'id of the first delivery of the next page: returns the page before it' }) @IsOptional() @IsString() ending_before?: string;
}

export class RotateWebhookSecretDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 604800, default: 86400, description: 'How long the previous secret keeps signing next to the new one (seconds; default 24 h, at most 7 days).' })
  @Optional()
  @IsInt()
  @Min(0)
  @Max(604800)
  grace_period_seconds?: number;
}
