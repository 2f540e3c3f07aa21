import { BenchScenario } from '../harness';

/** A small contract as an integrator would send it: a few hundred bytes of HTML, Korean text. */
export const SMALL_DOCUMENT = JSON.stringify({
  title: '근로계약서 (벤치마크)',
  content:
    '<h1>근로계약서</h1><p><b>주식회사 도장</b>(이하 "갑")과 <b>홍길동</b>(이하 "을")은 다음과 같이 근로계약을 체결한다.</p>' +
    '<ol><li>근로 장소: 서울특별시 중구 세종대로 110</li><li>근로 시간: 09:00부터 18:00까지</li></ol>',
  metadata: { source: 'bench' },
});

export const SEEDED_DOCUMENTS = 1000;

/**
 * The write path (create a draft: validate, fold an empty stream, decide, append with fsync,
 * wait for the projections, present) and the list read, each on its own fresh server.
 */
export const documentsApiScenario: BenchScenario = {
  id: 'documents',
  title: 'Documents API',
  async run(ctx) {
    const http = [];

    const writeServer = await ctx.startDojang('post-documents');
    try {
      const org = await ctx.createOrg(writeServer.dataDir);
      http.push(
        await ctx.measure({
          name: 'POST /v1/documents (small HTML)',
          target: writeServer,
          method: 'POST',
          path: '/v1/documents',
          headers: { authorization: `Bearer ${org.test}` },
          body: SMALL_DOCUMENT,
          goal: { minReqPerSec: 1000, maxP99Ms: 50 },
        }),
      );
    } finally {
      await ctx.stop(writeServer);
    }

    const readServer = await ctx.startDojang('list-documents');
    try {
      const org = await ctx.createOrg(readServer.dataDir);
      const auth = { authorization: `Bearer ${org.test}` };
      ctx.log(`seeding ${SEEDED_DOCUMENTS} documents`);
      await ctx.fire({ target: readServer, method: 'POST', path: '/v1/documents', headers: auth, body: SMALL_DOCUMENT, amount: SEEDED_DOCUMENTS });
      http.push(
        await ctx.measure({
          name: `GET /v1/documents (20 of ${SEEDED_DOCUMENTS})`,
          target: readServer,
          method: 'GET',
          path: '/v1/documents',
          headers: auth,
        }),
      );
    } finally {
      await ctx.stop(readServer);
    }

    return { http };
  },
};
