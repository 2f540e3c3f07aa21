import { readFile } from 'node:fs/promises';
import { readTrustAnchors } from './pades';
import { BundleVerdict, UnreadableBundleError, verifyBundle } from './verify-bundle';

export const EXIT = { ok: 0, failed: 1, unreadable: 2 } as const;

const MARK = { pass: '✓', fail: '✗', skip: '–' } as const;

/** The verdict as an auditor reads it: each check once in Korean, once in English. */
export function formatVerdict(v: BundleVerdict): string {
  const deliveries = v.deliveries === null ? '' : `, ${v.deliveries} deliveries / 전달 기록 ${v.deliveries}건`;
  const lines = [`Dojang evidence bundle / 전자서명 증거 번들: document ${v.document_id ?? '?'} (${v.events} events / 이벤트 ${v.events}개${deliveries})`];
  if (!v.completed) lines.push('  ! 완료되지 않은 문서입니다: 번들에는 지금까지 존재하는 것만 들어 있습니다.', '  ! Document not completed: the bundle holds what exists so far.');
  for (const c of v.checks) {
    lines.push(`  ${MARK[c.status]} ${c.ko}`, `    ${c.en}`);
  }
  lines.push(
    v.ok
      ? '결과: 모든 검사를 통과했습니다. / Verdict: every check passed.'
      : `결과: 검증 실패 (${v.checks.filter((c) => c.status === 'fail').length}개 항목). / Verdict: verification FAILED (${v.checks.filter((c) => c.status === 'fail').map((c) => c.id).join(', ')}).`,
  );
  return `${lines.join('\n')}\n`;
}

const USAGE = '사용법 / usage: dojang-verify [--trust anchors.pem]... <bundle.zip>\n';

/** `--trust FILE` (repeatable) and the one bundle path; null when the arguments make no sense. */
function parseArguments(argv: string[]): { path: string; trust: string[] } | null {
  const trust: string[] = [];
  const paths: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--trust') {
      if (!argv[i + 1]) return null;
      trust.push(argv[++i]);
    } else if (a.startsWith('--trust=')) trust.push(a.slice('--trust='.length));
    else if (a.startsWith('-')) return null;
    else paths.push(a);
  }
  return paths.length === 1 ? { path: paths[0], trust } : null;
}

/** `dojang-verify bundle.zip`: 0 all checks pass, 1 any fails, 2 the input cannot be read. */
export async function main(argv: string[], out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Promise<number> {
  const args = argv.includes('--help') || argv.includes('-h') ? null : parseArguments(argv);
  if (!args) {
    err.write(USAGE);
    return EXIT.unreadable;
  }
  const { path } = args;
  const trustAnchors: Buffer[] = [];
  for (const file of args.trust) {
    try {
      trustAnchors.push(...readTrustAnchors(await readFile(file)));
    } catch (error) {
      err.write(`신뢰 앵커를 읽을 수 없습니다 / cannot read trust anchors ${file}: ${oneLine(error)}\n`);
      return EXIT.unreadable;
    }
  }
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    err.write(`읽을 수 없습니다 / cannot read ${path}: ${oneLine(error)}\n`);
    return EXIT.unreadable;
  }
  try {
    const verdict = verifyBundle(bytes, { trustAnchors });
    out.write(formatVerdict(verdict));
    return verdict.ok ? EXIT.ok : EXIT.failed;
  } catch (error) {
    // Any input that breaks a reader is unreadable input: one line, never a stack trace.
    err.write(`증거 번들을 읽을 수 없습니다 / unreadable evidence bundle: ${oneLine(error)}\n`);
    return EXIT.unreadable;
  }
}

/** An error's message on one line (a code such as ENOENT spelled out by Node's own message). */
function oneLine(error: unknown): string {
  const message = typeof (error as { message?: unknown } | null)?.message === 'string' ? (error as { message: string }).message : String(error);
  return message.replace(/\s*\n\s*/g, ' ').trim();
}
