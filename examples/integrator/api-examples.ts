/**
 * Every request of docs/API.md that has a body, written against @dojang/client as an integrator
 * would, plus the two things an integration needs next to the flow of full-flow.ts: a company seal
 * and a webhook receiver that verifies each delivery with the client's `verifyWebhook`.
 *
 * Like full-flow.ts: no casts and no non-null assertions, checked with every strict option. If
 * one of these does not compile, the generated types and the documentation disagree.
 *
 *   DOJANG_API=http://localhost:3000/v1 DOJANG_KEY=sk_test_… npx ts-node examples/integrator/api-examples.ts
 *
 * The webhook part listens on a loopback port: the server refuses such URLs unless it runs with
 * WEBHOOK_ALLOW_PRIVATE_NETWORKS=true (development only); set DOJANG_WEBHOOK_HOST to a host the
 * server may reach otherwise, or leave DOJANG_SKIP_WEBHOOKS=1 to skip it.
 */
import { randomUUID } from 'crypto';
import { createServer, IncomingMessage } from 'http';
import { AddressInfo } from 'net';
import { createDojangClient, DojangApiError, DojangClientOptions, Seal, verifyWebhook, WebhookEvent, WebhookVerificationError } from '@dojang/client';

export interface ExamplesOptions {
  baseUrl: string;
  apiKey: string;
  log?: (line: string) => void;
  fetch?: DojangClientOptions['fetch'];
  /** Leave out the webhook receiver (a server that may not call back to this machine). */
  skipWebhooks?: boolean;
  /** The host name the server reaches this process by; default 127.0.0.1. */
  webhookHost?: string | undefined;
}

export interface ExamplesResult {
  /** The same document id for both POSTs with one Idempotency-Key. */
  idempotentIds: [string, string];
  templateVariables: string[];
  fromTemplateId: string;
  seals: Seal[];
  signatureRequestStatus: string;
  uploadedDocumentId: string;
  /** The events the webhook receiver accepted (signature verified), and how many it refused. */
  webhooks: { accepted: WebhookEvent[]; refused: number; signaturesOnRotation: number } | null;
}

/** A small valid PDF (one blank page), for the upload example. */
const BLANK_PDF =
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 595 842]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n';

export async function examples(options: ExamplesOptions): Promise<ExamplesResult> {
  const log = options.log ?? (() => undefined);
  const dojang = createDojangClient({ baseUrl: options.baseUrl, apiKey: options.apiKey, fetch: options.fetch });

  // Conventions › Idempotency: the same key twice is one document.
  const idempotencyKey = `order-${randomUUID()}`;
  const once = await dojang.POST('/documents', { params: { header: { 'Idempotency-Key': idempotencyKey } }, body: { title: '근로계약서', content: '<p>본문</p>' } });
  if (once.error) throw new DojangApiError(once.error, once.response);
  const twice = await dojang.POST('/documents', { params: { header: { 'Idempotency-Key': idempotencyKey } }, body: { title: '근로계약서', content: '<p>본문</p>' } });
  if (twice.error) throw new DojangApiError(twice.error, twice.response);
  log(`idempotent: ${once.data.id} then ${twice.data.id} (Idempotent-Replayed: ${twice.response.headers.get('idempotent-replayed')})`);

  // 1. Templates, and a document from one.
  const template = await dojang.POST('/templates', {
    body: { name: '근로계약서 표준', content: '<h2>근로계약서</h2><p>{{employee_name}}님과 {{company}}는 다음과 같이 계약한다.</p>' },
  });
  if (template.error) throw new DojangApiError(template.error, template.response);
  const fromTemplate = await dojang.POST('/documents', {
    body: { title: '근로계약서 - 홍길동', from_template: template.data.id, variables: { employee_name: '홍길동', company: 'Acme 주식회사' } },
  });
  if (fromTemplate.error) throw new DojangApiError(fromTemplate.error, fromTemplate.response);
  log(`template ${template.data.id} (${template.data.variables.join(', ')}) → document ${fromTemplate.data.id}`);

  // 2. Participants, a signature and a seal field, send.
  const participant = await dojang.POST('/documents/{id}/participants', {
    params: { path: { id: fromTemplate.data.id } },
    body: { name: '홍길동', phone: '01012345678', email: 'hong@example.com' },
  });
  if (participant.error) throw new DojangApiError(participant.error, participant.response);
  const fields = await dojang.PUT('/documents/{id}/fields', {
    params: { path: { id: fromTemplate.data.id } },
    body: {
      fields: [
        { participant_id: participant.data.id, type: 'signature', page: 1, x: 60, y: 80, width: 25, height: 8 },
        { participant_id: participant.data.id, type: 'seal', page: 1, x: 30, y: 80, width: 12, height: 9 },
      ],
    },
  });
  if (fields.error) throw new DojangApiError(fields.error, fields.response);
  const sent = await dojang.POST('/documents/{id}/send', { params: { path: { id: fromTemplate.data.id } }, body: { message: '검토 후 서명 부탁드립니다.' } });
  if (sent.error) throw new DojangApiError(sent.error, sent.response);

  // 3. Seals: generated (type and restricted left to their defaults), then uploaded from its PNG.
  const generated = await dojang.POST('/seals', { body: { source: 'generated', company_name: '주식회사 도장' } });
  if (generated.error) throw new DojangApiError(generated.error, generated.response);
  const image = await dojang.GET('/seals/{id}/image', { params: { path: { id: generated.data.id } }, parseAs: 'arrayBuffer' });
  if (image.error) throw new DojangApiError(image.error, image.response);
  const uploaded = await dojang.POST('/seals', {
    body: { source: 'uploaded', name: '사용인감', type: 'usage', restricted: true, image: `data:image/png;base64,${Buffer.from(image.data).toString('base64')}` },
  });
  if (uploaded.error) throw new DojangApiError(uploaded.error, uploaded.response);
  log(`seals: ${generated.data.name} (${generated.data.type}, restricted ${generated.data.restricted}), ${uploaded.data.name} (${uploaded.data.type})`);

  // 4. One call: a signature request (Idempotency-Key required; content_format may be left out).
  const request = await dojang.POST('/signature_requests', {
    params: { header: { 'Idempotency-Key': `contract-${randomUUID()}` } },
    body: { title: '용역 계약서', content: '<p>갑과 을은 다음과 같이 용역 계약을 체결한다.</p>', recipient: { email: 'hong@example.com', name: '홍길동' } },
  });
  if (request.error) throw new DojangApiError(request.error, request.response);
  log(`signature request ${request.data.id}: ${request.data.status}`);

  // 6. Upload a PDF, then a document from its url. openapi-fetch sends JSON by default: a
  // multipart body goes through a FormData.
  const file = await dojang.POST('/files', {
    body: { file: new Blob([BLANK_PDF], { type: 'application/pdf' }) },
    bodySerializer: (body) => {
      const form = new FormData();
      form.append('file', body.file, 'contract.pdf');
      return form;
    },
  });
  if (file.error) throw new DojangApiError(file.error, file.response);
  const fromFile = await dojang.POST('/documents', { body: { title: '업로드한 계약서', file_url: file.data.url } });
  if (fromFile.error) throw new DojangApiError(fromFile.error, fromFile.response);
  log(`uploaded ${file.data.id} → document ${fromFile.data.id}`);

  const webhooks = options.skipWebhooks ? null : await webhookRoundTrip(dojang, options.webhookHost ?? '127.0.0.1', log);

  return {
    idempotentIds: [once.data.id, twice.data.id],
    templateVariables: template.data.variables,
    fromTemplateId: fromTemplate.data.id,
    seals: [generated.data, uploaded.data],
    signatureRequestStatus: request.data.status,
    uploadedDocumentId: fromFile.data.id,
    webhooks,
  };
}

