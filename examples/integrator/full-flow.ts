/**
 * An integrator's program, written only against @dojang/client (the types generated from the
 * served OpenAPI document): the whole contract flow in test mode, from a new document to the
 * completed, signed PDF and its audit certificate.
 *
 *   create → add a participant → place a signature field → send → the signer opens the link →
 *   PIN by SMS (test mode: read from the outbox) → verify → sign → completed → download
 *
 * No casts and no non-null assertions (ESLint forbids them in this folder), checked by tsc with
 * every strict option (examples/integrator/tsconfig.json): each answer is narrowed the way
 * openapi-fetch intends, `if (error) throw …`, and then `data` is the documented type.
 *
 * Run by hand against a server (a test key: nothing real is sent):
 *
 *   DOJANG_API=http://localhost:3000/v1 DOJANG_KEY=sk_test_… npx ts-node examples/integrator/full-flow.ts
 *
 * It writes the final PDF and the PDF with the audit certificate into DOJANG_OUT (default: the
 * current directory). test/client/integrator-example.e2e-spec.ts runs `main` against a real server.
 */
import { randomUUID } from 'crypto';
import { writeFileSync } from 'fs';
import { join } from 'path';
import { setTimeout as sleep } from 'timers/promises';
import {
  AuditEntry,
  createDojangClient,
  Document,
  DojangApiError,
  DojangClient,
  DojangClientOptions,
  EventType,
  OutboxMessage,
  SigningSession,
} from '@dojang/client';

export interface FlowOptions {
  /** The API root, `/v1` included, e.g. `http://localhost:3000/v1`. */
  baseUrl: string;
  /** A test key (`sk_test_…`): the PIN is read from the test-mode outbox. */
  apiKey: string;
  /** Progress lines; default: none. */
  log?: (line: string) => void;
  /** How long to wait for the PIN message to reach the outbox. */
  pinWaitMs?: number;
  /** Another fetch for both clients (the test wraps it to check every answer against the contract). */
  fetch?: DojangClientOptions['fetch'];
}

export interface FlowResult {
  /** The document as the API shows it at the end: completed. */
  document: Document;
  /** What the signer saw after signing. */
  session: SigningSession;
  /** The signed final PDF. */
  pdf: Uint8Array;
  /** The final PDF with the audit-trail certificate appended (and signed again). */
  certifiedPdf: Uint8Array;
  audit: AuditEntry[];
  /** The document's public events, oldest first. */
  events: EventType[];
}

/** A drawn signature: a 96×32 PNG of a pen stroke, as the signing page would send it. */
const SIGNATURE =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAGAAAAAgCAQAAABHybXfAAAAnklEQVR42u2XSxKAMAhDewjvf1VduLMtA0T5OIlb7eS1EegYFEVRFBWm47yf1uZbQjzNN0OYLbdC2JlNQ7AEQX4nAWGdZdmgZNGDACDv7M9G9b+qFQE4MznL/jpjQQBCJ3+KlckvUF3901/h9auXbf+6elZ4etFE9PVloxDULtalMLrLAJuYP3CBM1OFeRHexPxht/W94Rc3N4qiLLoAy6UOxEnRfwgAAAAASUVORK5CYII=';

