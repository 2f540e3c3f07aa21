import { execFileSync } from 'child_process';
import * as path from 'path';
import { ensureBuilt, ROOT } from '../support/built-server';

/**
 * What the API process loads to start: the built app module and the application library, as
 * `main.js` loads them. Rendering runs in pool threads (libs/pdf/src/index.ts), mail and Twilio SMS
 * in the worker's senders, made only when configured; none of them belongs on the API's main thread.
 * Loading them there cost about a third of the JavaScript a process (and each end-to-end test file)
 * loads at start: 15.5 MB in 2,347 modules before, 10.6 MB in 2,025 after.
 */
describe('the API main thread loads no rendering or sender library', () => {
  beforeAll(() => ensureBuilt(), 180_000);

  it('loads neither pdfmake, PDFium, sanitize-html, csv-parse, twilio nor nodemailer (beyond its address parser)', () => {
    const script = `
      require(${JSON.stringify(path.join(ROOT, 'dist/apps/api/src/create-app.js'))});
      require(${JSON.stringify(path.join(ROOT, 'dist/libs/application/src/index.js'))});
      const loaded = new Set();
      for (const file of Object.keys(require.cache)) {
        const m = file.match(/node_modules\\/((?:@[^/]+\\/)?[^/]+)\\/(.*)$/);
        if (m) loaded.add(m[1] === 'nodemailer' && /(^|\\/)addressparser\\/index\\.js$/.test(m[2]) ? 'nodemailer/addressparser' : m[1]);
      }
      process.stdout.write(JSON.stringify([...loaded].sort()));
    `;
    const loaded: string[] = JSON.parse(execFileSync(process.execPath, ['-r', path.join(ROOT, 'scripts/register-paths.js'), '-e', script], { cwd: ROOT, encoding: 'utf8' }));
    // The check would pass vacuously if nothing loaded: the app's own framework must be there.
    expect(loaded).toEqual(expect.arrayContaining(['@nestjs/core', 'piscina', 'nodemailer/addressparser']));
    const heavy = ['pdfmake', 'pdfkit', '@hyzyla/pdfium', 'sanitize-html', 'csv-parse', 'exceljs', 'twilio', 'axios', 'nodemailer'];
    expect(loaded.filter((name) => heavy.includes(name))).toEqual([]);
  });
});
