import { spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { apiClient, ensureBuilt, ROOT, ServerProcess, startServer, tempDataDir } from '../support/built-server';
import { ShellBlock, shellBlocks } from '../support/markdown-shell-blocks';

/**
 * docs/API.md runs as written: its bash blocks, top to bottom, in one bash shell
 * (`set -euo pipefail`, so $KEY, $DOC, $TOKEN… carry from block to block), from the checkout root
 * as a reader runs them, against the compiled server started the way the page says (its own
 * DATA_DIR, the CLI beside it). Only the two values that name the reader's server change: the
 * page's `export DATA_DIR=./data` and `export API=http://localhost:3000/v1` lines point at this
 * test's server instead. curl is made strict through a curlrc (`fail-with-body`, `show-error`), so
 * an HTTP error fails its block as a reader would see it: the error body printed, nothing silent.
 */

const API_MD = path.join(ROOT, 'docs', 'API.md');
const BUILD_TIMEOUT = 6 * 60_000;

/**
 * Blocks the page marks <!-- not-run: … -->, by their first line. A new skipped block is a visible
 * change to this list, not a silent drop. The client's install goes into the reader's own project;
 * test/client/client-package.e2e-spec.ts packs and installs it in a temporary one.
 */
const EXPECTED_SKIPPED: string[] = [
  '# the field: {"participant_id":"…","type":"attachment","label":"신분증 사본","accept":["jpeg","png"],"max_bytes":5242880,"page":1,"x":10,"y":70,"width":30,"height":4}',
  '(cd libs/client && npm pack)          # → libs/client/dojang-client-0.1.0.tgz',
];

/** The page's lines naming the reader's server, and what they become here. */
function setupOverrides(dataDir: string, serverUrl: string): Array<[string, string]> {
  return [
    ['export DATA_DIR=./data', `export DATA_DIR=${shellQuote(dataDir)}`],
    ['export API=http://localhost:3000/v1', `export API=${shellQuote(serverUrl + '/v1')}`],
  ];
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

const MARK = '@@dojang-doc-block';

interface BlockOutput {
  stdout: string;
  stderr: string;
}

interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Output per block index; 0 is the prelude, `blocks.length + 1` the epilogue. */
  outputs: Map<number, BlockOutput>;
  /** Block indexes whose start marker was printed, in order. */
  started: number[];
}

/** Splits a stream on the markers the script prints before each block. */
function splitByMarker(text: string, into: Map<number, BlockOutput>, key: 'stdout' | 'stderr'): number[] {
  const order: number[] = [];
  let current = 0;
  for (const line of text.split('\n')) {
    const m = line.startsWith(MARK + ' ') ? Number(line.slice(MARK.length + 1)) : NaN;
    if (!Number.isNaN(m)) {
      current = m;
      order.push(m);
      continue;
    }
    const out = into.get(current) ?? { stdout: '', stderr: '' };
    out[key] += line + '\n';
    into.set(current, out);
  }
  return order;
}

function runInOneShell(script: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<RunResult & { raw: BlockOutput }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const raw = { stdout: '', stderr: '' };
    child.stdout.on('data', (c: Buffer) => (raw.stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (raw.stderr += c.toString('utf8')));
    // A hang guard only: the blocks are a few dozen requests.
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const outputs = new Map<number, BlockOutput>();
      const started = splitByMarker(raw.stdout, outputs, 'stdout');
      splitByMarker(raw.stderr, outputs, 'stderr');
      resolve({ code, signal, outputs, started, raw });
    });
  });
}

function tail(text: string, max = 4000): string {
  const t = text.trimEnd();
  return t.length > max ? '…' + t.slice(-max) : t;
}

function describeBlock(b: ShellBlock): string {
  return `block ${b.index} (docs/API.md:${b.line}, \`${b.firstLine}\`)`;
}

describe('docs/API.md block extraction', () => {
  it('takes every bash fence, indented ones dedented, and keeps marked ones out with their reason', () => {
    const md = [
      '# T',
      '```bash',
      'A=1',
      '```',
      '- item:',
      '',
      '  ```bash',
      '  echo "$A"',
      '  ```',
      '<!-- not-run: needs a public receiver -->',
      '```bash',
      'curl https://example.com/hook',
      '```',
      '```json',
      '{"curl": 1}',
      '```',
    ].join('\n');
    const blocks = shellBlocks(md);
    expect(blocks.map((b) => [b.index, b.line, b.code, b.skipReason])).toEqual([
      [1, 2, 'A=1\n', undefined],
      [2, 7, 'echo "$A"\n', undefined],
      [3, 11, 'curl https://example.com/hook\n', 'needs a public receiver'],
    ]);
  });

  it.each([
    ['a marker without a reason', '<!-- not-run: -->\n```bash\ntrue\n```\n', /needs a reason/],
    ['a misspelt marker', '<!-- not-run because -->\n```bash\ntrue\n```\n', /<!-- not-run: reason -->/],
    ['a fence that never closes', '```bash\ncurl x\n', /never closes/],
    ['a `sh` block', '```sh\ntrue\n```\n', /label shell blocks `bash`/],
    ['an unlabelled block with curl', '```\ncurl -s $API/x\n```\n', /label it `bash`/],
    ['a text block with npm run', '```text\nX=$(npm run cli -- a)\n```\n', /label it `bash`/],
  ])('refuses %s rather than dropping it', (_name, md, message) => {
    expect(() => shellBlocks(md)).toThrow(message);
  });
});

