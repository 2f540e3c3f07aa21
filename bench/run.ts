/**
 * `npm run bench`: builds, then runs every scenario in bench/scenarios against real processes on
 * loopback and writes the generated section of docs/BENCHMARKS.md.
 *
 *   npm run bench                                    all scenarios, writes docs/BENCHMARKS.md
 *   npm run bench -- --only documents --no-write     one scenario, report on stdout only
 *   npm run bench -- --cpu-prof                      also profile the Dojang servers (V8 .cpuprofile)
 *   npx ts-node --transpile-only -r tsconfig-paths/register bench/run.ts   from source
 *
 * Options (or env): --duration N (BENCH_DURATION, seconds, default 10), --warmup N (BENCH_WARMUP,
 * default 3), --connections N (BENCH_CONNECTIONS, default 32), --timeout N (BENCH_TIMEOUT, whole
 * run in seconds, default 900). The docs are rewritten only when every scenario ran and succeeded.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { summarizeProfiles } from './cpu-profile';
import { BenchContext, BenchRow, ensureBuilt, HttpResult, machineDescription, ROOT, RUNNING_FROM_SOURCE, ScenarioReport } from './harness';
import { SCENARIOS } from './scenarios';

const DOC = path.join(ROOT, 'docs', 'BENCHMARKS.md');
const START = '<!-- bench:generated:start (npm run bench rewrites this section) -->';
const END = '<!-- bench:generated:end -->';

function parseArgs(argv: string[]) {
  const flags: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) throw new Error(`unexpected argument ${a}`);
    const [k, inline] = a.slice(2).split('=', 2);
    if (inline !== undefined) flags[k] = inline;
    else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) flags[k] = argv[++i];
    else flags[k] = true;
  }
  const num = (flag: string, env: string, fallback: number) => {
    const raw = typeof flags[flag] === 'string' ? flags[flag] : process.env[env];
    const n = Number(raw);
    return raw !== undefined && raw !== '' && Number.isFinite(n) && n >= 0 ? n : fallback;
  };
  const only = typeof flags.only === 'string' ? flags.only.split(',').map((s) => s.trim()) : null;
  const unknown = (only ?? []).filter((id) => !SCENARIOS.some((s) => s.id === id));
  if (unknown.length) throw new Error(`unknown scenario(s) ${unknown.join(', ')}; known: ${SCENARIOS.map((s) => s.id).join(', ')}`);
  return {
    only,
    write: !flags['no-write'],
    cpuProf: Boolean(flags['cpu-prof']),
    durationSec: num('duration', 'BENCH_DURATION', 10),
    warmupSec: num('warmup', 'BENCH_WARMUP', 3),
    connections: num('connections', 'BENCH_CONNECTIONS', 32),
    timeoutSec: num('timeout', 'BENCH_TIMEOUT', 900),
  };
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

function httpTable(results: HttpResult[]): string[] {
  const baseline = results.find((r) => r.baseline);
  const lines = [
    '| scenario | req/s | p50 ms | p90 ms | p99 ms | max ms | errors | non-2xx | req/s vs bare | server CPU ms/req | server CPU | client CPU | other CPU |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    const ratio = baseline ? (r.baseline ? '1 (baseline)' : `${(r.reqPerSec / baseline.reqPerSec).toFixed(3)}× (1/${(baseline.reqPerSec / r.reqPerSec).toFixed(1)})`) : 'n/a';
    lines.push(
      `| ${r.name} | ${fmt(r.reqPerSec)} | ${r.p50Ms} | ${r.p90Ms} | ${r.p99Ms} | ${r.maxMs} | ${r.errors} | ${r.non2xx} | ${ratio} | ` +
        `${r.serverCpuMsPerRequest === null ? 'n/a' : r.serverCpuMsPerRequest.toFixed(3)} | ` +
        `${r.serverCpuCores === null ? 'n/a' : r.serverCpuCores.toFixed(2)} | ${r.clientCpuCores.toFixed(2)} | ` +
        `${r.otherCpuCores === null ? 'n/a' : r.otherCpuCores.toFixed(2)} |`,
    );
  }
  return lines;
}

function goalLines(results: HttpResult[]): string[] {
  return results
    .filter((r) => r.goal)
    .map((r) => {
      const g = r.goal!;
      const misses: string[] = [];
      if (g.minReqPerSec !== undefined && r.reqPerSec < g.minReqPerSec) misses.push(`${fmt(r.reqPerSec)} req/s < ${fmt(g.minReqPerSec)}`);
      if (g.maxP99Ms !== undefined && r.p99Ms > g.maxP99Ms) misses.push(`p99 ${r.p99Ms} ms > ${g.maxP99Ms} ms`);
      if (r.errors || r.non2xx) misses.push(`${r.errors} errors, ${r.non2xx} non-2xx`);
      const want = [g.minReqPerSec !== undefined ? `≥ ${fmt(g.minReqPerSec)} req/s` : '', g.maxP99Ms !== undefined ? `p99 ≤ ${g.maxP99Ms} ms` : '']
        .filter(Boolean)
        .join(' with ');
      return misses.length
        ? `- **Goal MISSED** — ${r.name}: ${want} at ${r.connections} connections; measured ${misses.join(', ')}.`
        : `- **Goal met** — ${r.name}: ${want} at ${r.connections} connections; measured ${fmt(r.reqPerSec)} req/s, p99 ${r.p99Ms} ms.`;
    });
}

function rowsTable(rows: BenchRow[]): string[] {
  return ['| measure | value | unit |', '|---|---:|---|', ...rows.map((r) => `| ${r.name} | ${r.value} | ${r.unit} |`)];
}

function render(
  reports: Array<{ id: string; title: string; report: ScenarioReport }>,
  opts: ReturnType<typeof parseArgs>,
  started: Date,
  load: { start: number; end: number },
): string {
  const http = reports.flatMap((r) => r.report.http ?? []);
  const out: string[] = [
    START,
    '',
    `Generated by \`npm run bench\` on ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC.`,
    `Machine: ${machineDescription()}. Load average (1 min) ${load.start.toFixed(2)} at start, ${load.end.toFixed(2)} at the end ` +
      '(anything above ~1 means other processes competed for the 2 cores).',
    '',
    `Load: autocannon ${opts.connections} connections, ${opts.warmupSec} s warm-up (discarded) then ${opts.durationSec} s measured per scenario, ` +
      'loopback only; autocannon runs in the bench process on the same machine as the server. Each Dojang scenario runs the ' +
      'compiled server (`node -r ./scripts/register-paths.js dist/apps/api/src/main.js`) on a fresh DATA_DIR ' +
      '(embedded SQLite in WAL mode; an append is acknowledged only after an fdatasync of the event log WAL, shared by the appends waiting for it) with `RATE_LIMIT_PER_MINUTE=100000000` (every request is still counted in the shared rate-limit window; none is refused). ' +
      '"Server CPU ms/req" is the server process\'s CPU time divided by the requests it completed: the cost of one ' +
      'request (1,000 req/s on the one core a Node process uses needs it below 1 ms; it grows when other processes ' +
      'share the cores). ' +
      'The other CPU columns are cores busy over the measured window (1.00 = one core): the server process, the bench process ' +
      '(autocannon), and everything else on the machine (noise from other work; the machine has 2 cores in all).',
    '',
  ];
  if (http.length) {
    out.push('### HTTP', '', ...httpTable(http), '');
    const goals = goalLines(http);
    if (goals.length) out.push(...goals, '');
    const codes = http.filter((r) => Object.keys(r.statusCodes).some((c) => !c.startsWith('2')));
    for (const r of codes) out.push(`- ${r.name}: status codes ${JSON.stringify(r.statusCodes)}`);
    if (codes.length) out.push('');
  }
  for (const { title, report } of reports) {
    if (report.rows?.length && !report.markdown) out.push(`### ${title}`, '', ...rowsTable(report.rows), '');
    if (report.markdown) out.push(report.markdown.replace(/^#{1,3} /gm, '### '), '');
    for (const note of report.notes ?? []) out.push(`- ${title}: ${note}`);
    if (report.notes?.length) out.push('');
  }
  out.push(END);
  return out.join('\n');
}

const DEFAULT_DOC = `# Benchmarks

Run \`npm run bench\` (builds first). It starts real server processes on loopback, drives them with
autocannon, and rewrites the generated section below; everything else on this page is kept.

**Goal:** \`POST /v1/documents\` ≥ 1,000 req/s with p99 ≤ 50 ms at 32 connections, on the embedded
store (SQLite, acknowledged only after fsync), on a 2-core machine.

${START}
${END}
`;

function writeDoc(section: string): void {
  const current = fs.existsSync(DOC) ? fs.readFileSync(DOC, 'utf8') : DEFAULT_DOC;
  const start = current.indexOf(START);
  const end = current.indexOf(END);
  const next =
    start >= 0 && end > start
      ? current.slice(0, start) + section + current.slice(end + END.length)
      : `${current.trimEnd()}\n\n${section}\n`;
  fs.writeFileSync(DOC, next);
}

async function main(): Promise<number> {
  const opts = parseArgs(process.argv.slice(2));
  const started = new Date();
  const loadStart = os.loadavg()[0];
  const cpuProfDir = opts.cpuProf ? fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-cpuprof-')) : null;
  const ctx = new BenchContext({
    connections: opts.connections,
    durationSec: opts.durationSec,
    warmupSec: opts.warmupSec,
    cpuProfDir,
    deadline: Date.now() + opts.timeoutSec * 1000,
  });
  const watchdog = setTimeout(() => {
    process.stderr.write(`[bench] time budget of ${opts.timeoutSec}s exceeded; stopping\n`);
    ctx.killAllSync();
    process.exit(2);
  }, opts.timeoutSec * 1000);
  watchdog.unref();
  const interrupt = () => {
    ctx.killAllSync();
    process.exit(130);
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);

  // `npm run bench` has just built; from source, the server still has to be compiled.
  if (RUNNING_FROM_SOURCE) {
    ctx.log('building dist/ for the server processes');
    ensureBuilt();
  }

  const selected = SCENARIOS.filter((s) => !opts.only || opts.only.includes(s.id));
  const reports: Array<{ id: string; title: string; report: ScenarioReport }> = [];
  const failures: string[] = [];
  try {
    for (const scenario of selected) {
      ctx.log(`== ${scenario.title}`);
      try {
        reports.push({ id: scenario.id, title: scenario.title, report: await scenario.run(ctx) });
      } catch (err) {
        failures.push(`${scenario.id}: ${(err as Error).stack ?? err}`);
        ctx.log(`scenario ${scenario.id} failed: ${(err as Error).message}`);
      }
    }
  } finally {
    await ctx.cleanup();
    clearTimeout(watchdog);
  }

  const section = render(reports, opts, started, { start: loadStart, end: os.loadavg()[0] });
  process.stdout.write(`${section}\n`);
  if (cpuProfDir) {
    for (const file of fs.readdirSync(cpuProfDir).filter((f) => f.endsWith('.cpuprofile'))) {
      process.stdout.write(`\n== CPU profile ${path.join(cpuProfDir, file)}\n${summarizeProfiles(path.join(cpuProfDir, file))}\n`);
    }
  }
  if (failures.length) {
    process.stderr.write(`\n${failures.length} scenario(s) failed; docs/BENCHMARKS.md left as it was.\n${failures.join('\n')}\n`);
    return 1;
  }
  if (opts.write && !opts.only) {
    writeDoc(section);
    ctx.log(`wrote ${path.relative(ROOT, DOC)}`);
  } else {
    ctx.log('docs/BENCHMARKS.md not written (--only or --no-write)');
  }
  return 0;
}

main()
  .then((code) => process.exit(code))
  .catch((err) => {
    console.error(err);
    process.exit(1);
  });
