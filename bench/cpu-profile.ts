/**
 * Reads V8 CPU profiles (`node --cpu-prof`) and tells where the time went: self time by function,
 * by package or project library, and inclusive time of the project's own functions.
 *
 *   npx ts-node --transpile-only bench/cpu-profile.ts <dir-or-file.cpuprofile> [more …]
 */
import * as fs from 'fs';
import * as path from 'path';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame's code lives: a package, a project library, node internals, or a V8 pseudo-frame. */
export function category(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node internals';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return `npm ${rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  const m = /\/(apps|libs|bench|test)\/([^/]+)\//.exec(url);
  if (m) return `${m[1]}/${m[2]}`;
  return path.basename(url);
}

function frameKey(f: CallFrame): string {
  const where = f.url ? `${f.url.replace(/^file:\/\//, '').replace(/^.*?\/(node_modules|dist|apps|libs)\//, '$1/')}:${f.lineNumber + 1}` : '';
  return `${f.functionName || '(anonymous)'} ${where}`.trim();
}

export interface ProfileSummary {
  totalMs: number;
  idleMs: number;
  /** Samples inside require() (start-up), left out of the tables. */
  loadingMs: number;
  bySelf: Array<[string, number]>;
  byCategory: Array<[string, number]>;
  projectInclusive: Array<[string, number]>;
}

export function summarize(profiles: CpuProfile[]): ProfileSummary {
  const self = new Map<string, number>();
  const cats = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  let idle = 0;
  let loading = 0;
  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
  for (const p of profiles) {
    const byId = new Map<number, ProfileNode>(p.nodes.map((n) => [n.id, n]));
    const parent = new Map<number, number>();
    for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    for (let i = 0; i < p.samples.length; i++) {
      const ms = (p.timeDeltas[i] ?? 0) / 1000;
      const node = byId.get(p.samples[i]);
      if (!node) continue;
      total += ms;
      if (node.callFrame.functionName === '(idle)') {
        idle += ms;
        continue;
      }
      const stack: CallFrame[] = [];
      for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) stack.push(byId.get(id)!.callFrame);
      if (stack.some((f) => f.url.startsWith('node:internal/modules/'))) {
        loading += ms;
        continue;
      }
      add(self, frameKey(node.callFrame), ms);
      add(cats, category(node.callFrame.url, node.callFrame.functionName), ms);
      // Inclusive time of the project's own code: each function once per sample.
      const seen = new Set<string>();
      for (const f of stack) {
        if (!/\/(apps|libs)\//.test(f.url) || /node_modules/.test(f.url)) continue;
        const k = frameKey(f);
        if (!seen.has(k)) {
          seen.add(k);
          add(inclusive, k, ms);
        }
      }
    }
  }
  const top = (m: Map<string, number>, n: number) => [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, n);
  return { totalMs: total, idleMs: idle, loadingMs: loading, bySelf: top(self, 30), byCategory: top(cats, 20), projectInclusive: top(inclusive, 30) };
}

function loadAll(inputs: string[]): CpuProfile[] {
  const files = inputs.flatMap((p) =>
    fs.statSync(p).isDirectory()
      ? fs
          .readdirSync(p)
          .filter((f) => f.endsWith('.cpuprofile'))
          .map((f) => path.join(p, f))
      : [p],
  );
  return files.map((f) => JSON.parse(fs.readFileSync(f, 'utf8')) as CpuProfile);
}

export function formatSummary(s: ProfileSummary): string {
  const busy = s.totalMs - s.idleMs - s.loadingMs;
  const pct = (ms: number) => `${((ms / busy) * 100).toFixed(1)}%`;
  const table = (rows: Array<[string, number]>) => rows.map(([k, ms]) => `  ${pct(ms).padStart(6)}  ${ms.toFixed(0).padStart(7)} ms  ${k}`).join('\n');
  return [
    `profiled ${(s.totalMs / 1000).toFixed(1)} s: idle ${(s.idleMs / 1000).toFixed(1)} s, module loading ${(s.loadingMs / 1000).toFixed(1)} s (left out), ` +
      `busy ${(busy / 1000).toFixed(1)} s; percentages of busy time (main thread, wall clock: a blocking fsync counts)`,
    'self time by package / library:',
    table(s.byCategory),
    'self time by function:',
    table(s.bySelf),
    'inclusive time, project code (apps/, libs/):',
    table(s.projectInclusive),
  ].join('\n');
}

export function summarizeProfiles(...inputs: string[]): string {
  const profiles = loadAll(inputs);
  if (profiles.length === 0) return `no .cpuprofile files in ${inputs.join(', ')}`;
  return formatSummary(summarize(profiles));
}

if (require.main === module) {
  const args = process.argv.slice(2);
  if (args.length === 0) {
    console.error('usage: cpu-profile.ts <dir-or-file.cpuprofile> [...]');
    process.exit(64);
  }
  console.log(summarizeProfiles(...args));
}
