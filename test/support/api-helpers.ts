import { createHash, randomBytes } from 'crypto';
import { documentDecider, documentStreamId } from '@dojang/domain';
import { Response } from 'supertest';
import { bearer, TestApp } from './test-app';

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const REQUEST_ID_RE = /^req_[0-9a-f]{24}$/;

/**
 * Asserts the error envelope `{error: {type, code, message, param?, request_id}}`, the status, the
 * code and (when given) the param, and that the request id matches the Request-Id header.
 */
export function expectError(res: Response, status: number, code: string, param?: string | RegExp): Record<string, unknown> {
  if (res.status !== status || res.body?.error?.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${res.status}: ${JSON.stringify(res.body)}`);
  }
  expect(res.headers['content-type']).toMatch(/application\/json/);
  expect(Object.keys(res.body)).toEqual(['error']);
  const err = res.body.error;
  expect(typeof err.type).toBe('string');
  expect(['invalid_request_error', 'authentication_error', 'permission_error', 'idempotency_error', 'rate_limit_error', 'api_error']).toContain(err.type);
  expect(typeof err.message).toBe('string');
  expect(err.message.length).toBeGreaterThan(0);
  expect(err.request_id).toMatch(REQUEST_ID_RE);
  expect(res.headers['request-id']).toBe(err.request_id);
  for (const k of Object.keys(err)) expect(['type', 'code', 'message', 'param', 'request_id']).toContain(k);
  if (param instanceof RegExp) expect(err.param).toMatch(param);
  else if (param !== undefined) expect(err.param).toBe(param);
  if (status >= 400 && status < 500 && status !== 401) expect(err.type).toBe('invalid_request_error');
  if (status === 401) expect(err.type).toBe('authentication_error');
  return err;
}

export interface Client {
  get(path: string): Promise<Response>;
  post(path: string, body?: unknown): Promise<Response>;
  patch(path: string, body?: unknown): Promise<Response>;
  put(path: string, body?: unknown): Promise<Response>;
  del(path: string): Promise<Response>;
}

/** A tiny client bound to one key and one root (`/v1` or the legacy `/api/v1`). */
export function client(t: TestApp, key: string, root = '/v1'): Client {
  const h = bearer(key);
  return {
    get: (p) => t.http.get(root + p).set(h).then((r) => r),
    post: (p, body) => (body === undefined ? t.http.post(root + p).set(h) : t.http.post(root + p).set(h).send(body as object)).then((r) => r),
    patch: (p, body) => t.http.patch(root + p).set(h).send((body ?? {}) as object).then((r) => r),
    put: (p, body) => t.http.put(root + p).set(h).send((body ?? {}) as object).then((r) => r),
    del: (p) => t.http.delete(root + p).set(h).then((r) => r),
  };
}

/** Fails with the response body in the message, which makes a wrong status easy to diagnose. */
export function expectStatus(res: Response, status: number): Response {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
  return res;
}

export async function createDoc(c: Client, body: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const res = await c.post('/documents', { title: '근로계약서', content: '<p>계약 본문</p>', ...body });
  return expectStatus(res, 201).body;
}

export async function addParticipant(c: Client, docId: string, body: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const res = await c.post(`/documents/${docId}/participants`, { name: '홍길동', phone: '01012345678', ...body });
  return expectStatus(res, 201).body;
}

export function field(participantId: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return { participant_id: participantId, type: 'signature', page: 1, x: 10, y: 70, width: 20, height: 8, ...over };
}

/** A draft with one sms_pin signer (with phone) and one required signature field: ready to send. */
export async function sendableDraft(c: Client, body: Record<string, unknown> = {}) {
  const doc = await createDoc(c, body);
  const p = await addParticipant(c, doc.id);
  expectStatus(await c.put(`/documents/${doc.id}/fields`, { fields: [field(p.id)] }), 200);
  return { doc, participant: p };
}

/**
 * The send endpoint belongs to a later issue: a sent document is produced by appending through
 * the domain (same decider, same stream) and catching the projections up.
 */
export async function sendThroughDomain(t: TestApp, organizationId: string, documentId: string, participantIds: string[], options: { livemode?: boolean; pageCount?: number } = {}) {
  const now = new Date().toISOString();
  const links = participantIds.map((participant_id) => ({
    participant_id,
    token_hash: createHash('sha256').update(randomBytes(32)).digest('hex'),
  }));
  await t.infra.commands.decide(
    documentDecider,
    documentStreamId(documentId),
    { type: 'SendDocument', now, expires_at: null, message: null, page_count: options.pageCount ?? 1, original_pdf: null, links },
    { actor: 'test', organization_id: organizationId, livemode: options.livemode ?? false },
    () => now,
  );
  await t.infra.runner.catchUp();
}

export function metadataOf(n: number, prefix = 'k'): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < n; i++) out[`${prefix}${i}`] = `v${i}`;
  return out;
}

/**
 * These suites send hundreds of requests with one key (or without one) inside a minute (and some
 * freeze the clock), which is not what they are about: the per-key and per-address rate limits
 * are raised out of their way.
 */
export const API_TEST_OPTIONS = { config: { rateLimitPerMinute: 1_000_000, unauthenticatedRateLimitPerMinute: 1_000_000 } };

export const UNKNOWN_UUID = '00000000-0000-4000-8000-000000000000';
