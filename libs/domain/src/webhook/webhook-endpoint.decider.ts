import { Decider, assertNever } from '../shared/decider';
import { conflict, invalid, notFound } from '../shared/domain-error';
import { WebhookDisableReason, WebhookEndpointEvent } from './webhook-endpoint.events';

export const WEBHOOK_DESCRIPTION_MAX = 500;
/** Subscribes to every public event type, including ones added later. */
export const ALL_WEBHOOK_EVENTS = '*';

/** How long the previous secret keeps signing after a rotation, unless the request says otherwise. */
export const DEFAULT_SECRET_GRACE_SECONDS = 24 * 3600;
export const MAX_SECRET_GRACE_SECONDS = 7 * 24 * 3600;

export type WebhookEndpointStatus = 'enabled' | 'disabled';

export interface WebhookEndpointState {
  exists: boolean;
  deleted: boolean;
  id: string;
  organization_id: string;
  livemode: boolean;
  url: string;
  events: string[];
  description: string | null;
  secret_ciphertext: string;
  /** The secret before the last rotation, still signing until previous_secret_expires_at. */
  previous_secret_ciphertext: string | null;
  previous_secret_expires_at: string | null;
  status: WebhookEndpointStatus;
  disabled_reason: WebhookDisableReason | null;
  created_at: string;
  updated_at: string;
}

export const initialWebhookEndpointState = (): WebhookEndpointState => ({
  exists: false,
  deleted: false,
  id: '',
  organization_id: '',
  livemode: false,
  url: '',
  events: [],
  description: null,
  secret_ciphertext: '',
  previous_secret_ciphertext: null,
  previous_secret_expires_at: null,
  status: 'enabled',
  disabled_reason: null,
  created_at: '',
  updated_at: '',
});

interface Timed {
  now: string;
}

/**
 * URL policy (scheme, SSRF) and the list of known event types belong to the shell, which knows the
 * configuration and the public event catalogue; the decider keeps the invariants of the aggregate.
 */
export type WebhookEndpointCommand =
  | (Timed & {
      type: 'CreateWebhookEndpoint';
      endpoint_id: string;
      organization_id: string;
      livemode: boolean;
      url: string;
      events: string[];
      description: string | null;
      secret_ciphertext: string;
    })
  | (Timed & { type: 'UpdateWebhookEndpoint'; url?: string; events?: string[]; description?: string | null })
  | (Timed & { type: 'DisableWebhookEndpoint'; reason: WebhookDisableReason; delivery_id?: string | null })
  | (Timed & { type: 'EnableWebhookEndpoint' })
  | (Timed & { type: 'DeleteWebhookEndpoint' })
  | (Timed & { type: 'RotateWebhookEndpointSecret'; secret_ciphertext: string; grace_period_seconds?: number })
  | (Timed & { type: 'RequestWebhookEndpointTest'; event_id: string });

/** Deduplicated, in first-seen order; '*' alone when it is present at all. */
export function normalizeWebhookEvents(events: string[]): string[] {
  if (!Array.isArray(events) || events.length === 0) throw invalid('invalid_parameter', 'events must list at least one event type (or "*").', 'events');
  if (events.some((e) => typeof e !== 'string' || e.trim() === '')) throw invalid('invalid_parameter', 'events must be event type names.', 'events');
  if (events.includes(ALL_WEBHOOK_EVENTS)) return [ALL_WEBHOOK_EVENTS];
  return [...new Set(events)];
}

function normalizeDescription(description: string | null | undefined): string | null {
  if (description === null || description === undefined) return null;
  const trimmed = description.trim();
  if (trimmed.length > WEBHOOK_DESCRIPTION_MAX) {
    throw invalid('invalid_parameter', `description must be at most ${WEBHOOK_DESCRIPTION_MAX} characters.`, 'description');
  }
  return trimmed === '' ? null : trimmed;
}

function requireUrl(url: string): string {
  if (typeof url !== 'string' || url.trim() === '') throw invalid('missing_parameter', 'url is required.', 'url');
  return url.trim();
}

/** The secrets that sign a delivery at `now`: the current one, then the previous one during its grace period. */
export function webhookSigningSecrets(
  endpoint: Pick<WebhookEndpointState, 'secret_ciphertext' | 'previous_secret_ciphertext' | 'previous_secret_expires_at'>,
  now: Date,
): string[] {
  const expires = endpoint.previous_secret_expires_at ? Date.parse(endpoint.previous_secret_expires_at) : NaN;
  return endpoint.previous_secret_ciphertext && now.getTime() < expires ? [endpoint.secret_ciphertext, endpoint.previous_secret_ciphertext] : [endpoint.secret_ciphertext];
}

/** Whether an endpoint wants a public event of this type. */
export function webhookEndpointWants(endpoint: Pick<WebhookEndpointState, 'events'>, type: string): boolean {
  return endpoint.events.includes(ALL_WEBHOOK_EVENTS) || endpoint.events.includes(type);
}

