import { DomainError, conflict, notFound } from '../shared/domain-error';
import { maskPhone } from '../shared/text';
import { IssuePin } from './document.commands';
import { DocumentEvent } from './document.events';
import { DocumentState } from './document.state';

/**
 * How long a participant's link serves the signed PDF after completion. The link is a bearer
 * credential that sits in an SMS inbox; the copy is meant to be saved, not fetched for years.
 */
export const COMPLETED_DOWNLOAD_DAYS = 30;

/** Until when the completed document can be downloaded through a participant's link; null before completion. */
export function downloadAvailableUntil(state: Pick<DocumentState, 'status' | 'completed_at'>): string | null {
  if (state.status !== 'completed' || !state.completed_at) return null;
  return new Date(Date.parse(state.completed_at) + COMPLETED_DOWNLOAD_DAYS * 24 * 60 * 60 * 1000).toISOString();
}

/**
 * A PIN to download the signed PDF: the same check as signing (the phone proves who holds the
 * link), after completion, within the download window, with the same resend cooldown.
 */
export function decideDownloadPin(cmd: IssuePin, state: DocumentState): DocumentEvent[] {
  if (!state.exists || state.trashed) throw notFound('document_not_found', 'No such document.');
  if (state.status !== 'completed') throw conflict('document_not_completed', 'The document is not completed: there is no signed PDF to download yet.');
  const until = downloadAvailableUntil(state) as string;
  if (Date.parse(cmd.now) > Date.parse(until)) {
    throw new DomainError('gone', 'download_expired', `The signed PDF could be downloaded through this link until ${until}; ask the sender for a copy.`);
  }
  const p = state.participants.find((x) => x.id === cmd.participant_id);
  if (!p) throw notFound('participant_not_found', 'No such participant on this document.');
  if (p.auth !== 'sms_pin' || !p.phone) throw conflict('pin_not_required', 'This participant does not use an SMS PIN.');
  if (p.last_pin_issued_at) {
    const elapsed = (Date.parse(cmd.now) - Date.parse(p.last_pin_issued_at)) / 1000;
    if (elapsed < cmd.cooldown_seconds) {
      const wait = Math.ceil(cmd.cooldown_seconds - elapsed);
      throw new DomainError('too_many', 'pin_resend_cooldown', `A new PIN can be requested in ${wait} seconds.`, undefined, wait);
    }
  }
  const expires = new Date(Date.parse(cmd.now) + cmd.ttl_seconds * 1000).toISOString();
  return [
    {
      type: 'PinIssued',
      data: { participant_id: p.id, pin_hash: cmd.pin_hash, issued_at: cmd.now, expires_at: expires, phone_masked: maskPhone(p.phone) ?? '', purpose: 'download' },
    },
  ];
}
