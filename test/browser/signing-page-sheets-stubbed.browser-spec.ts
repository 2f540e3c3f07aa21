import * as path from 'path';
import { Browser } from 'playwright-core';
import { startBrowserApp } from '../support/browser';
import { ADDRESS, runSheetsScenario, SIGNER } from '../support/signing-sheets';
import { TestApp, TestOrg } from '../support/test-app';

/**
 * Issue 30's phone test with the server side of the issue stood in for (drafts, the seal made from
 * the name, the reading view: stubIssue30Routes, following the branches' contract), so that the
 * page's side is tested on its own: signing-page-sheets.browser-spec.ts runs the same scenario
 * against the real routes. Everything else (the session, page images, the attachment upload, Sign)
 * is the real server.
 */

jest.setTimeout(600_000);

describe('signing page at 360 px: sheets, saved progress, review, a seal from the name (browser, issue 30 routes stubbed)', () => {
  let t: TestApp;
  let org: TestOrg;
  let browser: Browser;
  let origin: string;

  beforeAll(async () => {
    ({ t, browser, origin } = await startBrowserApp({ latinOnlyFonts: true }));
    org = await t.createOrg('주식회사 똠방');
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('fills every field type through the sheets, survives a reload half-way, makes a seal from 곽뙇희 and signs', async () => {
    const r = await runSheetsScenario({ t, org, browser, origin, artifacts: path.join(__dirname, '../../test-artifacts/signing-page-sheets-stubbed'), stubbed: true });
    expect(r.problems).toEqual([]);
    // axe (target-size included) and the 44 px targets, in every state.
    for (const [state, found] of Object.entries(r.states)) expect({ state, ...found }).toEqual({ state, axe: [], small: [] });
    expect(r.width360).toEqual({ overflow: 0, langRight: expect.any(Number), width: 360 });
    expect(r.width360.langRight).toBeLessThanOrEqual(360);
    expect(r.width320).toEqual({ overflow: 0, langRight: expect.any(Number), width: 320 });
    expect(r.width320.langRight).toBeLessThanOrEqual(320);
    expect(r.bodyText).toContain('제1조 근무 장소: 서울');
    expect(r.bodyText).toContain('개인정보 수집·이용 동의서');

    expect(r.before).toBe('다음 입력 칸 (11개 남음)');
    expect(r.first).toEqual({ title: '주소 · 필수', marked: r.c.id('주소'), step: '1 / 11' });
    expect(r.dateType).toBe('date');
    expect(r.initialsError).toBe('10자 이하로 입력해 주세요.');
    expect(r.halfway).toBe('다음 입력 칸 (4개 남음)');
    // After the reload: the same count, every value back (the attachment as attached).
    expect(r.afterReload).toBe(r.halfway);
    expect(r.reviewed.slice(0, 6)).toEqual([
      ['주소', ADDRESS],
      ['월 급여', '3500000'],
      ['입사일', '2027년 1월 2일'],
      ['근무 형태', '계약직'],
      ['임금 형태', '주급'],
      ['이니셜', 'KDH'],
    ]);
    expect(r.reviewed[10]).toEqual(['신분증 사본', '첨부됨']);
    expect(r.resumedAt).toBe('개인정보 수집·이용 동의 · 필수');
    expect(r.attachmentSheet).toBe('첨부됨');
    expect(r.sealError).toEqual({ text: expect.stringContaining('한글·영문·한자 1~10자'), image: false });
    expect(r.review).toEqual([
      ['주소', ADDRESS],
      ['월 급여', '3500000'],
      ['입사일', '2027년 1월 2일'],
      ['근무 형태', '계약직'],
      ['임금 형태', '주급'],
      ['이니셜', 'KDH'],
      ['개인정보 수집·이용 동의', '체크함'],
      ['마케팅 SMS', '입력 안 함'],
      ['마케팅 이메일', '체크함'],
      ['특이사항', '첫 줄\n둘째 줄'],
      ['신분증 사본', '첨부됨'],
      ['서명', '입력됨'],
      ['도장', '이름으로 만든 도장'],
    ]);

    // What Sign carried: the seal's source with its shape and text, and every value.
    expect(r.signStatus).toBe(200);
    expect(r.signBodies).toHaveLength(1);
    const body = r.signBodies[0];
    expect(body).toMatchObject({ consent: true, seal_source: 'made', seal_shape: 'square', seal_text: SIGNER, seal_image: expect.stringMatching(/^data:image\/png;base64,/) });
    expect(body.signature).toMatch(/^data:image\/png;base64,/);
    const value = (fid: string) => r.doc.fields.find((f: any) => f.id === fid)?.value;
    expect(r.doc.status).toBe('completed');
    expect(value(r.c.id('주소'))).toBe(ADDRESS);
    expect(value(r.c.id('입사일'))).toBe('2027-01-02');
    expect([value(r.c.id('임금 형태', '월급')), value(r.c.id('임금 형태', '주급'))]).toEqual([false, true]);
    expect(value(r.c.id('이니셜'))).toBe('KDH');
    expect([value(r.c.id('개인정보 수집·이용 동의')), value(r.c.id('마케팅 SMS')), value(r.c.id('마케팅 이메일'))]).toEqual([true, false, true]);
    expect(value(r.c.id('특이사항'))).toBe('첫 줄\n둘째 줄');
    expect(body.values[r.c.id('신분증 사본')]).toEqual(expect.any(String));
  });
});
