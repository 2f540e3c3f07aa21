import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditCertificateInput, AuditConclusion, formatKst, renderAuditCertificate } from './audit-certificate';
import { pdftotext } from './testing/poppler';

/**
 * The audit certificate reads like a document (issue 31, item 5): pdftotext, as a reader copies
 * text, finds every hash, id, phone number and time whole, every Korean word unbroken, and no
 * table row split across two pages. Before, it printed "server clock 202 / 6-11-28", "자필 서명과
 * 같 / 은 효력을", "문의 0 / 10-****-6666", "key_a898c8e66acda35 / f9c767b2d" and a "취소 / Canceled"
 * row across a page break.
 */
const hex = (seed: string) => (seed.repeat(64)).slice(0, 64);
const KEY = 'key_a898c8e66acda35f9c767b2d';
const ORG = 'org_e505d5b45db12b4c6bc983be';
const PARTICIPANT = 'participant:e5bf4367-7874-4e77-8563-e6bedd2487fe';
const REASON = '근로조건에 대한 설명이 계약서 내용과 다르고 연봉 금액이 처음 안내받은 것과 달라서 이번에는 서명하지 않겠습니다. 자세한 내용은 인사팀 담당자에게 문의 010-****-6666 또는 h***@example.com 으로 연락 바랍니다';
const LONG_NAME = '곽뙇희 (주식회사 한빛소프트 인사총무팀 선임매니저 겸 노무관리 담당자)';

function input(status: 'completed' | 'declined' | 'canceled'): AuditCertificateInput {
  const t = (m: number) => new Date(Date.UTC(2026, 10, 28, 4, 49, 13) + m * 61_000).toISOString();
  // Many events, so rows meet page breaks wherever they fall.
  const timeline = Array.from({ length: 40 }, (_, i) => ({
    at: t(i),
    event: i % 3 === 0 ? 'reminded' : i % 3 === 1 ? 'viewed' : 'resent',
    actor: i % 2 ? KEY : PARTICIPANT,
    detail: `참여자/Participant: ${LONG_NAME} · 서명 이미지/Signature image sha256 ${hex(String(i % 10))} · IP 203.0.113.${i}`,
  }));
  const conclusion: AuditConclusion = {
    status,
    event_count: 48,
    created_at: t(0),
    created_by: KEY,
    sender: `주식회사 한빛소프트 (${ORG})`,
    sent_at: t(1),
    sent_by: KEY,
    expires_at: t(20_000),
    concluded_at: t(45),
    concluded_by: status === 'canceled' ? KEY : PARTICIPANT,
    last_signature: status === 'completed' ? { name: LONG_NAME, signed_at: t(45), auth: 'sms_pin', phone_masked: '010-****-6666', actor: PARTICIPANT, ip: '203.0.113.7' } : null,
    declined: status === 'declined' ? { name: LONG_NAME, declined_at: t(45), reason: REASON, ip: '203.0.113.7', user_agent: 'Mozilla/5.0 (Linux; Android 14; SM-S918N) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36' } : null,
    canceled: status === 'canceled' ? { canceled_at: t(45), reason: REASON, actor: KEY } : null,
    certified: { sealed_at: t(46), timestamped_at: null, revision: 48, hash: hex('d6') },
  };
  return {
    title: '2026년 근로계약서 — 곽뙇희 (정규직, 인사총무팀) 및 개인정보 수집·이용 동의서',
    document_id: 'c49db46b-51ef-4c55-8f74-df0c38057202',
    original_sha256: hex('26'),
    final_sha256: status === 'completed' ? hex('70') : null,
    signing_certificate_sha256: hex('ce'),
    signing_certificate_not_after: t(500_000),
    signing_certificate_subject: 'CN=홍길동, O=주식회사 한빛소프트',
    participants: [
      { name: LONG_NAME, role: 'signer', auth: 'sms_pin', phone_masked: '010-****-6666', email_masked: 'h***@example.com', ip: '203.0.113.7', user_agent: 'Mozilla/5.0 (Linux; Android 14; SM-S918N) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36', viewed_at: t(2), signed_at: status === 'completed' ? t(45) : null },
    ],
    timeline,
    generated_at: t(50),
    chain: { head_hash: hex('57'), event_count: 48, sealed: { revision: 48, hash: hex('9e'), completed_event_count: 47 } },
    conclusion,
  };
}

