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
