import { DeciderSpecification } from '../shared/decider.spec-helpers';
import { WebhookEndpointCommand, webhookEndpointDecider, webhookEndpointWants, webhookSigningSecrets } from './webhook-endpoint.decider';
import { WebhookEndpointEvent, webhookEndpointStreamId } from './webhook-endpoint.events';

const spec = DeciderSpecification.for(webhookEndpointDecider);
const T0 = '2026-03-02T09:00:00.000Z';
const T1 = '2026-03-03T09:00:00.000Z';
const ID = 'whe_0123456789abcdef01234567';

const create = (over: Partial<Extract<WebhookEndpointCommand, { type: 'CreateWebhookEndpoint' }>> = {}): WebhookEndpointCommand => ({
  type: 'CreateWebhookEndpoint',
  endpoint_id: ID,
  organization_id: 'org_1',
  livemode: false,
  url: 'https://hooks.example.com/dojang',
  events: ['document.completed'],
  description: null,
  secret_ciphertext: 'v1.iv.ct.tag',
  now: T0,
  ...over,
});
const created = (over: Partial<Extract<WebhookEndpointEvent, { type: 'WebhookEndpointCreated' }>['data']> = {}): WebhookEndpointEvent => ({
  type: 'WebhookEndpointCreated',
  data: {
    endpoint_id: ID,
    organization_id: 'org_1',
    livemode: false,
    url: 'https://hooks.example.com/dojang',
    events: ['document.completed'],
    description: null,
    secret_ciphertext: 'v1.iv.ct.tag',
    created_at: T0,
    ...over,
  },
});
const disabled = (reason: 'requested' | 'gone' = 'requested'): WebhookEndpointEvent => ({
  type: 'WebhookEndpointDisabled',
  data: { reason, delivery_id: null, disabled_at: T1 },
});
const deleted: WebhookEndpointEvent = { type: 'WebhookEndpointDeleted', data: { deleted_at: T1 } };

