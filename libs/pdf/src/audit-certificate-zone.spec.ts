import { AuditCertificateInput, formatCertificateTime, renderAuditCertificate } from './audit-certificate';
import { encodePng } from './testing/png';
import { pdfimages, pdftotext } from './testing/poppler';

const base: AuditCertificateInput = {
  title: 'Offer letter',
  document_id: '3f1c2b9e-8c1a-4f7e-9a51-2d7c6e0b1a42',
  original_sha256: 'a'.repeat(64),
  final_sha256: 'b'.repeat(64),
  participants: [
    { name: 'Jane Kim', role: 'signer', auth: 'none', phone_masked: null, email_masked: 'j***@example.com', ip: '198.51.100.4', user_agent: 'Mozilla/5.0', viewed_at: '2026-12-10T20:00:00Z', signed_at: '2026-12-11T04:30:00Z' },
  ],
  timeline: [
    { at: '2026-07-01T13:30:00Z', event: 'document.sent', actor: 'key_1', detail: null },
    { at: '2026-12-11T04:30:00Z', event: 'participant.signed', actor: 'Jane Kim' },
  ],
  generated_at: '2026-12-11T05:00:00Z',
  conclusion: {
    status: 'completed',
    event_count: 5,
    created_at: '2026-07-01T13:00:00Z',
    created_by: 'key_1',
    sender: 'HR (org_ny)',
    sent_at: '2026-07-01T13:30:00Z',
    sent_by: 'key_1',
    expires_at: '2026-12-11T04:59:59.999Z',
    concluded_at: '2026-12-11T04:30:01Z',
    concluded_by: 'system',
    last_signature: null,
    declined: null,
    canceled: null,
    certified: null,
  },
};

describe('the audit certificate in the organization\'s time zone', () => {
  it('formats an instant as the wall clock there, with the zone\'s name at that instant', () => {
    expect(formatCertificateTime('2026-12-11T04:59:59.999Z', 'America/New_York')).toBe('2026-12-10 23:59:59 EST');
    expect(formatCertificateTime('2026-07-01T13:30:00Z', 'America/New_York')).toBe('2026-07-01 09:30:00 EDT');
    expect(formatCertificateTime('2026-12-11T04:59:59.999Z', 'Asia/Seoul')).toBe('2026-12-11 13:59:59 KST');
    expect(formatCertificateTime('2026-12-11T04:59:59.999Z')).toBe('2026-12-11 13:59:59 KST');
    expect(formatCertificateTime(null, 'America/New_York')).toBe('—');
  });

  it('an organization in New York: every time in EST/EDT, none in KST, and the note names the zone', async () => {
    const text = pdftotext(await renderAuditCertificate({ ...base, time_zone: 'America/New_York' }));
    for (const s of ['2026-12-10 23:59:59 EST', '2026-07-01 09:30:00 EDT', '2026-12-10 23:30:00 EST', '2026-12-10 15:00:00 EST', '2026-12-11 00:00:00 EST']) expect(text).toContain(s);
    expect(text).not.toContain('KST');
    expect(text).toContain('America/New_York');
    expect(text).not.toContain('Korea Standard Time');
  });

  it('without a zone: Korean time, as before', async () => {
    const text = pdftotext(await renderAuditCertificate(base));
    expect(text).toContain('2026-12-11 13:59:59 KST');
    expect(text).toContain('Times are Korea Standard Time (KST, UTC+9)');
  });

  it('the sender\'s name and logo head the certificate', async () => {
    const logo = encodePng(200, 50, (x) => (x < 100 ? [26, 86, 219, 255] : [255, 255, 255, 255]));
    const pdf = await renderAuditCertificate({ ...base, time_zone: 'America/New_York', sender: { name: 'Acme Inc.', logo: { type: 'png', bytes: logo, width: 200, height: 50 } } });
    const text = pdftotext(pdf);
    expect(text.indexOf('Acme Inc.')).toBeGreaterThanOrEqual(0);
    expect(text.indexOf('Acme Inc.')).toBeLessThan(text.indexOf('Audit Trail Certificate'));
    const images = pdfimages(pdf);
    expect(images).toMatch(/\b200\s+50\b/);
  });
});
