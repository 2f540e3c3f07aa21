import { DocumentEvent } from './document.events';
import { DocumentState, ParticipantState, actedFor, activeParticipants, mustAct } from './document.state';

export type PlannedKind = 'signing_request' | 'reminder' | 'completed' | 'canceled' | 'expired' | 'declined';

export interface PlannedNotification {
  kind: PlannedKind;
  participant_id: string;
  /** `sms` is the phone: the notifier sends it by KakaoTalk when the participant and organization allow (see the reactor). */
  channels: Array<'email' | 'sms'>;
}

/** A participant who chose one channel gets everything there (a phone choice covers KakaoTalk and SMS). */
function chosen(p: ParticipantState): Array<'email' | 'sms'> | null {
  if (p.channel === 'email') return p.email ? ['email'] : [];
  if (p.channel === 'sms' || p.channel === 'kakao') return p.phone ? ['sms'] : [];
  return null;
}

function channels(p: ParticipantState, sms: boolean): Array<'email' | 'sms'> {
  const only = chosen(p);
  if (only) return only;
  const out: Array<'email' | 'sms'> = [];
  if (p.email) out.push('email');
  if (sms && p.phone) out.push('sms');
  return out;
}

/** Notices (the end of a request) go by e-mail; a participant with only a phone gets them by SMS. */
function noticeChannels(p: ParticipantState): Array<'email' | 'sms'> {
  const only = chosen(p);
  if (only) return only;
  if (p.email) return ['email'];
  return p.phone ? ['sms'] : [];
}

/** Who has received a signing request so far: the lowest order not yet fully signed (a decline does not finish it). */
function askedToAct(state: DocumentState): ParticipantState[] {
  const open = state.participants.filter((p) => mustAct(p) && !actedFor(p));
  if (open.length === 0) return [];
  const lowest = Math.min(...open.map((p) => p.signing_order));
  return open.filter((p) => p.signing_order === lowest);
}

const request = (kind: 'signing_request' | 'reminder') => (p: ParticipantState): PlannedNotification => ({
  kind,
  participant_id: p.id,
  channels: channels(p, true),
});

/**
 * A corrected link, or a resent request, goes to the participant only once their turn has come
 * (before that, the request that reaches them in order carries the new link anyway).
 */
function correctionRequests(event: DocumentEvent & { type: 'ParticipantCorrected' | 'SigningRequestResent' | 'ParticipantDelegated' }, after: DocumentState): PlannedNotification[] {
  if (after.status !== 'sent') return [];
  if (event.type === 'ParticipantCorrected' && !event.data.link) return [];
  return activeParticipants(after)
    .filter((p) => p.id === event.data.participant_id)
    .map(request('signing_request'));
}

/**
 * Who is told what after a document event, given the state just before and just after it. Pure,
 * so signing order is decided here once: only the participants whose turn has just come are asked
 * to sign, and nobody is asked twice.
 */
export function planSigningNotifications(event: DocumentEvent, before: DocumentState, after: DocumentState): PlannedNotification[] {
  switch (event.type) {
    case 'DocumentSent':
      return activeParticipants(after).map(request('signing_request'));
    case 'ParticipantSigned':
    case 'SigningGroupSatisfied': {
      // A group signed for: its other members leave the turn (SigningGroupSatisfied), which may open the next order.
      if (after.participants.every((p) => p.role === 'cc' || actedFor(p))) return [];
      const already = new Set(activeParticipants(before).map((p) => p.id));
      return activeParticipants(after)
        .filter((p) => !already.has(p.id))
        .map(request('signing_request'));
    }
    case 'ReminderSent': {
      const ids = new Set(event.data.participant_ids);
      return after.participants.filter((p) => ids.has(p.id)).map(request('reminder'));
    }
    case 'ParticipantCorrected':
    case 'SigningRequestResent':
    case 'ParticipantDelegated':
      // A delegate gets the new link at once when it is their turn (like a corrected participant).
      return correctionRequests(event, after);
    case 'DocumentCompleted':
      // Everyone, cc included, receives the completed document: by e-mail, or by SMS (a link) without one.
      return after.participants.map((p) => ({ kind: 'completed' as const, participant_id: p.id, channels: noticeChannels(p) }));
    case 'DocumentCanceled':
    case 'DocumentExpired':
    case 'DocumentDeclined': {
      const kind = event.type === 'DocumentCanceled' ? 'canceled' : event.type === 'DocumentExpired' ? 'expired' : 'declined';
      // Only people who were already asked to act (or who finished) know about the request. A
      // decline is folded into `before` already (ParticipantDeclined precedes DocumentDeclined), so
      // "asked" must not skip the decliner's order: that would reach the next order, never asked.
      const asked = askedToAct(before);
      const reached = after.participants.filter((p) => p.status !== 'pending' || asked.some((a) => a.id === p.id));
      return reached.map((p) => ({ kind, participant_id: p.id, channels: noticeChannels(p) }));
    }
    default:
      return [];
  }
}
