import * as path from 'path';
import { Browser } from 'playwright-core';
import { startBrowserApp } from '../support/browser';
import { expectSheetsScenario, runSheetsScenario } from '../support/signing-sheets';
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
    expectSheetsScenario(r);
  });
});