export async function main(options: FlowOptions): Promise<FlowResult> {
  const log = options.log ?? (() => undefined);
  const dojang = createDojangClient({ baseUrl: options.baseUrl, apiKey: options.apiKey, fetch: options.fetch });

  // 1. A draft. The Idempotency-Key makes the POST safe to retry after a network error.
  const created = await dojang.POST('/documents', {
    params: { header: { 'Idempotency-Key': randomUUID() } },
    body: { title: '용역 계약서', content: '<p>갑과 을은 다음과 같이 계약한다.</p><p>계약 기간은 1년으로 한다.</p>' },
  });
  if (created.error) throw new DojangApiError(created.error, created.response);
  const documentId = created.data.id;
  log(`created ${documentId} (${created.data.status})`);

  // 2. A signer who proves their phone with an SMS PIN before signing.
  const added = await dojang.POST('/documents/{id}/participants', {
    params: { path: { id: documentId } },
    body: { name: '홍길동', phone: '01012345678', email: 'hong@example.com', auth: 'sms_pin' },
  });
  if (added.error) throw new DojangApiError(added.error, added.response);
  const participantId = added.data.id;
  log(`participant ${participantId} (${added.data.auth})`);

  // 3. Where they sign: percentages of the page.
  const placed = await dojang.PUT('/documents/{id}/fields', {
    params: { path: { id: documentId } },
    body: { fields: [{ participant_id: participantId, type: 'signature', page: 1, x: 60, y: 80, width: 25, height: 8 }] },
  });
  if (placed.error) throw new DojangApiError(placed.error, placed.response);
  log(`fields: ${placed.data.data.length}`);

  // 4. Send: each participant gets a signing link.
  const sent = await dojang.POST('/documents/{id}/send', {
    params: { path: { id: documentId } },
    body: { message: '검토 후 서명 부탁드립니다.' },
  });
  if (sent.error) throw new DojangApiError(sent.error, sent.response);
  const signingUrl = sent.data.participants.find((p) => p.id === participantId)?.signing_url;
  if (!signingUrl) throw new Error(`the sent document has no signing link for ${participantId}`);
  const token = signingTokenOf(signingUrl);
  log(`sent; signing link ${signingUrl}`);

  // 5. The signer's side: the link's token is the credential, so this client has no API key.
  const signer = createDojangClient({ baseUrl: options.baseUrl, fetch: options.fetch });
  const link = { params: { path: { token } } };
  const opened = await signer.GET('/signing/{token}', link);
  if (opened.error) throw new DojangApiError(opened.error, opened.response);
  log(`the signer opened "${opened.data.document.title}": pin_required=${opened.data.pin_required}, can_sign=${opened.data.can_sign}`);

  if (opened.data.pin_required && !opened.data.pin_verified) {
    // 6. A PIN by SMS; in test mode the message lands in the outbox, the PIN in its `pin` field.
    const issued = await signer.POST('/signing/{token}/pin', link);
    if (issued.error) throw new DojangApiError(issued.error, issued.response);
    log(`PIN sent to ${issued.data.sent_to ?? 'the phone'}, valid until ${issued.data.expires_at}`);
    const pin = await pinFromOutbox(dojang, participantId, options.pinWaitMs ?? 10_000);

    // 7. Verify it.
    const verified = await signer.POST('/signing/{token}/verify', { ...link, body: { pin } });
    if (verified.error) throw new DojangApiError(verified.error, verified.response);
    log(`PIN verified: ${verified.data.verified}`);
  }

  // 8. Sign, with explicit consent. The only signer signing completes the document.
  const signed = await signer.POST('/signing/{token}/sign', { ...link, body: { consent: true, signature: SIGNATURE } });
  if (signed.error) throw new DojangApiError(signed.error, signed.response);
  log(`signed: participant ${signed.data.participant.status}, document ${signed.data.document.status}`);

  // 9. The sender's view: completed, with the final PDF's hash.
  const final = await dojang.GET('/documents/{id}', { params: { path: { id: documentId } } });
  if (final.error) throw new DojangApiError(final.error, final.response);
  if (final.data.status !== 'completed') throw new Error(`expected a completed document, got ${final.data.status}`);
  log(`completed at ${final.data.completed_at ?? '?'}; final PDF sha256 ${final.data.final_pdf_sha256 ?? '?'}`);

  // 10. The signed PDF, then the same with the audit-trail certificate.
  const pdf = await dojang.GET('/documents/{id}/file', { params: { path: { id: documentId } }, parseAs: 'arrayBuffer' });
  if (pdf.error) throw new DojangApiError(pdf.error, pdf.response);
  const certified = await dojang.GET('/documents/{id}/file', { params: { path: { id: documentId }, query: { audit: true } }, parseAs: 'arrayBuffer' });
  if (certified.error) throw new DojangApiError(certified.error, certified.response);
  log(`downloaded the PDF (${pdf.data.byteLength} bytes) and the PDF with its certificate (${certified.data.byteLength} bytes)`);

  // 11. What happened, as the audit trail and the events webhooks deliver.
  const audit = await dojang.GET('/documents/{id}/audit', { params: { path: { id: documentId } } });
  if (audit.error) throw new DojangApiError(audit.error, audit.response);
  const events = await dojang.GET('/events', { params: { query: { document_id: documentId, limit: 100 } } });
  if (events.error) throw new DojangApiError(events.error, events.response);

  return {
    document: final.data,
    session: signed.data,
    pdf: new Uint8Array(pdf.data),
    certifiedPdf: new Uint8Array(certified.data),
    audit: audit.data.data,
    events: events.data.data.map((e) => e.type).reverse(),
  };
}

/** The signing token is the last path segment of the participant's signing_url. */
export function signingTokenOf(signingUrl: string): string {
  const token = new URL(signingUrl).pathname.split('/').filter((segment) => segment !== '').at(-1);
  if (!token) throw new Error(`not a signing link: ${signingUrl}`);
  return token;
}

/**
 * The newest PIN texted to a participant, from the test-mode outbox (newest first). The message
 * is written by the service's notification worker shortly after the PIN is issued, so it may take
 * a moment to appear.
 */
async function pinFromOutbox(dojang: DojangClient, participantId: string, waitMs: number): Promise<string> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const outbox = await dojang.GET('/outbox', { params: { query: { participant_id: participantId, channel: 'sms', limit: 10 } } });
    if (outbox.error) throw new DojangApiError(outbox.error, outbox.response);
    const message: OutboxMessage | undefined = outbox.data.data.find((m) => m.kind === 'pin');
    if (message?.pin) return message.pin;
    if (Date.now() > deadline) throw new Error(`no PIN reached the outbox within ${waitMs} ms`);
    await sleep(100);
  }
}

if (require.main === module) {
  const baseUrl = process.env.DOJANG_API;
  const apiKey = process.env.DOJANG_KEY;
  if (!baseUrl || !apiKey) {
    process.stderr.write('Set DOJANG_API (e.g. http://localhost:3000/v1) and DOJANG_KEY (a sk_test_… key).\n');
    process.exit(2);
  }
  const outDir = process.env.DOJANG_OUT ?? '.';
  main({ baseUrl, apiKey, log: (line) => process.stdout.write(`${line}\n`) })
    .then((result) => {
      const pdfFile = join(outDir, `${result.document.id}.pdf`);
      const certifiedFile = join(outDir, `${result.document.id}-audit.pdf`);
      writeFileSync(pdfFile, result.pdf);
      writeFileSync(certifiedFile, result.certifiedPdf);
      process.stdout.write(`events: ${result.events.join(', ')}\nwrote ${pdfFile} and ${certifiedFile}\n`);
    })
    .catch((err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    });
}
