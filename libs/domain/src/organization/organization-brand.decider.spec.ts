import { DeciderSpecification } from '../shared/decider.spec-helpers';
import { brandOf, organizationDecider, quietHoursOf, timeZoneOf } from './organization.decider';
import { OrganizationEvent } from './organization.events';

const spec = DeciderSpecification.for(organizationDecider);
const T0 = '2026-01-10T09:00:00.000Z';
const T1 = '2026-01-20T09:00:00.000Z';
const created: OrganizationEvent = {
  type: 'OrganizationCreated',
  data: { organization_id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d', name: 'Acme Corp', workspace_kind: 'team', plan: 'business', created_at: T0 },
};

describe('organization brand, time zone and KakaoTalk channel', () => {
  it('defaults: no brand, Seoul, quiet 21:00–08:00, no KakaoTalk', () => {
    const state = spec.given([created]).when({ type: 'ChangeBrand', now: T1 }).then([
      { type: 'OrganizationBrandChanged', data: { display_name: null, color: null, reply_to: null, changed_at: T1 } },
    ]);
    expect(brandOf(state)).toEqual({ display_name: null, color: null, reply_to: null });
    expect(timeZoneOf(state)).toBe('Asia/Seoul');
    expect(quietHoursOf(state)).toEqual({ start: '21:00', end: '08:00' });
    expect(state.kakao).toBeUndefined();
  });

  describe('ChangeBrand', () => {
    it('records the brand, trimmed, colour lowercased, keeping what the command leaves out', () => {
      const state = spec
        .given([created, { type: 'OrganizationBrandChanged', data: { display_name: '도장상사', color: null, reply_to: null, changed_at: T0 } }])
        .when({ type: 'ChangeBrand', color: '#1A56DB', reply_to: ' hr@acme.example ', now: T1 })
        .then([{ type: 'OrganizationBrandChanged', data: { display_name: '도장상사', color: '#1a56db', reply_to: 'hr@acme.example', changed_at: T1 } }]);
      expect(brandOf(state).display_name).toBe('도장상사');
    });

    it('changes nothing when nothing changes', () => {
      spec
        .given([created, { type: 'OrganizationBrandChanged', data: { display_name: '도장상사', color: null, reply_to: null, changed_at: T0 } }])
        .when({ type: 'ChangeBrand', display_name: '도장상사', now: T1 })
        .then([]);
    });

    it.each([
      ['display_name', { display_name: '[광고] 회사' }],
      ['display_name', { display_name: 'a\nb' }],
      ['display_name', { display_name: '가'.repeat(41) }],
      ['color', { color: 'red' }],
      ['color', { color: '#12345' }],
      ['reply_to', { reply_to: 'not-an-address' }],
    ])('refuses a bad %s', (param, change) => {
      spec.given([created]).when({ type: 'ChangeBrand', ...change, now: T1 }).thenThrows('invalid_parameter', { kind: 'invalid', param });
    });
  });

  describe('ChangeTimeZone', () => {
    it('sets an IANA zone and quiet hours', () => {
      const state = spec
        .given([created])
        .when({ type: 'ChangeTimeZone', time_zone: 'America/New_York', quiet_hours: { start: '20:00', end: '09:00' }, now: T1 })
        .then([{ type: 'OrganizationTimeZoneChanged', data: { time_zone: 'America/New_York', quiet_hours: { start: '20:00', end: '09:00' }, changed_at: T1 } }]);
      expect(timeZoneOf(state)).toBe('America/New_York');
    });

    it('turns quiet hours off with null and keeps the zone', () => {
      const state = spec
        .given([created])
        .when({ type: 'ChangeTimeZone', quiet_hours: null, now: T1 })
        .then([{ type: 'OrganizationTimeZoneChanged', data: { time_zone: 'Asia/Seoul', quiet_hours: null, changed_at: T1 } }]);
      expect(quietHoursOf(state)).toBeNull();
    });

    it('refuses an unknown zone and a malformed time', () => {
      spec.given([created]).when({ type: 'ChangeTimeZone', time_zone: 'KST', now: T1 }).thenThrows('invalid_parameter', { kind: 'invalid', param: 'time_zone' });
      spec
        .given([created])
        .when({ type: 'ChangeTimeZone', quiet_hours: { start: '24:00', end: '08:00' }, now: T1 })
        .thenThrows('invalid_parameter', { kind: 'invalid', param: 'quiet_hours.start' });
    });
  });

  describe('ConfigureKakao', () => {
    it('records the sender profile and a template per kind, and turns off with null', () => {
      const kakao = { pf_id: 'KA01PF2401010000000000000000001', templates: { signing_request: 'DOJANG_REQ_01', reminder: 'DOJANG_REM_01' } };
      const on = spec.given([created]).when({ type: 'ConfigureKakao', kakao, now: T1 }).then([{ type: 'KakaoChannelConfigured', data: { kakao, configured_at: T1 } }]);
      expect(on.kakao?.templates.signing_request).toBe('DOJANG_REQ_01');
      const off = spec
        .given([created, { type: 'KakaoChannelConfigured', data: { kakao, configured_at: T0 } }])
        .when({ type: 'ConfigureKakao', kakao: null, now: T1 })
        .then([{ type: 'KakaoChannelConfigured', data: { kakao: null, configured_at: T1 } }]);
      expect(off.kakao).toBeNull();
    });

    it('refuses an unknown kind, a bad code and a missing profile key, naming the field', () => {
      spec
        .given([created])
        .when({ type: 'ConfigureKakao', kakao: { pf_id: 'KA01PF1', templates: { pin: 'X' } }, now: T1 })
        .thenThrows('invalid_parameter', { kind: 'invalid', param: 'kakao.templates.pin' });
      spec
        .given([created])
        .when({ type: 'ConfigureKakao', kakao: { pf_id: 'KA01PF1', templates: { reminder: 'has space' } }, now: T1 })
        .thenThrows('invalid_parameter', { kind: 'invalid', param: 'kakao.templates.reminder' });
      spec
        .given([created])
        .when({ type: 'ConfigureKakao', kakao: { pf_id: '', templates: {} }, now: T1 })
        .thenThrows('invalid_parameter', { kind: 'invalid', param: 'kakao.pf_id' });
    });
  });
});
