import { Decider, assertNever } from '../shared/decider';
import { conflict, invalid, notFound } from '../shared/domain-error';
import { WebhookDisableReason, WebhookEndpointEvent } from './webhook-endpoint.events';

export const WEBHOOK_DESCRIPTION_MAX = 500;
/** Subscribes to every public event type, including ones added later. */
export const ALL_WEBHOOK_EVENTS = '*';

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
  | (Timed & { type: 'DeleteWebhookEndpoint' });

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
    default:
      return assertNever(command);
  }
}

export const webhookEndpointDecider: Decider<WebhookEndpointState, WebhookEndpointCommand, WebhookEndpointEvent> = {
  initialState: initialWebhookEndpointState,
  evolve: evolveWebhookEndpoint,
  decide: decideWebhookEndpoint,
};
