import { randomUUID } from 'crypto';
import { Body, Controller, Delete, Get, HttpCode, Inject, Optional, Param, Patch, Post, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import {
  Clock,
  CLOCK,
  Decision,
  Infrastructure,
  WEBHOOK_DELIVERIES,
  WebhookDeliveryRow,
  webhookDeliveryId,
  WebhookDispatcher,
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
import { generateWebhookSecret, HostResolver, privateAddressOf, validateWebhookUrl } from '@dojang/webhooks';
import { parseLimit } from '../documents/documents.http.controller';
import { ApiError } from '../shared/api-error';
import { createOnce, creationPrefixedId } from '../idempotency/idempotent-creation';
import { listPage } from '../shared/list-page';
import { Auth, AuthContext, ReqInfo, RequestInfo, commandContext } from '../shared/auth.guard';
import { DecideCommand } from '../shared/decide.command';
import { INFRA, WEBHOOK_HOST_RESOLVER } from '../shared/infrastructure.token';
import { CreateWebhookEndpointDto, ListWebhookDeliveriesQuery, ListWebhookEndpointsQuery, RotateWebhookSecretDto, UpdateWebhookEndpointDto } from './webhook-endpoints.dto';
import {
  CreatedWebhookEndpointResponse,
  RotatedWebhookSecretResponse,
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

/** The event type of deliveries made by POST /v1/webhook_endpoints/{id}/test. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

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
  /** Sends test deliveries and redeliveries at once, claimed like the worker's attempts. */
  private readonly dispatcher: WebhookDispatcher;

  constructor(
    @Inject(INFRA) private readonly infra: Infrastructure,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly commandBus: CommandBus,
    @Optional() @Inject(WEBHOOK_HOST_RESOLVER) private readonly resolveHost?: HostResolver,
  ) {
    this.box = WebhookSecretBox.fromConfig(infra.config);
    this.dispatcher = new WebhookDispatcher(infra, clock);
  }

  private async attemptNow(row: WebhookDeliveryRow, endpoint: WebhookEndpointRow) {
    const done = await this.dispatcher.attemptNow(row, endpoint);
    if (!done) throw new ApiError(409, 'invalid_request_error', 'webhook_delivery_in_progress', 'The delivery is being attempted right now; try again when it finishes.');
    return presentWebhookDelivery(done);
  }

  private static disabled() {
    return new ApiError(409, 'invalid_request_error', 'webhook_endpoint_disabled', 'The webhook endpoint is disabled; enable it first.');
  }

  private async checkUrl(url: string): Promise<string> {
    const allowPrivateNetworks = this.infra.config.webhookAllowPrivateNetworks;
    // Refused only for where it points: name the setting a developer with a local receiver needs.
    const hint = ' Use a public https URL; for local development only, start the server with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true.';
    const problem = validateWebhookUrl(url.trim(), { allowPrivateNetworks });
    if (problem) {
      const onlyPrivate = validateWebhookUrl(url.trim(), { allowPrivateNetworks: true }) === null;
      throw ApiError.invalid('url', `${problem.charAt(0).toUpperCase()}${problem.slice(1)}.${onlyPrivate ? hint : ''}`);
    }
    // A public-looking name that resolves to loopback now (127.0.0.1.nip.io, localtest.me) is refused
    // at once; deliveries check every connection again, since answers can change later.
    const address = allowPrivateNetworks ? null : await privateAddressOf(url.trim(), this.resolveHost);
    if (address) throw ApiError.invalid('url', `Url resolves to a private, loopback or link-local address (${address}).${hint}`);
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
    const url = await this.checkUrl(dto.url);
    const events = this.checkEvents(dto.events ?? [ALL_WEBHOOK_EVENTS]);
    const id = creationPrefixedId(info.idempotency, 'whe');
    let secret = generateWebhookSecret();
    const mine = (state: WebhookEndpointState) => state.exists && state.organization_id === auth.organization_id && state.livemode === auth.livemode;
    const stream = { decider: webhookEndpointDecider, id: webhookEndpointStreamId(id), existsCode: 'webhook_endpoint_exists', mine };
    const created = await createOnce(this.infra, info.idempotency, stream, async () => {
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
    });
    if (!created) {
      // A replay answers the endpoint the first attempt made, with its secret (the current one,
      // should it have been rotated since): the same API key's retry, so nobody new learns it.
      const { state } = await this.infra.commands.load(webhookEndpointDecider, webhookEndpointStreamId(id));
      secret = this.box.open(id, state.secret_ciphertext);
    }
    // The only response that ever carries the secret.
    return { ...presentWebhookEndpoint(await this.row(auth, id)), secret };
  }

  @Get()
  async list(@Auth() auth: AuthContext, @Query() q: ListWebhookEndpointsQuery): Promise<WebhookEndpointListResponse> {
    const limit = parseLimit(q.limit);
    const where: Record<string, Condition> = { organization_id: auth.organization_id, livemode: auth.livemode, deleted: false };
    const { rows, has_more } = await listPage<WebhookEndpointRow>(
      this.infra.reads,
      { limit, starting_after: q.starting_after, ending_before: q.ending_before },
      { collection: WEBHOOK_ENDPOINTS, where, sortField: 'seq', cursor: (cid) => this.row(auth, cid), noun: 'a webhook endpoint' },
    );
    return { object: 'list', data: rows.map(presentWebhookEndpoint), has_more };
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
        ...(dto.url !== undefined ? { url: await this.checkUrl(dto.url) } : {}),
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

  /**
   * A new signing secret, shown once. The old one keeps signing next to it for the grace period,
   * so the receiver can be switched over without rejecting deliveries.
   */
  @Post(':id/rotate_secret')
  @HttpCode(200)
  async rotateSecret(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Param('id') id: string, @Body() dto: RotateWebhookSecretDto): Promise<RotatedWebhookSecretResponse> {
    await this.row(auth, id);
    const decision = await this.decide(auth, info, id, {
      type: 'RotateWebhookEndpointSecret',
      secret_ciphertext: this.box.seal(id, generateWebhookSecret()),
      ...(dto.grace_period_seconds !== undefined ? { grace_period_seconds: dto.grace_period_seconds } : {}),
    });
    // The secret the rotation stored: a retry under the same Idempotency-Key whose first attempt
    // rotated gets that one, not the one made up this time (which nothing kept).
    const rotated = decision.events.find((e) => e.type === 'WebhookEndpointSecretRotated');
    if (!rotated || rotated.type !== 'WebhookEndpointSecretRotated') throw new Error('A rotation decided no WebhookEndpointSecretRotated.');
    const secret = this.box.open(id, rotated.data.secret_ciphertext);
    const row = await this.row(auth, id);
    return { ...presentWebhookEndpoint(row), secret, previous_secret_expires_at: row.previous_secret_expires_at };
  }

  /** Sends a `webhook.test` event to this endpoint now and returns the delivery with its attempt. */
  @Post(':id/test')
  async test(@Auth() auth: AuthContext, @ReqInfo() info: RequestInfo, @Param('id') id: string): Promise<WebhookDeliveryResponse> {
    const endpoint = await this.row(auth, id);
    if (endpoint.status !== 'enabled') throw WebhookEndpointsHttpController.disabled();
    // Shaped like every public event id (evt_ + 32 hex), though no domain event of that id exists.
    const decision = await this.decide(auth, info, id, { type: 'RequestWebhookEndpointTest', event_id: `evt_${randomUUID().replace(/-/g, '')}` });
    // The test the request recorded: a retry whose first attempt recorded one answers that one's delivery.
    const requested = decision.events.find((e) => e.type === 'WebhookEndpointTestRequested');
    if (!requested || requested.type !== 'WebhookEndpointTestRequested') throw new Error('A webhook test decided no WebhookEndpointTestRequested.');
    const eventId = requested.data.event_id;
    const earlier = await this.infra.reads.get<WebhookDeliveryRow>(WEBHOOK_DELIVERIES, webhookDeliveryId(id, eventId));
    if (earlier && earlier.status !== 'pending') return presentWebhookDelivery(earlier);
    const now = this.clock.now().toISOString();
    const body = JSON.stringify({
      id: eventId,
      object: 'event',
      type: WEBHOOK_TEST_EVENT,
      created_at: now,
      livemode: endpoint.livemode,
      data: { object: { id: endpoint.id, object: 'webhook_endpoint', url: endpoint.url } },
    });
    const deliveryId = webhookDeliveryId(id, eventId);
    const row: WebhookDeliveryRow = {
      id: deliveryId,
      object: 'webhook_delivery',
      endpoint_id: id,
      organization_id: endpoint.organization_id,
      livemode: endpoint.livemode,
      event_id: eventId,
      event_type: WEBHOOK_TEST_EVENT,
      webhook_id: eventId,
      body,
      status: 'pending',
      attempts: [],
      attempt_count: 0,
      // Sent below; the worker picks it up only if this process dies before claiming it.
      next_attempt_at: new Date(this.clock.now().getTime() + 60_000).toISOString(),
      lease_owner: null,
      created_at: now,
      updated_at: now,
      completed_at: null,
      // The request's own position in the log orders the test among the other deliveries.
      seq: decision.position ?? 0,
    };
    await this.infra.reads.putIfVersion(WEBHOOK_DELIVERIES, row, null);
    const stored = await this.infra.reads.get<WebhookDeliveryRow>(WEBHOOK_DELIVERIES, deliveryId);
    return this.attemptNow(stored!, endpoint);
  }

  /** Sends a finished delivery (succeeded, failed or canceled) again now: same body, same webhook-id. */
  @Post(':id/deliveries/:delivery_id/redeliver')
  @HttpCode(200)
  async redeliver(@Auth() auth: AuthContext, @Param('id') id: string, @Param('delivery_id') deliveryId: string): Promise<WebhookDeliveryResponse> {
    const endpoint = await this.row(auth, id);
    const row = /^del_[0-9a-f]{24}$/.test(deliveryId) ? await this.infra.reads.get<WebhookDeliveryRow>(WEBHOOK_DELIVERIES, deliveryId) : null;
    if (!row || row.endpoint_id !== id) throw ApiError.notFound('webhook_delivery_not_found', 'No such webhook delivery.');
    if (row.status === 'pending' || row.status === 'delivering') {
      throw new ApiError(409, 'invalid_request_error', 'webhook_delivery_in_progress', 'The delivery is still scheduled or being attempted; redeliver it once it has finished.');
    }
    if (endpoint.status !== 'enabled') throw WebhookEndpointsHttpController.disabled();
    return this.attemptNow(row, endpoint);
  }

  @Get(':id/deliveries')
  async deliveries(@Auth() auth: AuthContext, @Param('id') id: string, @Query() q: ListWebhookDeliveriesQuery): Promise<WebhookDeliveryListResponse> {
    await this.row(auth, id);
    const limit = parseLimit(q.limit);
    const where: Record<string, Condition> = { endpoint_id: id };
    if (q.status) where.status = q.status;
    if (q.event_id) where.event_id = q.event_id;
    const cursor = async (cid: string) => {
      const row = await this.infra.reads.get<WebhookDeliveryRow>(WEBHOOK_DELIVERIES, cid);
      return row && row.endpoint_id === id ? row : null;
    };
    const { rows, has_more } = await listPage<WebhookDeliveryRow>(
      this.infra.reads,
      { limit, starting_after: q.starting_after, ending_before: q.ending_before },
      { collection: WEBHOOK_DELIVERIES, where, sortField: 'seq', cursor, noun: 'a delivery' },
    );
    return { object: 'list', data: rows.map(presentWebhookDelivery), has_more };
  }
}