describe('docs/API.md runs as written', () => {
  let server: ServerProcess;
  let scratch: string;
  const markdown = fs.readFileSync(API_MD, 'utf8');
  const blocks = shellBlocks(markdown, 'docs/API.md');
  const runnable = blocks.filter((b) => b.skipReason === undefined);

  beforeAll(async () => {
    ensureBuilt();
    server = await startServer({ dataDir: tempDataDir('dojang-apidoc-') });
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-apidoc-work-'));
  }, BUILD_TIMEOUT);

  afterAll(async () => {
    await server?.stop();
    if (server) fs.rmSync(server.dataDir, { recursive: true, force: true });
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('counts its bash blocks: every one is extracted, and the skipped ones are exactly the listed ones', () => {
    const fences = markdown.split('\n').filter((l) => /^ *```bash\s*$/.test(l)).length;
    expect(blocks).toHaveLength(fences);
    expect(runnable.length).toBeGreaterThanOrEqual(10);
    expect(blocks.filter((b) => b.skipReason !== undefined).map((b) => b.firstLine)).toEqual(EXPECTED_SKIPPED);
  });

  it('every block succeeds in order in one shell, and the flow ends with the document completed', async () => {
    // The harness's strict curl: without it an HTTP error would print a body and exit 0.
    const curlHome = path.join(scratch, 'curl-home');
    fs.mkdirSync(curlHome);
    fs.writeFileSync(path.join(curlHome, '.curlrc'), 'fail-with-body\nshow-error\n');
    const tmp = path.join(scratch, 'tmp');
    fs.mkdirSync(tmp);
    const env: NodeJS.ProcessEnv = { ...process.env, CURL_HOME: curlHome, TMPDIR: tmp, LC_ALL: 'C.UTF-8' };
    delete env.DATA_DIR;
    delete env.API;

    const probe = await runInOneShell(`curl -s ${server.url}/v1/documents`, env, 120_000);
    expect({ code: probe.code, stderr: probe.raw.stderr }).toEqual({ code: 22, stderr: expect.stringMatching(/401/) });

    const overrides = setupOverrides(server.dataDir, server.url);
    const parts = ['set -euo pipefail', 'shopt -s inherit_errexit'];
    const replaced = new Map<string, number>();
    for (const b of runnable) {
      let code = b.code;
      for (const [from, to] of overrides) {
        const hits = code.split('\n').filter((l) => l.split('#')[0].trim() === from).length;
        if (hits === 0) continue;
        replaced.set(from, (replaced.get(from) ?? 0) + hits);
        code = code
          .split('\n')
          .map((l) => (l.split('#')[0].trim() === from ? to : l))
          .join('\n');
      }
      parts.push(`printf '\\n${MARK} ${b.index}\\n'; printf '\\n${MARK} ${b.index}\\n' >&2`, code);
    }
    // What the page left behind, for the checks below: the ids it made and where it downloaded.
    const end = blocks.length + 1;
    parts.push(`printf '\\n${MARK} ${end}\\n'`, `jq -nc --arg doc "$DOC" --arg key "$KEY" --arg org "$ORG_ID" --arg work "$WORK" '{$doc,$key,$org,$work}'`);
    // Each line naming the reader's server appears once, so the whole page ran against this one.
    expect(Object.fromEntries(replaced)).toEqual(Object.fromEntries(overrides.map(([from]) => [from, 1])));

    const downloads = ['seal.png', 'signed.pdf'];
    const inCheckout = () => downloads.filter((f) => fs.existsSync(path.join(ROOT, f)));
    const before = inCheckout();
    const run = await runInOneShell(parts.join('\n'), env, 120_000);

    const ran = run.started.filter((i) => i !== end);
    if (run.code !== 0) {
      const failed = blocks.find((b) => b.index === ran[ran.length - 1]);
      const out = (failed && run.outputs.get(failed.index)) ?? { stdout: run.raw.stdout, stderr: run.raw.stderr };
      throw new Error(
        `${failed ? describeBlock(failed) : 'the prelude'} failed (exit ${run.code ?? run.signal}).\n` +
          `--- stderr ---\n${tail(out.stderr)}\n--- stdout ---\n${tail(out.stdout)}`,
      );
    }
    expect(ran).toEqual(runnable.map((b) => b.index));
    for (const b of runnable) {
      // No example shows an error response, so none printed one.
      const printed = run.outputs.get(b.index)?.stdout ?? '';
      if (/"error"\s*:\s*\{/.test(printed)) throw new Error(`${describeBlock(b)} printed an error:\n${tail(printed)}`);
    }

    const state = JSON.parse((run.outputs.get(end)?.stdout ?? '').trim()) as { doc: string; key: string; org: string; work: string };
    // Downloads went to the page's scratch directory, under the TMPDIR this test gave, not the checkout.
    expect(path.dirname(state.work)).toBe(tmp);
    expect(fs.readFileSync(path.join(state.work, 'seal.png')).subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(fs.readFileSync(path.join(state.work, 'signed.pdf')).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(inCheckout()).toEqual(before);

    const call = apiClient(`${server.url}/v1`, state.key);
    const doc = await call('GET', `/documents/${state.doc}`);
    expect(doc.status).toBe(200);
    expect(doc.body).toMatchObject({ status: 'completed', participants: [{ status: 'signed' }] });
    const events = await call<{ data: Array<{ type: string }> }>('GET', `/events?document_id=${state.doc}`);
    expect(events.body.data.map((e) => e.type)).toEqual(expect.arrayContaining(['document.sent', 'participant.signed', 'document.completed']));
    // Section 5's operator command reached the same DATA_DIR as the server.
    const org = await call('GET', '/organization');
    expect(org.body).toMatchObject({ id: state.org, usage: { credit_balance: 1.5 } });
  }, 180_000);
});
