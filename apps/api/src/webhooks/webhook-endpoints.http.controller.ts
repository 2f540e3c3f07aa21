import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import {
  Clock,
  CLOCK,
  Decision,
  Infrastructure,
  prefixedId,
  WEBHOOK_DELIVERIES,
  WebhookDeliveryRow,
  WebhookSecretBox,
} from '@dojang/application';
import {
  ALL_WEBHOOK_EVENTS,
  WebhookEndpointCommand,
  WebhookEndpointEvent,
  WebhookEndpointState,
  webhookEndpointDecider,
  webhookEndpointStreamId,
  WithoutNow,
} from '@dojang/domain';
import { PUBLIC_EVENT_TYPES, WEBHOOK_ENDPOINTS, WebhookEndpointRow } from '@dojang/projections';
import { Condition } from '@dojang/read-store';
import { generateWebhookSecret, validateWebhookUrl } from '@dojang/webhooks';
import { parseLimit } from '../documents/documents.http.controller';
import { ApiError } from '../shared/api-error';
import { Auth, AuthContext, ReqInfo, RequestInfo, commandContext } from '../shared/auth.guard';
import { DecideCommand } from '../shared/decide.command';
import { INFRA } from '../shared/infrastructure.token';
import { CreateWebhookEndpointDto, ListWebhookDeliveriesQuery, ListWebhookEndpointsQuery, UpdateWebhookEndpointDto } from './webhook-endpoints.dto';
import {
  CreatedWebhookEndpointResponse,
  DeletedWebhookEndpointResponse,
  WebhookDeliveryListResponse,
  WebhookDeliveryResponse,
  WebhookEndpointListResponse,
  WebhookEndpointResponse,
} from '../openapi/response-schemas';

const ENDPOINT_ID = /^whe_[0-9a-f]{24}$/;
const KNOWN_EVENTS = new Set<string>([...PUBLIC_EVENT_TYPES, ALL_WEBHOOK_EVENTS]);

