import { BlobPointer } from '../document/document.events';
import { DomainEvent } from '../shared/decider';

/** Rows one job may hold. */
export const MAX_BULK_SEND_ROWS = 10_000;

/**
 * A job that sends one template to many recipients: its validated rows are a JSON blob (bodies and
 * row lists never go into events); each row's outcome is its own event, so a worker that dies
 * mid-job resumes from the stream.
 */
export type BulkSendStarted = DomainEvent<
  'BulkSendStarted',
  {
    bulk_send_id: string;
    organization_id: string;
    livemode: boolean;
    template_id: string;
    template_version: number;
    /** Rows in the job (valid ones are sent; invalid ones, when skipped, failed at once). */
    row_count: number;
    /** The rows as JSON in the blob store: [{ row, roles, variables, values, metadata, external_id }]. */
    rows_blob: BlobPointer;
    title: string | null;
    message: string | null;
    expires_in_days: number | null;
    started_at: string;
  }
>;

export type BulkSendRowSent = DomainEvent<'BulkSendRowSent', { row: number; document_id: string; external_id: string | null; sent_at: string }>;

/** A row refused (at validation when the job skips invalid rows, or when its send was refused). */
export type BulkSendRowFailed = DomainEvent<
  'BulkSendRowFailed',
  { row: number; external_id: string | null; code: string; message: string; column: string | null; failed_at: string }
>;

/**
 * Every row sent or failed. It repeats the job's template and row count so that the public
 * `bulk_send.completed` event (and its webhook) is made from this one event alone.
 */
export type BulkSendCompleted = DomainEvent<
  'BulkSendCompleted',
  { sent: number; failed: number; completed_at: string; template_id?: string; template_version?: number; row_count?: number }
>;

/** Rows not yet sent are not sent; the ones sent stay sent. */
export type BulkSendCanceled = DomainEvent<'BulkSendCanceled', { sent: number; failed: number; canceled_rows: number; canceled_at: string }>;

/**
 * No job was started under this id although its organization holds credits for it, and it is past
 * the grace period a start has (the process that reserved died before `BulkSendStarted`): the id
 * can never start a job now, so the worker's sweep may give the hold back. Written first, on an
 * empty stream only, so that a start still on its way (a frozen process resuming) is refused rather
 * than running a job whose credits were given back.
 */
export type BulkSendAbandoned = DomainEvent<'BulkSendAbandoned', { bulk_send_id: string; organization_id: string; reason: 'not_started'; abandoned_at: string }>;

export type BulkSendEvent = BulkSendStarted | BulkSendRowSent | BulkSendRowFailed | BulkSendCompleted | BulkSendCanceled | BulkSendAbandoned;

export const BULK_SEND_EVENT_TYPES: readonly BulkSendEvent['type'][] = ['BulkSendStarted', 'BulkSendRowSent', 'BulkSendRowFailed', 'BulkSendCompleted', 'BulkSendCanceled', 'BulkSendAbandoned'];

export const bulkSendStreamId = (bulkSendId: string) => `bulk-send-${bulkSendId}`;
