import { DeciderSpecification } from '../shared/decider.spec-helpers';
import { documentDecider } from './document.decider';
import { IssuePin, VerifyPin } from './document.commands';
import { DocumentEvent } from './document.events';
import { COMPLETED_DOWNLOAD_DAYS, downloadAvailableUntil } from './completed-download.decider';

/** The signed PDF through a participant's link: a download PIN after completion (issue 21 item 8). */
const spec = DeciderSpecification.for(documentDecider);

const KIM = 'a0000001-0000-4000-8000-000000000001';
const T0 = '2024-05-01T09:00:00.000Z';
const T_DONE = '2024-05-02T09:00:00.000Z';
const T_LATER = '2024-05-03T09:00:00.000Z';
const H = (c: string) => c.repeat(64);

const completedDoc: DocumentEvent[] = [
  {
    type: 'DocumentCreated',
    data: {
      document_id: 'd',
      organization_id: 'o',
      livemode: false,
      title: 't',
      content_blob: { sha256: H('b'), byte_size: 1 },
      content_format: 'html',
      file: null,
      author_name: 'a',
      metadata: {},
      from_template: null,
      duplicated_from: null,
      created_at: T0,
    },
  },
  {
    type: 'ParticipantAdded',
    data: { participant: { id: KIM, name: 'Kim', phone: '01012345678', email: null, role: 'signer', signing_order: 1, auth: 'sms_pin' }, added_at: T0 },
  },
  { type: 'DocumentSent', data: { sent_at: T0, expires_at: null, message: null, page_count: 1, original_pdf: null, links: [{ participant_id: KIM, token_hash: H('1') }] } },
  { type: 'PinIssued', data: { participant_id: KIM, pin_hash: H('p'), issued_at: T0, expires_at: T_DONE, phone_masked: '010-****-5678' } },
  { type: 'PinVerified', data: { participant_id: KIM, verified_at: T0, ip: null } },
  {
    type: 'ParticipantSigned',
    data: { participant_id: KIM, signed_at: T_DONE, signature: null, seal: null, auth_method: 'sms_pin', auth_phone_masked: '010-****-5678', ip: null, user_agent: null },
  },
  { type: 'DocumentCompleted', data: { completed_at: T_DONE, original_sha256: null, final_pdf: { sha256: H('f'), byte_size: 9 } } },
];
const issue = (now: string, for_download = true): IssuePin => ({ type: 'IssuePin', participant_id: KIM, pin_hash: H('q'), ttl_seconds: 600, cooldown_seconds: 60, now, ...(for_download ? { for_download } : {}) });
const verify = (now: string, pin_hash = H('q')): VerifyPin => ({ type: 'VerifyPin', participant_id: KIM, pin_hash, max_attempts: 5, ip: null, now });
const downloadPin: DocumentEvent = {
  type: 'PinIssued',
  data: { participant_id: KIM, pin_hash: H('q'), issued_at: T_LATER, expires_at: '2024-05-03T09:10:00.000Z', phone_masked: '010-****-5678', purpose: 'download' },
};

describe('download PIN after completion', () => {
  it('is issued to an sms_pin participant, marked as a download PIN', () => {
    const state = spec.given(completedDoc).when(issue(T_LATER)).then([downloadPin]);
    expect(state.participants[0].pin).toMatchObject({ for_download: true, used: false, verified: false });
  });

  it('is verified like a signing PIN', () => {
    const state = spec.given([...completedDoc, downloadPin]).when(verify(T_LATER)).then([{ type: 'PinVerified', data: { participant_id: KIM, verified_at: T_LATER, ip: null } }]);
    expect(state.status).toBe('completed');
    spec.given([...completedDoc, downloadPin]).when(verify(T_LATER, H('x'))).thenEvents((events) => expect(events[0].type).toBe('PinVerificationFailed'));
  });

  it('a signing PIN is still refused after completion; nothing is verifiable without a download PIN', () => {
    spec.given(completedDoc).when(issue(T_LATER, false)).thenThrows('document_not_signable', 'conflict');
    spec.given(completedDoc).when(verify(T_LATER)).thenThrows('document_not_signable', 'conflict');
  });

  it('only within the download window (410 download_expired), and not before completion', () => {
    const until = downloadAvailableUntil({ status: 'completed', completed_at: T_DONE }) as string;
    expect(Date.parse(until) - Date.parse(T_DONE)).toBe(COMPLETED_DOWNLOAD_DAYS * 24 * 60 * 60 * 1000);
    spec.given(completedDoc).when(issue(new Date(Date.parse(until) + 1000).toISOString())).thenThrows('download_expired', 'gone');
    spec.given(completedDoc.slice(0, 3)).when(issue(T_LATER)).thenThrows('document_not_completed', 'conflict');
  });

  it('keeps the resend cooldown', () => {
    spec.given([...completedDoc, downloadPin]).when(issue('2024-05-03T09:00:30.000Z')).thenThrows('pin_resend_cooldown', 'too_many');
  });
});
