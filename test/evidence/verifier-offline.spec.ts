import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

/**
 * The offline verifier must keep running with nothing but the bundle: the `verifier-offline`
 * rule of .dependency-cruiser.js (checked by `npm run deps:validate`) lets libs/verifier import
 * Node built-ins, fflate, pkijs/asn1js and the frozen hash-chain function, and nothing else.
 * Run over a throwaway tree, as test/tooling does for the other rules.
 */
const ROOT = path.resolve(__dirname, '../..');

describe('dependency-cruiser rule verifier-offline', () => {
  let dir: string;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-verifier-rule-'));
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('allows built-ins, fflate, pkijs, asn1js and hash-chain; refuses the domain, a store port and any other package', () => {
    const files: Record<string, string> = {
      'libs/event-store/src/hash-chain.ts': 'export const GENESIS_HASH = "0";\n',
      'libs/event-store/src/event-store.port.ts': 'export interface EventStore { x: number }\n',
      'libs/domain/src/index.ts': 'export const domain = 1;\n',
      'libs/verifier/src/ok.ts': [
        "import { createHash } from 'node:crypto';",
        "import { readFileSync } from 'fs';",
        "import { unzipSync } from 'fflate';",
        "import * as pkijs from 'pkijs';",
        "import * as asn1js from 'asn1js';",
        "import { GENESIS_HASH } from '../../event-store/src/hash-chain';",
        "import { bad } from './bad';",
        'export const ok = [createHash, readFileSync, unzipSync, pkijs, asn1js, GENESIS_HASH, bad];',
        '',
      ].join('\n'),
      'libs/verifier/src/bad.ts': [
        "import { domain } from '../../domain/src';",
        "import type { EventStore } from '../../event-store/src/event-store.port';",
        "import { PDFDocument } from 'pdf-lib';",
        'export const bad: [number, EventStore | null, typeof PDFDocument] = [domain, null, PDFDocument];',
        '',
      ].join('\n'),
    };
    for (const [name, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      fs.writeFileSync(path.join(dir, name), text);
    }
    const run = spawnSync(
      process.execPath,
      [path.join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'), '--config', path.join(ROOT, '.dependency-cruiser.js'), '--output-type', 'json', 'libs'],
      { cwd: dir, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    if (!run.stdout) throw new Error(`depcruise produced no report: ${run.stderr}`);
    const report = JSON.parse(run.stdout) as { summary: { violations: Array<{ rule: { name: string }; from: string; to: string }> } };
    const violations = report.summary.violations.filter((v) => v.rule.name === 'verifier-offline').map((v) => ({ from: v.from, to: v.to.replace(/^.*node_modules\//, 'node_modules/') }));
    expect(violations.sort((a, b) => a.to.localeCompare(b.to))).toEqual([
      { from: 'libs/verifier/src/bad.ts', to: 'libs/domain/src/index.ts' },
      { from: 'libs/verifier/src/bad.ts', to: 'libs/event-store/src/event-store.port.ts' },
      { from: 'libs/verifier/src/bad.ts', to: expect.stringMatching(/^node_modules\/pdf-lib\//) },
    ]);
  });
});
