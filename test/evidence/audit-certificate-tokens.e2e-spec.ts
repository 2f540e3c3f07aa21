import { documentStreamId } from '@dojang/domain';
import { formatKst } from '@dojang/pdf/audit-certificate';
import { pdftotext } from '@dojang/pdf/testing/poppler';
import { client, Client, expectStatus } from '../support/api-helpers';
import { auditOf, sentWith, signer } from '../support/lifecycle';
import { bearer, startTestApp, TestApp, TestOrg } from '../support/test-app';
import { binary } from '../files/file-helpers';

/**
 * The audit certificate of real documents, completed, declined and canceled through the API
 * (issue 31 item 5, "Done when"): pdftotext, as a reader copies the text, finds whole every id it
 * prints (the document's, every actor's: API key ids in the timeline's narrow column once broke
 * at "key_", participant ids at their UUID's groups), every hash (the original, the final, the signing certificate's), the masked phone
 * number of a decline or cancel reason and every time of the timeline. The renderer's own test
 * (libs/pdf/src/audit-certificate-tokens.spec.ts) holds the long names, reasons and page breaks.
 */
jest.setTimeout(180_000);

const PHONE = '010-5555-6666';
const REASON = `계약 조건이 처음 안내받은 내용과 달라서 이번에는 진행하지 않습니다. 문의 ${PHONE}`;
/**
 * A reason may quote an id, as people paste them: in the timeline's narrow detail column a
 * participant id stood on three lines ("participant:" / "9d3d0ac6-076f-48f1-" / the rest); the
 * timeline's actor is the participant's name, so a reason is where one reaches a narrow column.
 */
const reasonQuoting = (participantId: string) => `${REASON} (참여자 participant:${participantId})`;

describe.each(['completed', 'declined', 'canceled'] as const)('the audit certificate of a %s document, read with pdftotext', (status) => {
  let t: TestApp;
  let org: TestOrg;
  let c: Client;
  let text: string;
  let documentId: string;
  let participantId: string;
  let document: Record<string, any>;
  let original: string;
  let audit: Array<{ actor: string; at: string }>;

  beforeAll(async () => {
    t = await startTestApp();
    org = await t.createOrg();
    c = client(t, org.test);
    const built = await sentWith(c, [{ name: '곽뙇희', email: 'kwak@example.com', phone: '010-2345-6789' }]);
    documentId = built.id;
    participantId = built.p['곽뙇희'].id;
    const party = signer(t, built.p['곽뙇희'].token);
    if (status === 'completed') expectStatus(await party.sign(), 200);
    else if (status === 'declined') expectStatus(await party.decline(reasonQuoting(participantId)), 200);
    else expectStatus(await c.post(`/documents/${documentId}/cancel`, { reason: reasonQuoting(participantId) }), 200);
    await t.infra.runner.catchUp();
    document = expectStatus(await c.get(`/documents/${documentId}`), 200).body;
    expect(document.status).toBe(status);
    audit = await auditOf(c, documentId);
    const sent = (await t.infra.events.readStream(documentStreamId(documentId))).find((e) => e.type === 'DocumentSent')!;
    original = (sent.data.original_pdf as { sha256: string }).sha256;
    const pdf = (await t.http.get(`/v1/documents/${documentId}/file?audit=true`).set(bearer(org.test)).buffer(true).parse(binary).expect(200)).body as Buffer;
    text = pdftotext(pdf);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('prints every key id whole, wherever it stands', () => {
    const keys = [...new Set(audit.map((e) => e.actor).filter((a) => /^key_/.test(a)))];
    // The creation and the sending at least, and the cancellation: by the organization's key.
    expect(keys.length).toBeGreaterThan(0);
    const lines = text.split('\n');
    for (const key of keys) {
      expect(text).toContain(key);
      // No line holds a piece of it without the whole ("key_" / the rest, as before).
      expect(lines.filter((l) => (l.includes(key.slice(0, 12)) || l.includes(key.slice(-12))) && !l.includes(key))).toEqual([]);
    }
  });

  it('prints every participant id whole, on one line, wherever it stands', () => {
    const lines = text.split('\n');
    // The signer's own act is recorded as `participant:<id>`: the last signature names it; a
    // decline or cancel reason quotes it, in the conclusion and in the timeline's narrow detail.
    const ids = text.match(/participant:[0-9a-f-]+/g) ?? [];
    expect(ids.length).toBeGreaterThanOrEqual(status === 'completed' ? 1 : 2);
    expect(ids.filter((id) => id !== `participant:${participantId}`)).toEqual([]);
    // No line holds the prefix, the UUID's first or last group without the whole id (its 4-digit
    // groups are left out: one may stand in a hash by chance).
    const pieces = ['participant:', participantId.slice(0, 8), participantId.slice(-12)];
    expect(lines.filter((l) => pieces.some((piece) => l.includes(piece)) && !l.includes(participantId))).toEqual([]);
  });

  it('prints the document id, the hashes, the masked phone number and every time of the timeline whole', () => {
    const tokens: string[] = [documentId, original, ...audit.map((e) => formatKst(e.at))];
    if (status === 'completed') tokens.push(document.final_pdf_sha256);
    else tokens.push('010-****-6666');
    expect(tokens.filter((token) => !text.includes(token))).toEqual([]);
    // The reason's phone number is masked, never printed whole.
    expect(text).not.toContain(PHONE);
  });
});
