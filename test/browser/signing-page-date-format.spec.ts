import { buildSync } from 'esbuild';
import * as path from 'path';
import * as vm from 'vm';
import { DATE_FORMATS, DEFAULT_DATE_FORMAT, displayValue, FieldLocale } from '@dojang/domain';
import { SIGNING_PAGE_DIR } from '../../apps/api/src/signing/signing-page.http.controller';

/**
 * The signing page writes date values as the final PDF will (issue 32), with its own statement of
 * the rule (date-format.js: the production image serves the page without libs' sources). This
 * spec holds it to the domain's displayValue: the page's module, bundled by esbuild as the page
 * gets it, run on every format, field locale and a few days beside the domain's.
 */
type PageDates = {
  DATE_FORMATS: string[];
  DEFAULT_DATE_FORMAT: string;
  printedDate: (f: object, iso: string, format: string | null | undefined) => string;
};

function loadPageDates(): PageDates {
  const code = buildSync({ entryPoints: [path.join(SIGNING_PAGE_DIR, 'date-format.js')], bundle: true, write: false, format: 'cjs', platform: 'neutral', logLevel: 'silent' }).outputFiles[0].text;
  const module = { exports: {} as PageDates };
  vm.runInNewContext(code, { module, exports: module.exports });
  return module.exports;
}

describe('signing page date format agrees with the domain', () => {
  const page = loadPageDates();

  it('knows the same formats and default', () => {
    expect([...page.DATE_FORMATS]).toEqual([...DATE_FORMATS]);
    expect(page.DEFAULT_DATE_FORMAT).toBe(DEFAULT_DATE_FORMAT);
  });

  it('writes every day as the PDF does, per format and field locale', () => {
    const locales: Array<FieldLocale | undefined> = [undefined, 'ko', 'en'];
    const days = ['2026-03-01', '1995-12-25', '2027-01-04', '2000-10-10'];
    const disagree: string[] = [];
    let compared = 0;
    for (const format of [...DATE_FORMATS, undefined]) {
      for (const locale of locales) {
        for (const type of ['date', 'signing_date'] as const) {
          for (const day of days) {
            const field = locale ? { type, locale } : { type };
            const server = displayValue(field, day, undefined, format);
            const shown = page.printedDate(field, day, format);
            compared += 1;
            if (shown !== server) disagree.push(`${String(format)} ${String(locale)} ${type} ${day}: page ${shown}, server ${server}`);
          }
        }
      }
    }
    expect(compared).toBe(5 * 3 * 2 * 4);
    expect(disagree).toEqual([]);
    // The case of the issue, stated outright.
    expect(page.printedDate({ type: 'date' }, '2026-03-01', 'YYYY. M. D.')).toBe('2026. 3. 1.');
  });
});