/** The raw body, as received: verification covers these exact bytes. */
function rawBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * Webhooks end to end: a receiver that verifies every delivery, an endpoint registered at it, a
 * test event, then a secret rotation during which deliveries carry both signatures.
 */
async function webhookRoundTrip(dojang: ReturnType<typeof createDojangClient>, host: string, log: (line: string) => void) {
  let secret = '';
  const accepted: WebhookEvent[] = [];
  let refused = 0;
  let signaturesOnRotation = 0;
  const server = createServer((req, res) => {
    rawBody(req)
      .then(async (body) => {
        const event = await verifyWebhook(secret, req.headers, body);
        accepted.push(event);
        if (event.type === 'webhook.test') signaturesOnRotation = String(req.headers['webhook-signature'] ?? '').split(' ').length;
        res.writeHead(204).end();
      })
      .catch((err: unknown) => {
        refused++;
        res.writeHead(err instanceof WebhookVerificationError ? 400 : 500).end(err instanceof Error ? err.message : String(err));
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const address = server.address();
    if (!address || typeof address === 'string') throw new Error('the receiver has no port');
    const port = (address satisfies AddressInfo).port;
    const endpoint = await dojang.POST('/webhook_endpoints', { body: { url: `http://${host}:${port}/dojang`, events: ['document.completed'], description: '예제 수신기' } });
    if (endpoint.error) throw new DojangApiError(endpoint.error, endpoint.response);
    secret = endpoint.data.secret;
    const id = endpoint.data.id;

    const test = await dojang.POST('/webhook_endpoints/{id}/test', { params: { path: { id } } });
    if (test.error) throw new DojangApiError(test.error, test.response);
    log(`test delivery ${test.data.id}: ${test.data.status}`);

    // Rotation with the default grace period: both secrets sign; the receiver still holds the old.
    const rotated = await dojang.POST('/webhook_endpoints/{id}/rotate_secret', { params: { path: { id } }, body: {} });
    if (rotated.error) throw new DojangApiError(rotated.error, rotated.response);
    const again = await dojang.POST('/webhook_endpoints/{id}/test', { params: { path: { id } } });
    if (again.error) throw new DojangApiError(again.error, again.response);
    log(`after rotation (old secret valid until ${rotated.data.previous_secret_expires_at ?? 'now'}): ${again.data.status}`);
    secret = rotated.data.secret;

    const removed = await dojang.DELETE('/webhook_endpoints/{id}', { params: { path: { id } } });
    if (removed.error) throw new DojangApiError(removed.error, removed.response);
    return { accepted, refused, signaturesOnRotation };
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

if (require.main === module) {
  const baseUrl = process.env.DOJANG_API;
  const apiKey = process.env.DOJANG_KEY;
  if (!baseUrl || !apiKey) {
    process.stderr.write('Set DOJANG_API (e.g. http://localhost:3000/v1) and DOJANG_KEY (a sk_test_… key).\n');
    process.exit(2);
  }
  examples({ baseUrl, apiKey, log: (line) => process.stdout.write(`${line}\n`), skipWebhooks: process.env.DOJANG_SKIP_WEBHOOKS === '1', webhookHost: process.env.DOJANG_WEBHOOK_HOST })
    .then((result) => process.stdout.write(`${JSON.stringify(result)}\n`))
    .catch((err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    });
}
