import * as fs from 'fs';
import * as path from 'path';
import { Writable } from 'stream';
import { createLogger, loadConfig, openInfrastructure } from '@dojang/application';
import { createApp } from '../../apps/api/src/create-app';
import { validatingAgent } from '../support/openapi-validator';
import { documentStreamId } from '@dojang/domain';
import { pdfsig, pdftotext } from '@dojang/pdf/testing/poppler';
import { addParticipant, client, Client, expectError, expectStatus, field } from '../support/api-helpers';
import { SIGNATURE } from '../support/lifecycle';
import { bearer, startTestApp, TestApp, TestOrg } from '../support/test-app';
import { binary, sha256 } from '../files/file-helpers';

/** What the service hands out as evidence: the audit version, and stored PDFs only as stored. */
describe('evidence served for a completed document', () => {
  let t: TestApp;
  let org: TestOrg;
  let c: Client;
  let docId: string;
  let token: string;
  let final: { sha256: string };
  let original: { sha256: string };
  const download = (query = '') => t.http.get(`/v1/documents/${docId}/file${query}`).set(bearer(org.test)).buffer(true).parse(binary);
  const blobPath = (sha: string) => path.join(t.dataDir, 'blobs', sha.slice(0, 2), sha);
  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });

  beforeAll(async () => {
    t = await startTestApp({ logger: createLogger({ level: 'error', destination: sink }) });
    org = await t.createOrg();
    c = client(t, org.test);
    const doc = expectStatus(await c.post('/documents', { title: '표준 근로계약서', content: '<p>갑과 을은 성실하게 이 계약을 이행한다.</p>' }), 201).body;
    docId = doc.id;
    const p = await addParticipant(c, docId, { auth: 'none', phone: undefined });
    expectStatus(await c.put(`/documents/${docId}/fields`, { fields: [field(p.id)] }), 200);
    const sent = expectStatus(await c.post(`/documents/${docId}/send`, {}), 200).body;
    token = String(sent.participants[0].signing_url).split('/sign/')[1];
    expectStatus(await t.http.get(`/v1/signing/${token}`), 200);
    expectStatus(await t.http.post(`/v1/signing/${token}/sign`).send({ consent: true, signature: SIGNATURE }), 200);
    const events = await t.infra.events.readStream(documentStreamId(docId));
    final = events.find((e) => e.type === 'DocumentCompleted')!.data.final_pdf as { sha256: string };
    original = events.find((e) => e.type === 'DocumentSent')!.data.original_pdf as { sha256: string };
  });
  afterAll(() => t.close());

  describe('the audit version (?audit=true)', () => {
    let audit: Buffer;
    let text: string;
    beforeAll(async () => {
      audit = (await download('?audit=true').expect(200)).body;
      text = pdftotext(audit);
    });

    it('is signed over the whole file, the contract signature still valid for its revision', () => {
      const report = pdfsig(audit);
      const signatures = report.split(/^Signature #\d+:$/m).slice(1);
      expect(signatures).toHaveLength(2);
      for (const s of signatures) expect(s).toContain('Signature Validation: Signature is Valid.');
      expect(signatures[1]).toContain('Total document signed');
    });

    it('prints every hash in full: original, final (also in the timeline), chain heads', async () => {
      const events = await t.infra.events.readStream(documentStreamId(docId));
      const head = events[events.length - 1].metadata.hash;
      const sealed = (events.find((e) => e.type === 'DocumentCompleted')!.data.chain_head as { hash: string }).hash;
      const compact = text.replace(/\s+/g, '');
      // The timeline names it beside the completion (wrapped in its column; the full hash is checked below).
      expect(text).toContain('final PDF sha256');
      for (const hash of [original.sha256, final.sha256, head, sealed]) expect(compact).toContain(hash);
      expect(compact).toContain(`(${events.length}events)`);
    });

    it('names timeline events in Korean and English and shows IPv4 clients as IPv4', () => {
      // Every stored event, by its domain name (the timeline is generated from the log).
      const compact = text.replace(/\s+/g, '');
      // A two-word English label wraps inside its cell, where pdftotext interleaves the next column.
      for (const label of ['서명 완료 (Signed)', '전체 서명 완료 (Completed)', '참여자 추가 (Participant', '서명 위치 지정 (Fields', '결론 인증 (Certified)']) {
        expect(compact).toContain(label.replace(/\s+/g, ''));
      }
      expect(text).not.toContain('::ffff:');
      expect(text).toMatch(/IP 127\.0\.0\.1/);
    });
  });

  describe('a stored PDF altered on disk', () => {

    it('is not served: 500 evidence_integrity_failure and a log line naming the blob', async () => {
      const file = blobPath(final.sha256);
      const bytes = fs.readFileSync(file);
      expect(sha256(bytes)).toBe(final.sha256);
      const altered = Buffer.from(bytes);
      altered[Math.floor(altered.length / 2)] ^= 0x01;
      fs.writeFileSync(file, altered);
      try {
        expectError(await t.http.get(`/v1/documents/${docId}/file`).set(bearer(org.test)), 500, 'evidence_integrity_failure');
        expectError(await t.http.get(`/v1/documents/${docId}/file?audit=true`).set(bearer(org.test)), 500, 'evidence_integrity_failure');
        expectError(await t.http.get(`/v1/signing/${token}/file`), 500, 'evidence_integrity_failure');
        const logged = logLines.filter((line) => line.includes('evidence_integrity_failure'));
        expect(logged.length).toBeGreaterThanOrEqual(3);
        expect(logged[0]).toContain(final.sha256);
      } finally {
        fs.writeFileSync(file, bytes);
      }
      expect(sha256((await download().expect(200)).body)).toBe(final.sha256);
    });
  });

  describe('a stored document body altered on disk', () => {
    it('is neither shown nor sent by a process that reads it: 500 evidence_integrity_failure, the draft unchanged', async () => {
      const content = '<p>제1조 을은 갑에게 월 3,000,000원을 지급한다.</p>';
      const draft = expectStatus(await c.post('/documents', { title: '변조 확인 계약서', content }), 201).body;
      const p = await addParticipant(c, draft.id, { auth: 'none', phone: undefined });
      expectStatus(await c.put(`/documents/${draft.id}/fields`, { fields: [field(p.id)] }), 200);
      const created = (await t.infra.events.readStream(documentStreamId(draft.id))).find((e) => e.type === 'DocumentCreated')!;
      const file = blobPath((created.data.content_blob as { sha256: string }).sha256);
      const bytes = fs.readFileSync(file);
      fs.chmodSync(file, 0o644);
      fs.writeFileSync(file, Buffer.from('<p>제1조 을은 갑에게 월 30,000,000원을 지급한다.</p>', 'utf8'));
      // This process read the body when it was created and keeps that verified text; a process
      // that reads it from disk now (another API, or this one restarted) must refuse it.
      const infra = await openInfrastructure(loadConfig({ DATA_DIR: t.dataDir, NODE_ENV: 'test' }), undefined, { logger: createLogger({ level: 'silent' }) });
      const app = await createApp(infra);
      await app.init();
      try {
        const other = validatingAgent(app.getHttpServer());
        expectError(await other.get(`/v1/documents/${draft.id}`).set(bearer(org.test)), 500, 'evidence_integrity_failure');
        expectError(await other.post(`/v1/documents/${draft.id}/send`).set(bearer(org.test)).send({}), 500, 'evidence_integrity_failure');
        expect((await t.infra.events.readStream(documentStreamId(draft.id))).map((e) => e.type)).not.toContain('DocumentSent');
        fs.writeFileSync(file, bytes);
        expect(expectStatus(await other.get(`/v1/documents/${draft.id}`).set(bearer(org.test)), 200).body.content).toBe(content);
      } finally {
        fs.writeFileSync(file, bytes);
        await app.close();
        await infra.close();
      }
    });
  });
});