export function presentWebhookEndpoint(row: WebhookEndpointRow): WebhookEndpointResponse {
  return {
    id: row.id,
    object: 'webhook_endpoint' as const,
    url: row.url,
    events: row.events,
    description: row.description,
    status: row.status,
    disabled_reason: row.disabled_reason,
    livemode: row.livemode,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function presentWebhookDelivery(row: WebhookDeliveryRow): WebhookDeliveryResponse {
  return {
    id: row.id,
    object: 'webhook_delivery' as const,
    endpoint_id: row.endpoint_id,
    event_id: row.event_id,
    event_type: row.event_type,
    webhook_id: row.webhook_id,
    status: row.status,
    attempt_count: row.attempt_count,
    attempts: row.attempts.map((a) => ({
      attempt: a.attempt,
      started_at: a.started_at,
      finished_at: a.finished_at,
      status_code: a.status_code,
      error_code: a.error_code,
      error: a.error,
      duration_ms: a.duration_ms,
      response_body: a.response_body,
    })),
    // While an attempt is running the row's next_attempt_at is its lease: not a scheduled retry.
    next_attempt_at: row.status === 'pending' ? row.next_attempt_at : null,
    canceled_reason: row.canceled_reason ?? null,
    livemode: row.livemode,
    created_at: row.created_at,
    completed_at: row.completed_at,
  };
}

/**
 * Webhook endpoints of the caller's organization and mode: a test key manages (and receives) only
 * test endpoints, a live key only live ones. Anything else is reported as not found.
 */
@Controller('webhook_endpoints')
export class WebhookEndpointsHttpController {
  private readonly box: WebhookSecretBox;

  constructor(
    @Inject(INFRA) private readonly infra: Infrastructure,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly commandBus: CommandBus,
  ) {
    this.box = WebhookSecretBox.fromConfig(infra.config);
  }

  private checkUrl(url: string): string {
    const problem = validateWebhookUrl(url.trim(), { allowPrivateNetworks: this.infra.config.webhookAllowPrivateNetworks });
    if (problem) throw ApiError.invalid('url', `${problem.charAt(0).toUpperCase()}${problem.slice(1)}.`);
    return url.trim();
  }

  private checkEvents(events: string[]): string[] {
    const unknown = events.find((e) => !KNOWN_EVENTS.has(e));
    if (unknown !== undefined) {
      throw ApiError.invalid('events', `Unknown event type "${unknown}". Use "*" or any of: ${PUBLIC_EVENT_TYPES.join(', ')}.`);
    }
    return events;
  }

  private async row(auth: AuthContext, id: string): Promise<WebhookEndpointRow> {
    const row = ENDPOINT_ID.test(id) ? await this.infra.reads.get<WebhookEndpointRow>(WEBHOOK_ENDPOINTS, id) : null;
    if (!row || row.deleted || row.organization_id !== auth.organization_id || row.livemode !== auth.livemode) {
      throw ApiError.notFound('webhook_endpoint_not_found', 'No such webhook endpoint.');
    }
    return row;
  }

  private async decide(
    auth: AuthContext,
    info: RequestInfo,
    id: string,
    command: WithoutNow<WebhookEndpointCommand>,
  ): Promise<Decision<WebhookEndpointState, WebhookEndpointEvent>> {
    const source = (state: WebhookEndpointState): WebhookEndpointCommand => {
      // Checked on the folded stream, inside the handler's retry loop.
      if (command.type !== 'CreateWebhookEndpoint' && (!state.exists || state.organization_id !== auth.organization_id || state.livemode !== auth.livemode)) {
        throw ApiError.notFound('webhook_endpoint_not_found', 'No such webhook endpoint.');
      }
      return { ...command, now: this.clock.now().toISOString() } as WebhookEndpointCommand;
    };
    return this.commandBus.execute(
      new DecideCommand(webhookEndpointDecider, webhookEndpointStreamId(id), source, commandContext(auth, info)),
    );
  }

  @Post()
  @HttpCode(201)
  async create(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Body() dto: CreateWebhookEndpointDto): Promise<CreatedWebhookEndpointResponse> {
    if (dto.url.trim() === '') throw ApiError.missing('url');
    const url = this.checkUrl(dto.url);
    const events = this.checkEvents(dto.events ?? [ALL_WEBHOOK_EVENTS]);
    const id = prefixedId('whe');
    const secret = generateWebhookSecret();
    await this.decide(auth, info, id, {
      type: 'CreateWebhookEndpoint',
      endpoint_id: id,
      organization_id: auth.organization_id,
      livemode: auth.livemode,
      url,
      events,
      description: dto.description ?? null,
      secret_ciphertext: this.box.seal(id, secret),
    });
    // The only response that ever carries the secret.
    return { ...presentWebhookEndpoint(await this.row(auth, id)), secret };
  }

  @Get()
  async list(@Auth() auth: AuthContext, @Query() q: ListWebhookEndpointsQuery): Promise<WebhookEndpointListResponse> {
    const limit = parseLimit(q.limit);
    const where: Record<string, Condition> = { organization_id: auth.organization_id, livemode: auth.livemode, deleted: false };
    if (q.starting_after !== undefined) {
      const cursor = await this.row(auth, q.starting_after).catch(() => null);
      if (!cursor) throw ApiError.invalid('starting_after', 'starting_after must be the id of a webhook endpoint in this list.');
      where.seq = { $lt: cursor.seq };
    }
    const rows = await this.infra.reads.find<WebhookEndpointRow>(WEBHOOK_ENDPOINTS, { where, orderBy: [{ field: 'seq', direction: 'desc' }], limit: limit + 1 });
    return { object: 'list', data: rows.slice(0, limit).map(presentWebhookEndpoint), has_more: rows.length > limit };
  }

  @Get(':id')
  async get(@Auth() auth: AuthContext, @Param('id') id: string): Promise<WebhookEndpointResponse> {
    return presentWebhookEndpoint(await this.row(auth, id));
  }

  @Patch(':id')
  async update(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Param('id') id: string, @Body() dto: UpdateWebhookEndpointDto): Promise<WebhookEndpointResponse> {
    await this.row(auth, id);
    if (dto.status !== undefined && dto.disabled !== undefined && (dto.status === 'disabled') !== dto.disabled) {
      throw ApiError.invalid('disabled', 'status and disabled disagree; send one of them.');
    }
    const wantDisabled = dto.status !== undefined ? dto.status === 'disabled' : dto.disabled;
    if (dto.url !== undefined || dto.events !== undefined || dto.description !== undefined) {
      await this.decide(auth, info, id, {
        type: 'UpdateWebhookEndpoint',
        ...(dto.url !== undefined ? { url: this.checkUrl(dto.url) } : {}),
        ...(dto.events !== undefined ? { events: this.checkEvents(dto.events) } : {}),
        ...(dto.description !== undefined ? { description: dto.description } : {}),
      });
    }
    if (wantDisabled === true) await this.decide(auth, info, id, { type: 'DisableWebhookEndpoint', reason: 'requested' });
    if (wantDisabled === false) await this.decide(auth, info, id, { type: 'EnableWebhookEndpoint' });
    return presentWebhookEndpoint(await this.row(auth, id));
  }

  @Delete(':id')
  async remove(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Param('id') id: string): Promise<DeletedWebhookEndpointResponse> {
    await this.row(auth, id);
    await this.decide(auth, info, id, { type: 'DeleteWebhookEndpoint' });
    return { id, object: 'webhook_endpoint', deleted: true };
  }

  @Get(':id/deliveries')
  async deliveries(@Auth() auth: AuthContext, @Param('id') id: string, @Query() q: ListWebhookDeliveriesQuery): Promise<WebhookDeliveryListResponse> {
    await this.row(auth, id);
    const limit = parseLimit(q.limit);
    const where: Record<string, Condition> = { endpoint_id: id };
    if (q.status) where.status = q.status;
    if (q.event_id) where.event_id = q.event_id;
    if (q.starting_after !== undefined) {
      const cursor = await this.infra.reads.get<WebhookDeliveryRow>(WEBHOOK_DELIVERIES, q.starting_after);
      if (!cursor || cursor.endpoint_id !== id) throw ApiError.invalid('starting_after', 'starting_after must be the id of a delivery in this list.');
      where.seq = { $lt: cursor.seq };
    }
    const rows = await this.infra.reads.find<WebhookDeliveryRow>(WEBHOOK_DELIVERIES, { where, orderBy: [{ field: 'seq', direction: 'desc' }], limit: limit + 1 });
    return { object: 'list', data: rows.slice(0, limit).map(presentWebhookDelivery), has_more: rows.length > limit };
  }
}
