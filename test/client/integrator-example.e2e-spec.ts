import { closeSharedPdfPools } from '@dojang/pdf';
import { pdfinfo, pdfsig } from '@dojang/pdf/testing/poppler';
import { execFileSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import { Response as SupertestResponse } from 'supertest';
import { examples } from '../../examples/integrator/api-examples';
import { main } from '../../examples/integrator/full-flow';
import { OpenApiResponseValidator } from '../support/openapi-validator';
import { startTestApp, TestApp, TestOrg } from '../support/test-app';

/**
 * The integrator example (examples/integrator/full-flow.ts), run as an integrator would: over
 * HTTP against a real server listening on a loopback port (embedded stores, the notification
 * worker running on its own), through @dojang/client and nothing else. Every answer it gets is
 * checked against the served OpenAPI document, as the supertest suites' answers are.
 */

function qpdfCheck(pdf: Buffer): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-client-'));
  try {
    const file = path.join(dir, 'doc.pdf');
    fs.writeFileSync(file, pdf);
    return execFileSync('qpdf', ['--check', file], { encoding: 'utf8' });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const pagesOf = (pdf: Buffer) => Number(/Pages:\s+(\d+)/.exec(pdfinfo(pdf))?.[1]);

describe('the integrator example against a real server', () => {
  let t: TestApp;
  let org: TestOrg;
  let baseUrl: string;
  let validator: OpenApiResponseValidator;
  /** `METHOD /path status` of every answer the example received, each checked against the document. */
  const seen: string[] = [];

  /** The global fetch, with each answer validated (openapi-validator.ts reads status, content type and JSON body). */
  const validatingFetch = async (request: Request): Promise<Response> => {
    const res = await fetch(request);
    const contentType = res.headers.get('content-type') ?? '';
    const text = contentType.startsWith('application/json') ? await res.clone().text() : '';
    const asSupertest = { status: res.status, headers: { 'content-type': contentType }, text, body: text ? JSON.parse(text) : {} };
    validator.check(request.method, request.url, asSupertest as unknown as SupertestResponse);
    seen.push(`${request.method} ${new URL(request.url).pathname.replace(/^\/v1/, '')} ${res.status}`);
    return res;
  };

  beforeAll(async () => {
    // api-examples' webhook receiver listens on a loopback port: allowed for this server only.
    t = await startTestApp({ config: { webhookAllowPrivateNetworks: true } });
    org = await t.createOrg();
    await t.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}/v1`;
    validator = new OpenApiResponseValidator(await (await fetch(`${baseUrl}/openapi.json`)).json());
  });

  afterAll(async () => {
    await t?.close();
    // The PDF worker threads (signing, the certificate) would otherwise outlive the file.
    await closeSharedPdfPools();
  });

  it('goes from a new document to the completed PDF and its audit certificate', async () => {
    const lines: string[] = [];
    const result = await main({ baseUrl, apiKey: org.test, fetch: validatingFetch, log: (line) => lines.push(line) });

    // The example's own view of the end state.
    expect(result.document.status).toBe('completed');
    expect(result.document.completed_at).not.toBeNull();
    expect(result.session.participant.status).toBe('signed');
    expect(result.session.document.status).toBe('completed');
    expect(lines.some((l) => l.startsWith('PIN verified: true'))).toBe(true);

    // Every step went over HTTP, and each answer matched the contract.
    const paths = seen.map((s) => s.replace(/[0-9a-f-]{36}/g, '{id}').replace(/\/signing\/[^/ ]+/, '/signing/{token}'));
    expect(paths).toEqual(
      expect.arrayContaining([
        'POST /documents 201',
        'POST /documents/{id}/participants 201',
        'PUT /documents/{id}/fields 200',
        'POST /documents/{id}/send 200',
        'GET /signing/{token} 200',
        'POST /signing/{token}/pin 200',
        'GET /outbox 200',
        'POST /signing/{token}/verify 200',
        'POST /signing/{token}/sign 200',
        'GET /documents/{id} 200',
        'GET /documents/{id}/file 200',
        'GET /documents/{id}/audit 200',
        'GET /events 200',
      ]),
    );

    // The server agrees, through a request the example did not make.
    const detail = await t.http.get(`/v1/documents/${result.document.id}`).set({ Authorization: `Bearer ${org.test}` });
    expect(detail.status).toBe(200);
    expect(detail.body.status).toBe('completed');
    expect(detail.body.participants.map((p: { status: string }) => p.status)).toEqual(['signed']);

    // The PIN path was really taken: sent, then verified, then signed.
    const auditEvents = result.audit.map((e) => e.event);
    expect(auditEvents).toEqual(expect.arrayContaining(['created', 'sent', 'viewed', 'pin_sent', 'pin_verified', 'signed', 'completed']));
    expect(auditEvents.indexOf('pin_verified')).toBeLessThan(auditEvents.indexOf('signed'));
    expect(result.events).toEqual(['document.sent', 'document.viewed', 'participant.signed', 'document.completed']);

    // The final PDF: a PDF, sound for qpdf, signed, and the one whose hash the document carries.
    const pdf = Buffer.from(result.pdf);
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(qpdfCheck(pdf)).toMatch(/No syntax or stream encoding errors found/);
    expect(pdfsig(pdf)).toMatch(/Signature #1/);
    expect(createHash('sha256').update(pdf).digest('hex')).toBe(result.document.final_pdf_sha256);

    // The certificate: the same document with the audit-trail pages appended, signed again.
    const certified = Buffer.from(result.certifiedPdf);
    expect(certified.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(qpdfCheck(certified)).toMatch(/No syntax or stream encoding errors found/);
    expect(pagesOf(certified)).toBeGreaterThan(pagesOf(pdf));
    expect(pdfsig(certified)).toMatch(/Signature #2/);
  });

  it("runs every docs/API.md request that has a body, a seal with the defaults left out, and a verified webhook round trip", async () => {
    seen.length = 0;
    const result = await examples({ baseUrl, apiKey: org.test, fetch: validatingFetch });
    expect(result.idempotentIds[0]).toBe(result.idempotentIds[1]);
    expect(result.seals.map((s) => [s.source, s.type, s.restricted])).toEqual([
      ['generated', 'corporate', false],
      ['uploaded', 'usage', true],
    ]);
    expect(result.signatureRequestStatus).toBe('sent');
    expect(result.webhooks).toEqual({ accepted: [expect.objectContaining({ type: 'webhook.test' }), expect.objectContaining({ type: 'webhook.test' })], refused: 0, signaturesOnRotation: 2 });
    const paths = seen.map((s) => s.replace(/\/(templates|seals|files|webhook_endpoints|documents)\/[^/ ]+/, '/$1/{id}'));
    expect(paths).toEqual(
      expect.arrayContaining([
        'POST /templates 201',
        'POST /seals 201',
        'GET /seals/{id}/image 200',
        'POST /signature_requests 201',
        'POST /files 201',
        'POST /webhook_endpoints 201',
        'POST /webhook_endpoints/{id}/test 201',
        'POST /webhook_endpoints/{id}/rotate_secret 200',
      ]),
    );
  });

  it('turns an error answer into a DojangApiError with the documented code', async () => {
    await expect(main({ baseUrl, apiKey: 'sk_test_not_a_key', fetch: validatingFetch })).rejects.toMatchObject({
      name: 'DojangApiError',
      status: 401,
      code: 'invalid_api_key',
      type: 'authentication_error',
      requestId: expect.stringMatching(/^req_[0-9a-f]{24}$/),
    });
  });
});
