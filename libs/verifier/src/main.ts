import { readFile } from 'node:fs/promises';
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

/** `dojang-verify bundle.zip`: 0 all checks pass, 1 any fails, 2 the input cannot be read. */
export async function main(argv: string[], out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Promise<number> {
  const path = argv.find((a) => !a.startsWith('-'));
  if (!path || argv.includes('--help') || argv.includes('-h')) {
    err.write('사용법 / usage: dojang-verify <bundle.zip>\n');
    return EXIT.unreadable;
  }
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    err.write(`읽을 수 없습니다 / cannot read ${path}: ${(error as Error).message}\n`);
    return EXIT.unreadable;
  }
  try {
    const verdict = verifyBundle(bytes);
    out.write(formatVerdict(verdict));
    return verdict.ok ? EXIT.ok : EXIT.failed;
  } catch (error) {
    if (error instanceof UnreadableBundleError) {
      err.write(`증거 번들을 읽을 수 없습니다 / unreadable evidence bundle: ${error.message}\n`);
      return EXIT.unreadable;
    }
    throw error;
  }
}
