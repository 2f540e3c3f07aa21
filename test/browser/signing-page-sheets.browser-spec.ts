import { documentStreamId } from '@dojang/domain';
import * as path from 'path';
import { Browser } from 'playwright-core';
import { startBrowserApp } from '../support/browser';
import { expectSheetsScenario, runSheetsScenario, SIGNER } from '../support/signing-sheets';
import { TestApp, TestOrg } from '../support/test-app';

/**
 * Issue 30's "done when", against the real server: at 360×780 (Android user agent, no Korean
 * system font) a signer fills a two-part contract with every field type through the bottom sheets
 * only, reloads half-way and finishes without entering anything again (the draft: PUT …/draft and
 * the session's `draft`), makes a seal from "곽뙇희" (POST …/seal_preview), reviews and signs; axe
 * (target-size included) finds nothing in any state. Then the signing event records the seal's
 * source and hash, and the draft is gone. Screenshots: test-artifacts/signing-page-sheets/.
 */

jest.setTimeout(600_000);

describe('signing page at 360 px: sheets, saved progress, review, a seal from the name (browser, real server)', () => {
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
    const r = await runSheetsScenario({ t, org, browser, origin, artifacts: path.join(__dirname, '../../test-artifacts/signing-page-sheets') });
    expectSheetsScenario(r);
    // The server's record of the seal: made from the name, with the hash of the PNG it rendered.
    // (Read from the log: the public participant.signed event does not carry the seal.)
    const events = await t.infra.events.readStream(documentStreamId(r.c.docId));
    const signed = events.find((e) => e.type === 'ParticipantSigned') as any;
    // What was chosen is recorded with the image's hash (ParticipantSigned.seal, docs/EVENTS.md).
    expect(signed.data.seal).toMatchObject({ source: 'made', image: { sha256: expect.stringMatching(/^[0-9a-f]{64}$/) } });
    expect(r.signBodies[0]).toMatchObject({ seal_source: 'made', seal_shape: 'square', seal_text: SIGNER });
    // Signed: the link's draft is cleared (the session now answers with none).
    const session = await t.http.get(`/v1/signing/${r.c.token}`);
    expect(session.body.draft ?? null).toBeNull();
  });
});