/** pdftotext of one page. */
function pageText(pdf: Buffer, page: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'dojang-cert-'));
  try {
    writeFileSync(join(dir, 'c.pdf'), pdf);
    return execFileSync('pdftotext', ['-f', String(page), '-l', String(page), '-enc', 'UTF-8', join(dir, 'c.pdf'), '-'], { encoding: 'utf8' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** pdftotext -bbox: every word with where it stands on its page. */
function bbox(pdf: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'dojang-cert-'));
  try {
    writeFileSync(join(dir, 'c.pdf'), pdf);
    return execFileSync('pdftotext', ['-bbox', '-enc', 'UTF-8', join(dir, 'c.pdf'), '-'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.each(['completed', 'declined', 'canceled'] as const)('the audit certificate of a %s document', (status) => {
  let pdf: Buffer;
  let text: string;
  const info = input(status);

  beforeAll(async () => {
    pdf = await renderAuditCertificate(info);
    text = pdftotext(pdf);
  });

  it('prints every hash, id, phone number, address and time whole', () => {
    const tokens = [
      info.document_id,
      info.original_sha256,
      info.signing_certificate_sha256!,
      KEY,
      ORG,
      PARTICIPANT,
      '010-****-6666',
      'h***@example.com',
      '203.0.113.7',
      ...[info.conclusion!.created_at, info.conclusion!.sent_at, info.conclusion!.concluded_at, info.conclusion!.certified!.sealed_at, info.generated_at].map((at) => formatKst(at)),
      ...(info.final_sha256 ? [info.final_sha256] : []),
    ];
    expect(tokens.filter((token) => !text.includes(token))).toEqual([]);
    // Every id on a page is whole on one line, wherever it stands: the timeline's narrow actor
    // column printed a key id as "key_" / the rest, and a participant id as "participant:" /
    // "e5bf4367-7874-4e77-" / "8563-e6bedd2487fe". 20 rows by each, the conclusion's actors besides.
    const lines = text.split('\n');
    for (const id of [KEY, PARTICIPANT]) {
      const bare = id.slice(id.search(/[:_]/) + 1);
      const pieces = [id.slice(0, id.search(/[:_]/) + 1), ...bare.split('-')];
      const touching = lines.filter((l) => pieces.some((piece) => l.includes(piece)));
      expect(touching.length).toBeGreaterThanOrEqual(20);
      expect(touching.filter((l) => !l.includes(id))).toEqual([]);
    }
    // A hash in the timeline's narrow column comes in two fixed groups of 32, each whole.
    for (const i of [0, 1, 2]) {
      const h = hex(String(i));
      expect(text.includes(h) || (text.includes(h.slice(0, 32)) && text.includes(h.slice(32)))).toBe(true);
    }
  });

  it('keeps every word inside its column: an id under its event ends before the detail column', () => {
    const words = [...bbox(pdf).matchAll(/<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)" yMax="[\d.]+">([^<]*)<\/word>/g)].map((m) => ({ x0: Number(m[1]), x1: Number(m[2]), text: m[3] }));
    // Inside the page's margins (48 pt) less a cell's padding (4 pt): a hash's group of 32 ran to 552.
    expect(words.filter((w) => w.x1 > 595.28 - 48 - 4 + 0.5)).toEqual([]);
    // Each detail of this timeline starts with "참여자/Participant:", each event's label with "알림",
    // "문서" or "서명": its actor's id stands under it.
    const detail = Math.min(...words.filter((w) => w.text === '참여자/Participant:').map((w) => w.x0));
    const event = Math.min(...words.filter((w) => w.text === '알림').map((w) => w.x0));
    const ids = words.filter((w) => Math.abs(w.x0 - event) < 1 && (w.text === KEY || w.text === PARTICIPANT));
    expect(ids.length).toBe(40);
    // The cell's padding and its rule between: 8.5 pt.
    expect(ids.filter((w) => w.x1 > detail - 8.5 + 0.5)).toEqual([]);
  });

  it('never breaks a Korean word across lines', () => {
    const words = [...new Set([...(status === 'completed' ? [] : REASON.split(' ')), ...LONG_NAME.split(' '), '효력을', '동의하게', '기록됩니다'])].filter((w) => /[가-힣]/.test(w));
    const broken = words.filter((w) => !text.includes(w));
    expect(broken).toEqual([]);
  });

  it('keeps each table row on one page: the conclusion row and its label stay together', () => {
    const pages = Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', ['-'], { input: pdf, encoding: 'utf8' }))![1]);
    expect(pages).toBeGreaterThan(1);
    const label = status === 'canceled' ? '취소' : status === 'declined' ? '거절 사유' : '마지막 서명';
    const value = status === 'completed' ? LONG_NAME.split(' ')[0] : REASON.split(' ')[0];
    const onPage = Array.from({ length: pages }, (_, i) => pageText(pdf, i + 1)).findIndex((p) => new RegExp(`^${label}$`, 'm').test(p));
    expect(onPage).toBeGreaterThanOrEqual(0);
    expect(pageText(pdf, onPage + 1)).toContain(value);
  });
});

/**
 * A delivery's provider id stands whole inside the timeline's detail column. The SMTP sender's
 * Message-ID is `<msg_…@{MAIL_FROM's domain}>`: 42 characters on dojang.test, 60–80 on a real
 * installation's mail domain, which ran past the page's margin as one unbreakable run.
 */
describe('a delivery whose Message-ID carries a long mail domain', () => {
  const MESSAGE_IDS = [
    '<msg_f1443f9645505317a1c736b8@dojang.test>',
    '<msg_0a1b2c3d4e5f60718293a4b5@contracts.hanbit-software.co.kr>',
    '<msg_9e8d7c6b5a4f30211203f4e5@signing-notifications.hr.hanbit-software-holdings.co.kr>',
  ];
  let words: { x0: number; x1: number; text: string }[];
  let raw: string;

  beforeAll(async () => {
    const base = input('completed');
    const entries = MESSAGE_IDS.map((id, i) => ({
      at: base.timeline[i].at,
      kind: 'signing_request',
      channel: 'email',
      recipient_masked: 'h***@hanbit-software-holdings.co.kr',
      provider_message_id: id,
    }));
    const pdf = await renderAuditCertificate({ ...base, deliveries: { entries, head_hash: hex('ab'), event_count: entries.length } });
    raw = execFileSync('pdftotext', ['-raw', '-enc', 'UTF-8', '-', '-'], { input: pdf, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    // The page the deliveries stand on (the first rows of the timeline): word positions are per page.
    const page = bbox(pdf).split('<page ').find((p) => p.includes('msg_')) ?? '';
    words = [...page.matchAll(/<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)" yMax="[\d.]+">([^<]*)<\/word>/g)].map((m) => ({ x0: Number(m[1]), x1: Number(m[2]), text: m[3] }));
  });

  it('keeps every word of the deliveries inside the page margins', () => {
    expect(words.filter((w) => w.x1 > 595.28 - 48 - 4 + 0.5)).toEqual([]);
    expect(words.filter((w) => w.text.includes('msg_'))).toHaveLength(3);
  });

  it('prints each Message-ID whole on one line, or cut only after its @ and between domain labels', () => {
    // In the content's own order (pdftotext -raw), as a reader copies a cell's lines.
    const lines = raw.split('\n');
    for (const id of MESSAGE_IDS) {
      const local = id.slice(0, id.indexOf('@') + 1);
      if (lines.some((l) => l.endsWith(id))) continue;
      // Cut: the local part ends its line, and the next lines (each a whole domain label or several) complete it.
      const start = lines.findIndex((l) => l.endsWith(local));
      let joined = local;
      for (let i = start + 1; start >= 0 && joined.length < id.length && i < lines.length; i++) joined += lines[i];
      expect({ id, joined }).toEqual({ id, joined: id });
    }
    // The one on dojang.test fits whole; the longest needs its domain cut once more.
    expect(lines.some((l) => l.endsWith(MESSAGE_IDS[0]))).toBe(true);
    expect(lines.filter((l) => /^[a-z0-9.-]+[.>]$/.test(l))).toEqual(['contracts.hanbit-software.co.kr>', 'signing-notifications.hr.', 'hanbit-software-holdings.co.kr>']);
  });
});
