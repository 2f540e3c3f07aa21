import * as fs from 'fs';
import * as path from 'path';
import { Response } from 'supertest';
import { addParticipant, Client, client, expectStatus, field } from './api-helpers';
import { TestApp } from './test-app';

import { solidPng } from './png';

export { solidPng };

export const SIGNATURE = solidPng();

/**
 * Asserts the error envelope, status and code; unlike api-helpers' expectError it accepts any
 * error type, which 429s (rate_limit_error) need. Returns the error object.
 */
export function expectApiError(res: Response, status: number, code: string, type?: string): Record<string, any> {
  if (res.status !== status || res.body?.error?.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${res.status}: ${JSON.stringify(res.body)}`);
  }
  const err = res.body.error;
  expect(Object.keys(res.body)).toEqual(['error']);
  expect(typeof err.message).toBe('string');
  expect(err.message.length).toBeGreaterThan(0);
  expect(err.request_id).toMatch(/^req_[0-9a-f]{24}$/);
  if (type) expect(err.type).toBe(type);
  return err;
}

export interface PartSpec {
  name: string;
  role?: 'signer' | 'reviewer' | 'cc';
  signing_order?: number;
  auth?: 'sms_pin' | 'none';
  phone?: string;
  email?: string;
  /** A signing group (routing): the first member to sign signs for all. */
  group?: string;
  allow_delegation?: boolean;
  /** Signs for the organization: may stamp its registered seals. */
  representative?: boolean;
  /** Fields for this participant; by default a signer gets one required signature field on page 1. */
  fields?: Array<Record<string, unknown>>;
}

export interface Party {
  id: string;
  name: string;
  url: string;
  token: string;
}

export interface Built {
  id: string;
  doc: Record<string, any>;
  /** Participants by name, with their signing links (after send). */
  p: Record<string, Party>;
}

/** A document sent to one signer without a PIN, whose signature completes it: its id and signing token. */
export async function sentToOneSigner(t: TestApp, key: string, title: string): Promise<{ id: string; token: string }> {
  const c = client(t, key);
  const doc = expectStatus(await c.post('/documents', { title, content: '<p>갑과 을은 성실하게 이 계약을 이행한다.</p>' }), 201).body;
  const p = await addParticipant(c, doc.id, { auth: 'none', phone: undefined });
  expectStatus(await c.put(`/documents/${doc.id}/fields`, { fields: [field(p.id)] }), 200);
  const sent = expectStatus(await c.post(`/documents/${doc.id}/send`, {}), 200).body;
  return { id: doc.id, token: tokenOf(String(sent.participants[0].signing_url)) };
}

/**
 * A template with one role, `employee`, signing in one field on page 1 (a bulk send's usual
 * shape); `over` replaces any part (name, content with its variables, roles).
 */
export async function employeeTemplate(c: Client, over: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const body = {
    name: '근로계약서',
    content: '<p>{{name}}</p>',
    roles: [{ role: 'employee', auth: 'none' }],
    fields: [{ role: 'employee', type: 'signature', page: 1, x: 10, y: 80, width: 30, height: 8 }],
    ...over,
  };
  return expectStatus(await c.post('/templates', body), 201).body;
}

export function tokenOf(url: string): string {
  const token = url.split('/sign/')[1];
  if (!token) throw new Error(`not a signing url: ${url}`);
  return token;
}

/** A draft with the given participants (added in one batch) and their fields. */
export async function draftWith(c: Client, parts: PartSpec[], body: Record<string, unknown> = {}): Promise<Built> {
  const doc = expectStatus(await c.post('/documents', { title: '용역계약서', content: '<p>갑과 을은 다음과 같이 계약한다.</p>', ...body }), 201).body;
  const batch = parts.map(({ fields: _f, ...p }) => ({ auth: 'none', ...p }));
  const created = expectStatus(await c.post(`/documents/${doc.id}/participants/batch`, { participants: batch }), 201).body.data as any[];
  const fields: Array<Record<string, unknown>> = [];
  parts.forEach((spec, i) => {
    const id = created[i].id;
    const own = spec.fields ?? ((spec.role ?? 'signer') === 'signer' ? [{ type: 'signature' }] : []);
    // Three participants a row, each row 30 % higher than the last: no field covers another's (field_overlap).
    own.forEach((f, j) => fields.push({ participant_id: id, type: 'signature', page: 1, x: 5 + 30 * (i % 3), y: 60 + 10 * j - 30 * Math.floor(i / 3), width: 20, height: 8, ...f }));
  });
  if (fields.length > 0) expectStatus(await c.put(`/documents/${doc.id}/fields`, { fields }), 200);
  const p: Record<string, Party> = {};
  created.forEach((x) => (p[x.name] = { id: x.id, name: x.name, url: '', token: '' }));
  return { id: doc.id, doc, p };
}

/** A sent document: draftWith + send, with each participant's signing link filled in. */
export async function sentWith(c: Client, parts: PartSpec[], body: Record<string, unknown> = {}): Promise<Built> {
  const built = await draftWith(c, parts, body);
  const sent = expectStatus(await c.post(`/documents/${built.id}/send`, {}), 200).body;
  expect(sent.status).toBe('sent');
  for (const x of sent.participants) {
    built.p[x.name] = { id: x.id, name: x.name, url: x.signing_url, token: tokenOf(x.signing_url) };
  }
  built.doc = sent;
  return built;
}

/** The signer's side: the token is the credential, no API key. */
export function signer(t: TestApp, token: string) {
  const base = `/v1/signing/${token}`;
  return {
    view: () => t.http.get(base).then((r) => r),
    pin: () => t.http.post(base + '/pin').send({}).then((r) => r),
    verify: (pin: string) => t.http.post(base + '/verify').send({ pin }).then((r) => r),
    sign: (body: Record<string, unknown> = { consent: true, signature: SIGNATURE }) => t.http.post(base + '/sign').send(body).then((r) => r),
    decline: (reason = '조건이 맞지 않습니다') => t.http.post(base + '/decline').send({ reason }).then((r) => r),
    file: () => t.http.get(base + '/file').then((r) => r),
  };
}

/** Flushes projections and the notification saga, then reads the document's outbox (oldest first). */
export async function outboxOf(t: TestApp, c: Client, documentId: string, query = ''): Promise<any[]> {
  await t.infra.runner.catchUp();
  await t.worker!.runner.catchUp();
  const res = expectStatus(await c.get(`/outbox?document_id=${documentId}&limit=100${query}`), 200);
  return [...res.body.data].reverse();
}

/** Public event types of one document, oldest first. */
export async function eventTypesOf(c: Client, documentId: string): Promise<string[]> {
  const res = expectStatus(await c.get(`/events?document_id=${documentId}&limit=100`), 200);
  return (res.body.data as any[]).map((e) => e.type).reverse();
}

export async function auditOf(c: Client, documentId: string): Promise<any[]> {
  return expectStatus(await c.get(`/documents/${documentId}/audit`), 200).body.data;
}

/** Every file under dir (recursively) whose bytes contain needle. */
export function filesContaining(dir: string, needle: string): string[] {
  const hits: string[] = [];
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (fs.readFileSync(full).includes(Buffer.from(needle))) hits.push(path.relative(dir, full));
    }
  };
  walk(dir);
  return hits;
}

export { client };
