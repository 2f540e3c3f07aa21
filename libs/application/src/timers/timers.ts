import { CollectionSpec, ReadDoc } from '@dojang/read-store';

export const TIMERS = 'timers';

export const TIMERS_COLLECTION: CollectionSpec = {
  name: TIMERS,
  indexes: [['status', 'claimable_at'], ['document_id', 'status']],
};

export type TimerKind = 'expire_document' | 'remind_document' | 'archive_timestamp';
export type TimerStatus = 'pending' | 'firing' | 'done' | 'canceled';

/**
 * A durable due-date. Written by the document timers reactor, fired by `TimerService.tick()`.
 * Changed only through `putIfVersion`, so two workers never fire the same timer at once.
 */
export interface TimerRow extends ReadDoc {
  kind: TimerKind;
  /** Maintained by ReadStore.putIfVersion. */
  _version?: number;
  document_id: string;
  organization_id: string;
  livemode: boolean;
  /** When it should fire. */
  due_at: string;
  /** When a worker may claim it: due_at, or the end of the lease of a worker that is firing it. */
  claimable_at: string;
  status: TimerStatus;
  /** 1-based number of the automatic reminder; 0 for expiry. */
  sequence: number;
  lease_owner: string | null;
  fired_at: string | null;
  /** What firing did: an event type, or the domain error code that made it a no-op. */
  outcome: string | null;
  created_at: string;
}

export const expiryTimerId = (documentId: string) => `tmr_expire_${documentId}`;
export const reminderTimerId = (documentId: string, sequence: number) => `tmr_remind_${documentId}_${sequence}`;
/** One archive timer per final PDF: the file it would extend is part of its id. */
export const archiveTimerId = (documentId: string, finalSha256: string) => `tmr_archive_${documentId}_${finalSha256.slice(0, 16)}`;