export function evolveWebhookEndpoint(state: WebhookEndpointState, event: WebhookEndpointEvent): WebhookEndpointState {
  switch (event.type) {
    case 'WebhookEndpointCreated':
      return {
        ...initialWebhookEndpointState(),
        exists: true,
        id: event.data.endpoint_id,
        organization_id: event.data.organization_id,
        livemode: event.data.livemode,
        url: event.data.url,
        events: event.data.events,
        description: event.data.description,
        secret_ciphertext: event.data.secret_ciphertext,
        created_at: event.data.created_at,
        updated_at: event.data.created_at,
      };
    case 'WebhookEndpointUpdated':
      return {
        ...state,
        url: event.data.url ?? state.url,
        events: event.data.events ?? state.events,
        description: event.data.description !== undefined ? event.data.description : state.description,
        updated_at: event.data.updated_at,
      };
    case 'WebhookEndpointDisabled':
      return { ...state, status: 'disabled', disabled_reason: event.data.reason, updated_at: event.data.disabled_at };
    case 'WebhookEndpointEnabled':
      return { ...state, status: 'enabled', disabled_reason: null, updated_at: event.data.enabled_at };
    case 'WebhookEndpointDeleted':
      return { ...state, deleted: true, updated_at: event.data.deleted_at };
    case 'WebhookEndpointSecretRotated':
      return {
        ...state,
        secret_ciphertext: event.data.secret_ciphertext,
        previous_secret_ciphertext: event.data.previous_secret_ciphertext,
        previous_secret_expires_at: event.data.previous_secret_expires_at,
        updated_at: event.data.rotated_at,
      };
    case 'WebhookEndpointTestRequested':
      return state;
    default:
      return assertNever(event);
  }
}

export function decideWebhookEndpoint(command: WebhookEndpointCommand, state: WebhookEndpointState): WebhookEndpointEvent[] {
  if (command.type === 'CreateWebhookEndpoint') {
    if (state.exists) throw conflict('webhook_endpoint_exists', 'The webhook endpoint already exists.');
    if (!command.secret_ciphertext) throw new Error('a webhook endpoint needs its encrypted secret');
    return [
      {
        type: 'WebhookEndpointCreated',
        data: {
          endpoint_id: command.endpoint_id,
          organization_id: command.organization_id,
          livemode: command.livemode,
          url: requireUrl(command.url),
          events: normalizeWebhookEvents(command.events),
          description: normalizeDescription(command.description),
          secret_ciphertext: command.secret_ciphertext,
          created_at: command.now,
        },
      },
    ];
  }
  if (!state.exists || state.deleted) throw notFound('webhook_endpoint_not_found', 'No such webhook endpoint.');
  switch (command.type) {
    case 'UpdateWebhookEndpoint': {
      const data: { url?: string; events?: string[]; description?: string | null; updated_at: string } = { updated_at: command.now };
      if (command.url !== undefined) {
        const url = requireUrl(command.url);
        if (url !== state.url) data.url = url;
      }
      if (command.events !== undefined) {
        const events = normalizeWebhookEvents(command.events);
        if (events.join('\n') !== state.events.join('\n')) data.events = events;
      }
      if (command.description !== undefined) {
        const description = normalizeDescription(command.description);
        if (description !== state.description) data.description = description;
      }
      return Object.keys(data).length > 1 ? [{ type: 'WebhookEndpointUpdated', data }] : [];
    }
    case 'DisableWebhookEndpoint':
      if (state.status === 'disabled') return [];
      return [{ type: 'WebhookEndpointDisabled', data: { reason: command.reason, delivery_id: command.delivery_id ?? null, disabled_at: command.now } }];
    case 'EnableWebhookEndpoint':
      if (state.status === 'enabled') return [];
      return [{ type: 'WebhookEndpointEnabled', data: { enabled_at: command.now } }];
    case 'DeleteWebhookEndpoint':
      return [{ type: 'WebhookEndpointDeleted', data: { deleted_at: command.now } }];
    case 'RotateWebhookEndpointSecret': {
      if (!command.secret_ciphertext) throw new Error('a rotation needs the new encrypted secret');
      const grace = command.grace_period_seconds ?? DEFAULT_SECRET_GRACE_SECONDS;
      if (!Number.isInteger(grace) || grace < 0 || grace > MAX_SECRET_GRACE_SECONDS) {
        throw invalid('invalid_parameter', `grace_period_seconds must be an integer from 0 to ${MAX_SECRET_GRACE_SECONDS} (7 days).`, 'grace_period_seconds');
      }
      // Rotating again inside a grace period ends the older secret now: at most two ever sign.
      return [
        {
          type: 'WebhookEndpointSecretRotated',
          data: {
            secret_ciphertext: command.secret_ciphertext,
            previous_secret_ciphertext: state.secret_ciphertext,
            previous_secret_expires_at: new Date(Date.parse(command.now) + grace * 1000).toISOString(),
            rotated_at: command.now,
          },
        },
      ];
    }
    case 'RequestWebhookEndpointTest':
      if (state.status !== 'enabled') throw conflict('webhook_endpoint_disabled', 'The webhook endpoint is disabled; enable it before sending a test.');
      return [{ type: 'WebhookEndpointTestRequested', data: { event_id: command.event_id, requested_at: command.now } }];
    default:
      return assertNever(command);
  }
}

export const webhookEndpointDecider: Decider<WebhookEndpointState, WebhookEndpointCommand, WebhookEndpointEvent> = {
  initialState: initialWebhookEndpointState,
  evolve: evolveWebhookEndpoint,
  decide: decideWebhookEndpoint,
};