describe('webhook endpoint decider', () => {
  it('names its stream after the endpoint id', () => {
    expect(webhookEndpointStreamId(ID)).toBe(`webhook_endpoint-${ID}`);
  });

  describe('CreateWebhookEndpoint', () => {
    it('creates an enabled endpoint with normalised events and description', () => {
      const state = spec
        .given([])
        .when(create({ events: ['document.sent', 'document.sent', 'document.completed'], description: '  운영 서버  ', url: ' https://hooks.example.com/x ' }))
        .then([
          created({ events: ['document.sent', 'document.completed'], description: '운영 서버', url: 'https://hooks.example.com/x' }),
        ]);
      expect(state).toMatchObject({ exists: true, status: 'enabled', deleted: false, secret_ciphertext: 'v1.iv.ct.tag' });
    });

    it("collapses any list containing '*' to all events", () => {
      spec.given([]).when(create({ events: ['document.sent', '*'] })).then([created({ events: ['*'] })]);
    });

    it('refuses an empty event list, a blank url, a long description and a second creation', () => {
      spec.given([]).when(create({ events: [] })).thenThrows('invalid_parameter', { kind: 'invalid', param: 'events' });
      spec.given([]).when(create({ url: '  ' })).thenThrows('missing_parameter', { param: 'url' });
      spec.given([]).when(create({ description: 'x'.repeat(501) })).thenThrows('invalid_parameter', { param: 'description' });
      spec.given([created()]).when(create()).thenThrows('webhook_endpoint_exists', 'conflict');
    });
  });

  describe('UpdateWebhookEndpoint', () => {
    it('records only what changed', () => {
      const state = spec
        .given([created()])
        .when({ type: 'UpdateWebhookEndpoint', url: 'https://hooks.example.com/dojang', events: ['*'], description: 'new', now: T1 })
        .then([{ type: 'WebhookEndpointUpdated', data: { events: ['*'], description: 'new', updated_at: T1 } }]);
      expect(state).toMatchObject({ url: 'https://hooks.example.com/dojang', events: ['*'], description: 'new', updated_at: T1 });
    });

    it('does nothing when nothing changes, and clears the description with null', () => {
      spec.given([created()]).when({ type: 'UpdateWebhookEndpoint', events: ['document.completed'], now: T1 }).thenNothing();
      const state = spec
        .given([created({ description: 'old' })])
        .when({ type: 'UpdateWebhookEndpoint', description: null, now: T1 })
        .then([{ type: 'WebhookEndpointUpdated', data: { description: null, updated_at: T1 } }]);
      expect(state.description).toBeNull();
    });
  });

  describe('enable / disable', () => {
    it('disables once, remembering why, and enables again', () => {
      const off = spec
        .given([created()])
        .when({ type: 'DisableWebhookEndpoint', reason: 'gone', delivery_id: 'del_1', now: T1 })
        .then([{ type: 'WebhookEndpointDisabled', data: { reason: 'gone', delivery_id: 'del_1', disabled_at: T1 } }]);
      expect(off).toMatchObject({ status: 'disabled', disabled_reason: 'gone' });
      spec.given([created(), disabled('gone')]).when({ type: 'DisableWebhookEndpoint', reason: 'requested', now: T1 }).thenNothing();
      const on = spec
        .given([created(), disabled('gone')])
        .when({ type: 'EnableWebhookEndpoint', now: T1 })
        .then([{ type: 'WebhookEndpointEnabled', data: { enabled_at: T1 } }]);
      expect(on).toMatchObject({ status: 'enabled', disabled_reason: null });
      spec.given([created()]).when({ type: 'EnableWebhookEndpoint', now: T1 }).thenNothing();
    });
  });

  describe('DeleteWebhookEndpoint', () => {
    it('deletes, after which the endpoint is not found for anything', () => {
      const state = spec.given([created()]).when({ type: 'DeleteWebhookEndpoint', now: T1 }).then([deleted]);
      expect(state.deleted).toBe(true);
      for (const command of [
        { type: 'DeleteWebhookEndpoint', now: T1 },
        { type: 'EnableWebhookEndpoint', now: T1 },
        { type: 'DisableWebhookEndpoint', reason: 'gone', now: T1 },
        { type: 'UpdateWebhookEndpoint', events: ['*'], now: T1 },
      ] as WebhookEndpointCommand[]) {
        spec.given([created(), deleted]).when(command).thenThrows('webhook_endpoint_not_found', 'not_found');
        spec.given([]).when(command).thenThrows('webhook_endpoint_not_found', 'not_found');
      }
    });
  });

  it('matches event types against the subscription', () => {
    expect(webhookEndpointWants({ events: ['*'] }, 'document.expired')).toBe(true);
    expect(webhookEndpointWants({ events: ['document.sent'] }, 'document.sent')).toBe(true);
    expect(webhookEndpointWants({ events: ['document.sent'] }, 'document.completed')).toBe(false);
  });

  describe('RotateWebhookEndpointSecret', () => {
    const rotate = (over: { grace_period_seconds?: number; secret_ciphertext?: string } = {}): WebhookEndpointCommand => ({
      type: 'RotateWebhookEndpointSecret',
      secret_ciphertext: 'v1.new',
      now: T1,
      ...over,
    });

    it('keeps the previous secret signing for 24 hours by default', () => {
      const state = spec
        .given([created()])
        .when(rotate())
        .then([
          {
            type: 'WebhookEndpointSecretRotated',
            data: { secret_ciphertext: 'v1.new', previous_secret_ciphertext: 'v1.iv.ct.tag', previous_secret_expires_at: '2026-03-04T09:00:00.000Z', rotated_at: T1 },
          },
        ]);
      expect(webhookSigningSecrets(state, new Date('2026-03-04T08:59:59.000Z'))).toEqual(['v1.new', 'v1.iv.ct.tag']);
      expect(webhookSigningSecrets(state, new Date('2026-03-04T09:00:00.000Z'))).toEqual(['v1.new']);
    });

    it('takes a grace period from 0 to 7 days', () => {
      const state = spec.given([created()]).when(rotate({ grace_period_seconds: 0 })).then([
        {
          type: 'WebhookEndpointSecretRotated',
          data: { secret_ciphertext: 'v1.new', previous_secret_ciphertext: 'v1.iv.ct.tag', previous_secret_expires_at: T1, rotated_at: T1 },
        },
      ]);
      expect(webhookSigningSecrets(state, new Date(T1))).toEqual(['v1.new']);
      spec.given([created()]).when(rotate({ grace_period_seconds: 7 * 24 * 3600 + 1 })).thenThrows('invalid_parameter', { param: 'grace_period_seconds' });
      spec.given([created()]).when(rotate({ grace_period_seconds: -1 })).thenThrows('invalid_parameter', { param: 'grace_period_seconds' });
      spec.given([created()]).when(rotate({ grace_period_seconds: 1.5 })).thenThrows('invalid_parameter', { param: 'grace_period_seconds' });
    });

    it('a second rotation retires the oldest secret: at most two sign', () => {
      const state = spec
        .given([
          created(),
          { type: 'WebhookEndpointSecretRotated', data: { secret_ciphertext: 'v1.second', previous_secret_ciphertext: 'v1.iv.ct.tag', previous_secret_expires_at: '2026-03-10T00:00:00.000Z', rotated_at: T1 } },
        ])
        .when(rotate({ secret_ciphertext: 'v1.third' }))
        .then([
          {
            type: 'WebhookEndpointSecretRotated',
            data: { secret_ciphertext: 'v1.third', previous_secret_ciphertext: 'v1.second', previous_secret_expires_at: '2026-03-04T09:00:00.000Z', rotated_at: T1 },
          },
        ]);
      expect(webhookSigningSecrets(state, new Date(T1))).toEqual(['v1.third', 'v1.second']);
    });

    it('is refused for a deleted endpoint', () => {
      spec.given([created(), deleted]).when(rotate()).thenThrows('webhook_endpoint_not_found', { kind: 'not_found' });
    });
  });

  describe('RequestWebhookEndpointTest', () => {
    const test: WebhookEndpointCommand = { type: 'RequestWebhookEndpointTest', event_id: 'evt_test', now: T1 };

    it('records the request without changing the endpoint', () => {
      spec.given([created()]).when(test).then([{ type: 'WebhookEndpointTestRequested', data: { event_id: 'evt_test', requested_at: T1 } }]);
    });

    it('is refused while the endpoint is disabled', () => {
      spec.given([created(), disabled()]).when(test).thenThrows('webhook_endpoint_disabled', { kind: 'conflict' });
    });
  });
});
