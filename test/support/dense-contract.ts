/**
 * A three-page 근로계약서 body whose clauses differ line to line, as a real contract's do: one
 * sentence repeated 60 times let deflate copy each line from the one above whenever a line fit in
 * its 32 KB window, so the page images' sizes jumped 10-fold between widths (13 KB at 720 px,
 * 127 KB at 960 px). Used by the first-view weight test and the Lighthouse benchmark, so the
 * budget and the benchmark weigh the same pages.
 */
export function denseContractHtml(): string {
  const subjects = ['갑', '을', '사용자', '근로자', '회사', '직원', '양 당사자', '위탁자', '수탁자', '대표이사', '관리자'];
  const duties = ['근로시간과 휴게시간을', '임금의 구성항목과 계산방법을', '연차유급휴가의 부여를', '업무상 비밀의 유지를', '사회보험의 적용을', '계약기간의 갱신을', '취업규칙의 변경을', '안전보건 교육을', '퇴직금의 지급을', '손해배상의 범위를', '근무장소의 변경을', '수습기간의 평가를', '개인정보의 처리를'];
  const rules = ['근로기준법에 따라 정한다', '서면으로 합의하여 정한다', '매월 25일까지 통지한다', '관계 법령을 준수하여 이행한다', '취업규칙에 우선하여 적용한다', '30일 전에 상대방에게 알린다', '노사협의회의 의견을 들어 정한다'];
  return Array.from(
    { length: 60 },
    (_, i) =>
      `<p>제${i + 1}조 ${subjects[i % subjects.length]}은(는) ${duties[(i * 5) % duties.length]} ${rules[(i * 3) % rules.length]}. 제${((i * 7) % 60) + 1}항의 예외는 ${subjects[(i * 4 + 3) % subjects.length]}과(와) ${i + 2}일 이내에 협의한다.</p>`,
  ).join('');
}

/** The 17 fields the contract puts on page 1 for its one signer: the session carries every one. */
export function denseContractFields(participantId: string): object[] {
  const at = (type: string, label: string | undefined, x: number, y: number, width: number, height: number) => ({ participant_id: participantId, type, ...(label ? { label } : {}), page: 1, x, y, width, height });
  return [
    ...['성명', '주소', '연락처', '부서', '직위', '계좌번호', '비상연락처', '특이사항'].map((label, i) => at('text', label, 10, 20 + i * 6, 35, 3)),
    ...['월 기본급', '식대', '교통비'].map((label, i) => at('number', label, 55, 20 + i * 6, 30, 3)),
    ...['근무 시작일', '수습 종료일'].map((label, i) => at('date', label, 55, 40 + i * 6, 30, 3)),
    ...['개인정보 수집·이용 동의', '취업규칙 확인'].map((label, i) => at('checkbox', label, 55, 55 + i * 5, 3, 2)),
    at('initials', '이니셜', 55, 70, 10, 4),
    at('signature', undefined, 55, 85, 30, 8),
  ];
}
