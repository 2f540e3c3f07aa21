/**
 * Seeds drafts straight through the command handler (no HTTP): what the rebuild and memory
 * benchmarks need in quantity. Each document is one DocumentCreated, plus `updates` more events.
 */
import { randomUUID } from 'crypto';
import { Infrastructure, putBody } from '@dojang/application';
import { documentDecider, documentStreamId } from '@dojang/domain';

export const SEED_CONTENT =
  '<h1>근로계약서</h1><p><b>주식회사 도장</b>(이하 "갑")과 <b>홍길동</b>(이하 "을")은 다음과 같이 근로계약을 체결한다.</p>' +
  '<ol><li>근로 장소: 서울특별시 중구 세종대로 110</li><li>근로 시간: 09:00부터 18:00까지</li></ol>';

export async function seedDocuments(
  infra: Infrastructure,
  options: { organizationId: string; documents: number; updates?: number; concurrency?: number; onProgress?: (done: number) => void },
): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  const context = { actor: 'bench', organization_id: options.organizationId, livemode: false };
  // Bodies live in the blob store; every seeded document shares this one (content-addressed).
  const seedBody = await putBody(infra.blobs, SEED_CONTENT);
  const worker = async () => {
    for (let i = next++; i < options.documents; i = next++) {
      const id = randomUUID();
      ids.push(id);
      const now = () => new Date().toISOString();
      await infra.commands.decide(
        documentDecider,
        documentStreamId(id),
        {
          type: 'CreateDocument',
          now: now(),
          document_id: id,
          organization_id: options.organizationId,
          livemode: false,
          title: `근로계약서 ${i}`,
          content_blob: seedBody,
          content_format: 'html',
          file: null,
          author_name: '주식회사 도장',
          metadata: { seq: String(i) },
          from_template: null,
        },
        context,
        now,
      );
      for (let u = 0; u < (options.updates ?? 0); u++) {
        await infra.commands.decide(documentDecider, documentStreamId(id), { type: 'UpdateDocument', now: now(), title: `근로계약서 ${i} (개정 ${u + 1})` }, context, now);
      }
      if (i % 1000 === 0) options.onProgress?.(i);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 64 }, worker));
  return ids;
}
