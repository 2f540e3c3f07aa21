import { flowingText, ID_FONT_SIZE } from './certificate-text';
import { MONO_FONT_FAMILY } from './fonts';

/** The runs' texts: a line may end only between two of them. */
const pieces = (text: string, options = {}) => flowingText(text, options).map((r) => r.text);

describe('flowingText: breaks only where Korean and English allow (issue 31, item 5)', () => {
  it('breaks Korean at spaces only, never between two syllables of a word', () => {
    expect(pieces('자필 서명과 같은 효력을 가집니다.')).toEqual(['자필 ', '서명과 ', '같은 ', '효력을 ', '가집니다.']);
  });

  it('keeps times, dates, phone numbers, ids, e-mails and addresses whole', () => {
    const text = 'server clock 2026-11-28 13:49:13 KST 문의 010-****-6666 key_a898c8e66acda35f9c767b2d participant:e5bf4367-7874-4e77-8563-e6bedd2487fe k**@example.com IP 127.0.0.1 1995-03-15';
    const runs = pieces(text);
    for (const token of ['2026-11-28 13:49:13 KST', '010-****-6666', 'key_a898c8e66acda35f9c767b2d', 'participant:e5bf4367-7874-4e77-8563-e6bedd2487fe', 'k**@example.com', '127.0.0.1', '1995-03-15']) {
      expect(runs.some((r) => r.includes(token))).toBe(true);
    }
    expect(runs.join('')).toBe(text);
  });

  it('sets a hash in the monospace face, whole, or in fixed groups for a narrow column', () => {
    const hash = '70540c191c55d4b71250a042ba60756729dae5404a8d0f2e945173a94c229b6c';
    expect(flowingText(`finalPDF sha256 ${hash}`).find((r) => r.font === MONO_FONT_FAMILY)?.text).toBe(hash);
    const grouped = flowingText(`sha256 ${hash}`, { hexGroup: 32 }).filter((r) => r.font === MONO_FONT_FAMILY);
    expect(grouped.map((r) => r.text)).toEqual([`${hash.slice(0, 32)} `, hash.slice(32)]);
  });

  it('still breaks English words at spaces and keeps every character', () => {
    const text = 'Signing certificate valid until (Canceled) by key_0123456789abcdef';
    expect(pieces(text).join('')).toBe(text);
    expect(pieces(text)).toContain('certificate ');
  });
});

describe('flowingText: line ends and overlong pieces', () => {
  it('keeps a line end as a line end', () => {
    const runs = flowingText('채널/Channel: SMS\n수신/To: 010-****-6666');
    expect(runs.map((r) => r.text).join('')).toBe('채널/Channel: SMS\n수신/To: 010-****-6666');
    expect(runs.find((r) => r.text === '\n')?.noWrap).toBeUndefined();
  });

  it('lets a piece longer than any column be cut, rather than run off the page', () => {
    const ua = 'Mozilla/5.0(Linux;Android14;SM-S918N)AppleWebKit/537.36(KHTML,likeGecko)Chrome/120.0Mobile';
    const runs = flowingText(ua);
    expect(runs.some((r) => !r.noWrap)).toBe(true);
  });
});

describe('flowingText in a narrow column', () => {
  it('keeps a participant id whole in one small monospace run, never at its UUID groups', () => {
    const id = 'participant:e5bf4367-7874-4e77-8563-e6bedd2487fe';
    expect(flowingText(id, { idGroups: true })).toEqual([{ text: id, noWrap: true, font: MONO_FONT_FAMILY, fontSize: ID_FONT_SIZE }]);
    expect(flowingText('c49db46b-51ef-4c55-8f74-df0c38057202', { idGroups: true }).map((r) => r.text)).toEqual(['c49db46b-51ef-4c55-8f74-df0c38057202']);
    // Too long for a narrow column even that small: the prefix on its own line, the UUID whole on the next.
    const long = 'organization_participant:e5bf4367-7874-4e77-8563-e6bedd2487fe';
    expect(flowingText(`by ${long}`, { idGroups: true })).toEqual([
      { text: 'by ', noWrap: true },
      { text: 'organization_participant:', noWrap: true },
      { text: '\n' },
      { text: 'e5bf4367-7874-4e77-8563-e6bedd2487fe', noWrap: true, font: MONO_FONT_FAMILY, fontSize: ID_FONT_SIZE },
    ]);
    // A wide column: whole, in the text's own face.
    expect(flowingText(id)).toEqual([{ text: id, noWrap: true }]);
  });

  it('keeps a key id whole in one small monospace run, never split at "key_" (it fits the actor column)', () => {
    expect(flowingText('key_a898c8e66acda35f9c767b2d', { idGroups: true })).toEqual([{ text: 'key_a898c8e66acda35f9c767b2d', noWrap: true, font: MONO_FONT_FAMILY, fontSize: ID_FONT_SIZE }]);
    expect(flowingText('by key_a898c8e66acda35f9c767b2d', { idGroups: true }).map((r) => r.text)).toEqual(['by ', 'key_a898c8e66acda35f9c767b2d']);
    // A wide column: whole, in the text's own face.
    expect(flowingText('key_a898c8e66acda35f9c767b2d')).toEqual([{ text: 'key_a898c8e66acda35f9c767b2d', noWrap: true }]);
  });

  it("keeps a Message-ID whole in the text's face, not its local part as a small monospace id", () => {
    const messageId = '<msg_f1443f9645505317a1c736b8@dojang.test>';
    expect(flowingText(messageId, { idGroups: true })).toEqual([{ text: messageId, noWrap: true }]);
  });
});
