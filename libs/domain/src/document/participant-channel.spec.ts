import { DomainError } from '../shared/domain-error';
import { validateParticipant } from './document.decider';
import { DocumentEvent, ParticipantSetup } from './document.events';
import { DocumentState, ParticipantState } from './document.state';
import { planSigningNotifications } from './signing-notifications.process';

const setup = (o: Partial<ParticipantSetup>): ParticipantSetup => ({
  id: 'p1',
  name: '김민지',
  phone: '01012345678',
  email: 'minji@example.com',
  role: 'signer',
  signing_order: 1,
  auth: 'none',
  ...o,
});

const refusal = (p: ParticipantSetup, index?: number) => {
  try {
    validateParticipant(p, index);
  } catch (err) {
    return { code: (err as DomainError).code, param: (err as DomainError).param };
  }
  return null;
};

const stateWith = (p: Partial<ParticipantSetup>): DocumentState =>
  ({ status: 'sent', participants: [{ ...setup(p), status: 'pending' } as unknown as ParticipantState] }) as unknown as DocumentState;

describe('participant channel choice', () => {
  it('accepts each channel with the contact it needs, and a language', () => {
    for (const channel of ['auto', 'email', 'sms', 'kakao'] as const) expect(refusal(setup({ channel, language: 'en' }))).toBeNull();
  });

  it('refuses a channel without its contact, naming the field of the batch item', () => {
    expect(refusal(setup({ channel: 'email', email: null }), 2)).toEqual({ code: 'missing_email', param: 'participants[2].email' });
    expect(refusal(setup({ channel: 'kakao', phone: null }))).toEqual({ code: 'missing_phone', param: 'phone' });
    expect(refusal(setup({ channel: 'fax' as never }))).toEqual({ code: 'invalid_parameter', param: 'channel' });
    expect(refusal(setup({ language: 'ja' as never }))).toEqual({ code: 'invalid_parameter', param: 'language' });
  });

  it('sends requests only where the participant chose', () => {
    const sent = { type: 'DocumentSent', data: {} } as unknown as DocumentEvent;
    const plan = (p: Partial<ParticipantSetup>) => planSigningNotifications(sent, stateWith(p), stateWith(p))[0]?.channels;
    expect(plan({})).toEqual(['email', 'sms']);
    expect(plan({ channel: 'email' })).toEqual(['email']);
    expect(plan({ channel: 'kakao' })).toEqual(['sms']);
    expect(plan({ channel: 'sms' })).toEqual(['sms']);
  });

  it('sends notices by the chosen channel too (auto: e-mail first)', () => {
    const canceled = { type: 'DocumentCanceled', data: {} } as unknown as DocumentEvent;
    const plan = (p: Partial<ParticipantSetup>) => planSigningNotifications(canceled, stateWith(p), { ...stateWith(p), status: 'canceled' })[0]?.channels;
    expect(plan({})).toEqual(['email']);
    expect(plan({ channel: 'kakao' })).toEqual(['sms']);
  });
});
