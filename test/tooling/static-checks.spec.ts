import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

/**
 * `npm test` runs the type check, ESLint and dependency-cruiser first (`pretest`). These specs
 * prove the project's own configurations catch what they are there for, by running them, as
 * the CLI does, over small throwaway trees (the real tree is checked by `pretest` itself).
 * Child processes because both tools load their ESM entry points, which jest's module system
 * cannot.
 */
const ROOT = path.resolve(__dirname, '../..');

function writeTree(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
}

describe('dependency-cruiser layer rules (.dependency-cruiser.js)', () => {
  let dir: string;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-depcruise-'));
    // Packages resolve as they do in the project, so a Nest import is an npm dependency, not an
    // unresolvable one.
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  });

  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  function cruise(files: Record<string, string>, roots = ['libs']): Array<{ rule: string; from: string; to: string }> {
    writeTree(dir, files);
    const run = spawnSync(
      process.execPath,
      [path.join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'), '--config', path.join(ROOT, '.dependency-cruiser.js'), '--output-type', 'json', ...roots],
      { cwd: dir, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    if (!run.stdout) throw new Error(`depcruise produced no report: ${run.stderr}`);
    const report = JSON.parse(run.stdout) as { summary: { violations: Array<{ rule: { name: string }; from: string; to: string }> } };
    return report.summary.violations.map((v) => ({ rule: v.rule.name, from: v.from, to: v.to })).sort((a, b) => a.from.localeCompare(b.from));
  }

  it('reports each import that crosses a layer the wrong way, and nothing else', () => {
    const violations = cruise({
      // Allowed: the domain importing itself, a projection importing the domain and a port,
      // an adapter importing the domain, its own port and its driver.
      'libs/domain/src/document/document.events.ts': 'export interface DocumentCreated { id: string }\n',
      'libs/domain/src/index.ts': "export * from './document/document.events';\n",
      'libs/event-store/src/event-store.port.ts': "import type { DocumentCreated } from '../../domain/src';\nexport interface EventStore { append(e: DocumentCreated): Promise<void> }\n",
      'libs/event-store/src/sqlite-event-store.adapter.ts':
        "import Database from 'better-sqlite3';\nimport type { EventStore } from './event-store.port';\nexport const open = (): EventStore | typeof Database | null => null;\n",
      'libs/projections/src/document.projection.ts':
        "import type { DocumentCreated } from '../../domain/src';\nimport type { EventStore } from '../../event-store/src/event-store.port';\nexport type P = DocumentCreated | EventStore;\n",
      // Forbidden, one per rule.
      'libs/domain/src/nest-leak.ts': "import { Injectable } from '@nestjs/common';\nexport const leak = Injectable;\n",
      'libs/domain/src/io-leak.ts': "import { readFileSync } from 'fs';\nexport const io = readFileSync;\n",
      'libs/read-store/src/read-store.port.ts': "import { open } from '../../event-store/src/sqlite-event-store.adapter';\nexport const port = open;\n",
      'libs/projections/src/leaky.projection.ts': "import { open } from '../../event-store/src/sqlite-event-store.adapter';\nexport const p = open;\n",
      'libs/pdf/src/render.ts': "import { leak } from '../../domain/src/nest-leak';\nexport const r = leak;\n",
      'libs/application/src/uses-nest.ts': "import { Module } from '@nestjs/common';\nexport const m = Module;\n",
      'libs/application/src/reaches-app.ts': "import { x } from '../../../apps/api/src/x';\nexport const y = x;\n",
      'apps/api/src/x.ts': 'export const x = 1;\n',
      'libs/pdf/src/index.ts': "export { r } from './render';\n",
      'libs/application/src/lays-out.ts': "import { r } from '../../pdf/src/render';\nexport const l = r;\n",
      'libs/application/src/parses.ts': "import { PDFDocument } from 'pdf-lib';\nexport const d = PDFDocument;\n",
      'libs/application/src/uses-pool.ts': "import { r } from '../../pdf/src';\nexport const u = r;\n",
      'libs/webhooks/src/a.ts': "import { b } from './b';\nexport const a = () => b;\n",
      'libs/webhooks/src/b.ts': "import { a } from './a';\nexport const b = () => a;\n",
    });

    const has = (rule: string, from: string) => violations.some((v) => v.rule === rule && v.from === from);
    expect(has('domain-is-pure', 'libs/domain/src/nest-leak.ts')).toBe(true);
    expect(has('domain-is-pure', 'libs/domain/src/io-leak.ts')).toBe(true);
    expect(has('ports-know-no-adapters', 'libs/read-store/src/read-store.port.ts')).toBe(true);
    expect(has('stores-import-domain-and-drivers-only', 'libs/read-store/src/read-store.port.ts')).toBe(true);
    expect(has('projections-see-domain-and-ports', 'libs/projections/src/leaky.projection.ts')).toBe(true);
    expect(has('backends-chosen-in-one-place', 'libs/projections/src/leaky.projection.ts')).toBe(true);
    expect(has('pure-libraries-stand-alone', 'libs/pdf/src/render.ts')).toBe(true);
    expect(has('libs-without-nest', 'libs/application/src/uses-nest.ts')).toBe(true);
    expect(has('libs-do-not-import-shells', 'libs/application/src/reaches-app.ts')).toBe(true);
    expect(has('no-circular', 'libs/webhooks/src/a.ts')).toBe(true);
    expect(has('pdf-work-through-the-pool', 'libs/application/src/lays-out.ts')).toBe(true);
    expect(has('pdf-work-through-the-pool', 'libs/application/src/parses.ts')).toBe(true);
    // (These fixtures name other libs by relative path for brevity; the rule libs-meet-through-
    // package-entries, which refuses that, has its own test below.)
    expect(violations.filter((v) => v.from === 'libs/application/src/uses-pool.ts' && v.rule !== 'libs-meet-through-package-entries')).toEqual([]);
    // The allowed imports stay quiet.
    const allowed = ['libs/domain/src/index.ts', 'libs/event-store/src/event-store.port.ts', 'libs/event-store/src/sqlite-event-store.adapter.ts', 'libs/projections/src/document.projection.ts'];
    expect(violations.filter((v) => allowed.includes(v.from) && v.rule !== 'libs-meet-through-package-entries')).toEqual([]);
  });

  it('lets only the command entry (and tests) import the command handler: one write path', () => {
    const handler = 'libs/application/src/commands/command-handler.ts';
    const violations = cruise({
      [handler]: 'export class GenericCommandHandler { execute(): void {} }\n',
      'libs/application/src/commands/command-context.ts': 'export interface CommandContext { actor: string }\n',
      'libs/application/src/commands/command-entry.ts': "import { GenericCommandHandler } from './command-handler';\nexport class CommandEntry { h = new GenericCommandHandler(); }\n",
      'libs/application/src/commands/command-handler.spec.ts': "import { GenericCommandHandler } from './command-handler';\nexport const h = new GenericCommandHandler();\n",
      // Allowed: naming the write side's types.
      'libs/application/src/names-types.reactor.ts': "import type { CommandContext } from './commands/command-context';\nexport type C = CommandContext;\n",
      // Forbidden: a reactor and a controller calling the handler around the entry.
      'libs/application/src/direct-caller.reactor.ts': "import { GenericCommandHandler } from './commands/command-handler';\nexport const run = () => new GenericCommandHandler().execute();\n",
      'apps/api/src/direct-caller.http.controller.ts': "import { GenericCommandHandler } from '../../../libs/application/src/commands/command-handler';\nexport const h = GenericCommandHandler;\n",
    }, ['libs', 'apps']);
    const intoHandler = violations.filter((v) => v.to === handler).map((v) => `${v.rule} ${v.from}`);
    expect(intoHandler).toEqual(['one-write-path apps/api/src/direct-caller.http.controller.ts', 'one-write-path libs/application/src/direct-caller.reactor.ts']);
    expect(violations.filter((v) => v.from === 'libs/application/src/names-types.reactor.ts')).toEqual([]);
  });

  it('keeps libs/pdf to rendering and the pool: table parsing with bulk send, loaded only by the pool; no key or CMS package in libs/pdf', () => {
    const parser = 'libs/application/src/bulk-send/parse-table.ts';
    const violations = cruise({
      'libs/pdf/src/main-thread-guard.ts': 'export const assertOffMainThread = (step: string) => step;\n',
      [parser]: "import { parse } from 'csv-parse/sync';\nimport { assertOffMainThread } from '../../../pdf/src/main-thread-guard';\nexport const parseTable = () => [parse, assertOffMainThread];\n",
      // Allowed: the pool's handler and the job types load the parser; its spec calls it.
      'libs/pdf/src/pool/parse-table.handler.ts': "import { parseTable } from '../../../application/src/bulk-send/parse-table';\nexport default parseTable;\n",
      'libs/pdf/src/pool/pdf-jobs.ts': "import type { parseTable } from '../../../application/src/bulk-send/parse-table';\nexport type P = typeof parseTable;\n",
      'libs/application/src/bulk-send/parse-table.spec.ts': "import { parseTable } from './parse-table';\nexport const t = parseTable;\n",
      // Forbidden: bulk send calling the parser on the API's thread, and libs/pdf holding table, CMS
      // or key code again.
      'libs/application/src/bulk-send/bulk-rows.ts': "import { parseTable } from './parse-table';\nexport const rows = parseTable;\n",
      'libs/pdf/src/csv.ts': "import { parse } from 'csv-parse/sync';\nexport const c = parse;\n",
      'libs/pdf/src/cms.ts': "import * as pkijs from 'pkijs';\nexport const c = pkijs;\n",
      'libs/pdf/src/testing/hsm.ts': "import * as forge from 'node-forge';\nexport const f = forge;\n",
    }, ['libs']);
    const seen = (rule: string) => violations.filter((v) => v.rule === rule).map((v) => v.from).sort();
    expect(seen('table-parsing-runs-in-the-pool')).toEqual(['libs/application/src/bulk-send/bulk-rows.ts']);
    expect(seen('pdf-holds-rendering-and-the-pool')).toEqual(['libs/pdf/src/cms.ts', 'libs/pdf/src/csv.ts', 'libs/pdf/src/testing/hsm.ts']);
    expect(violations.filter((v) => [parser, 'libs/pdf/src/pool/parse-table.handler.ts', 'libs/pdf/src/pool/pdf-jobs.ts', 'libs/application/src/bulk-send/parse-table.spec.ts'].includes(v.from))).toEqual([]);
  });

  it('lets libs meet through package entries, and only code a pool worker loads reach another lib by relative path', () => {
    const violations = cruise({
      'libs/event-store/src/hash-chain.ts': 'export const GENESIS_HASH = "0";\n',
      'libs/event-store/src/index.ts': "export { GENESIS_HASH } from './hash-chain';\n",
      // Allowed: a declared subpath entry, and a pool handler's relative path.
      'libs/verifier/src/by-entry.ts': "import { GENESIS_HASH } from '@dojang/event-store/hash-chain';\nexport const g = GENESIS_HASH;\n",
      'libs/pdf/src/pool/reads.handler.ts': "import { GENESIS_HASH } from '../../../event-store/src/hash-chain';\nexport default () => GENESIS_HASH;\n",
      // Forbidden: a relative path into another lib's src/.
      'libs/verifier/src/by-path.ts': "import { GENESIS_HASH } from '../../event-store/src/hash-chain';\nexport const g = GENESIS_HASH;\n",
      'libs/projections/src/by-path.ts': "import { GENESIS_HASH } from '../../event-store/src';\nexport const g = GENESIS_HASH;\n",
    }, ['libs']);
    const fixtures = ['libs/verifier/src/by-entry.ts', 'libs/pdf/src/pool/reads.handler.ts', 'libs/verifier/src/by-path.ts', 'libs/projections/src/by-path.ts'];
    const seen = violations.filter((v) => v.rule === 'libs-meet-through-package-entries' && fixtures.includes(v.from)).map((v) => v.from).sort();
    expect(seen).toEqual(['libs/projections/src/by-path.ts', 'libs/verifier/src/by-path.ts']);
  });
});

describe('ESLint type-aware rules (eslint.config.mjs)', () => {
  let dir: string;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-eslint-'));
    // A project of its own, so the type-aware rules build a program of two files, not the repo's.
    writeTree(dir, {
      'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, target: 'ES2022', lib: ['ES2022'], module: 'commonjs', types: [] }, include: ['**/*.ts'] }),
    });
  });

  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  function lint(files: Record<string, string>): Array<{ file: string; rule: string; line: number }> {
    writeTree(dir, files);
    const run = spawnSync(
      process.execPath,
      [path.join(ROOT, 'node_modules/eslint/bin/eslint.js'), '--config', path.join(ROOT, 'eslint.config.mjs'), '--format', 'json', ...Object.keys(files)],
      { cwd: dir, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    if (!run.stdout) throw new Error(`eslint produced no report: ${run.stderr}`);
    const results = JSON.parse(run.stdout) as Array<{ filePath: string; messages: Array<{ ruleId: string | null; line: number; message: string }> }>;
    return results.flatMap((r) => r.messages.map((m) => ({ file: path.basename(r.filePath), rule: m.ruleId ?? m.message, line: m.line })));
  }

  it('reports a floating promise, a promise handed to a void callback and a require(), and accepts the handled forms', () => {
    const problems = lint({
      'bad.ts': [
        'async function save(): Promise<void> {}',
        'export function forgets(): void {',
        '  save();', // line 3: floating
        '}',
        'export function hands(items: number[]): void {',
        '  items.forEach(async () => save());', // line 6: misused (forEach ignores it)
        '}',
        "export const fs = require('fs');", // line 8: untyped require
        '',
      ].join('\n'),
      'good.ts': [
        'async function save(): Promise<void> {}',
        'export async function awaits(): Promise<void> {',
        '  await save();',
        '}',
        'export function handles(): void {',
        '  save().catch(() => undefined);',
        '}',
        'export function markedFireAndForget(): void {',
        '  void save();',
        '}',
        '',
      ].join('\n'),
    });
    expect(problems).toEqual([
      { file: 'bad.ts', rule: '@typescript-eslint/no-floating-promises', line: 3 },
      { file: 'bad.ts', rule: '@typescript-eslint/no-misused-promises', line: 6 },
      { file: 'bad.ts', rule: '@typescript-eslint/no-require-imports', line: 8 },
    ]);
  });

  it('refuses an event appended straight to the store in production code, and leaves tests alone', () => {
    const writer = [
      'interface Store { append(stream: string, events: unknown[]): Promise<void> }',
      'export class Writer {',
      '  constructor(private readonly events: Store) {}',
      "  write(): Promise<void> { return this.events.append('document-1', []); }", // line 4
      '}',
      "export const direct = (events: Store) => events.append('document-1', []);", // line 6
      '',
    ].join('\n');
    const problems = lint({ 'libs/application/src/writer.reactor.ts': writer, 'libs/application/src/writer.reactor.spec.ts': writer });
    expect(problems).toEqual([
      { file: 'writer.reactor.ts', rule: 'no-restricted-syntax', line: 4 },
      { file: 'writer.reactor.ts', rule: 'no-restricted-syntax', line: 6 },
    ]);
  });
});
