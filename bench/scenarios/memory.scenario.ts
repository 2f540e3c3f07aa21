import * as fs from 'fs';
import { AdminService, loadConfig, openInfrastructure } from '@dojang/application';
import { startServer, tempDataDir } from '../../test/support/built-server';
import { BenchRow, BenchScenario } from '../harness';
import { seedDocuments } from '../seed-documents';
import { rssMb } from './isolation.scenario';

const DOCUMENTS = Number(process.env.MEMORY_DOCUMENTS ?? 100_000);

/**
 * The API's resident memory with 100,000 documents in the embedded store: seeded through the
 * command handler, projected, then a fresh server started on that data directory, asked to list,
 * get and create, and loaded with lists for a few seconds.
 */
export const memoryScenario: BenchScenario = {
  id: 'memory',
  title: `Memory with ${DOCUMENTS.toLocaleString('en')} documents`,
  async run(ctx) {
    ctx.ensureTime(300_000, 'memory');
    const dataDir = tempDataDir('dojang-bench-memory-');
    try {
      const infra = await openInfrastructure({ ...loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), logLevel: 'silent' as const });
      await infra.runner.init();
      const { organization, keys } = await new AdminService(infra).createOrganization({ name: '벤치 주식회사' });
      ctx.log(`memory: seeding ${DOCUMENTS} documents`);
      const ids = await seedDocuments(infra, { organizationId: organization.id, documents: DOCUMENTS, onProgress: (n) => n % 20_000 === 0 && ctx.log(`memory: ${n} seeded`) });
      await infra.runner.catchUp();
      await infra.close();

      const server = await startServer({ dataDir, env: { RATE_LIMIT_PER_MINUTE: '100000000', LOG_LEVEL: 'silent' }, readyTimeoutMs: 120_000 });
      const rows: BenchRow[] = [];
      try {
        const headers = { Authorization: `Bearer ${keys.test}`, 'Content-Type': 'application/json' };
        const get = (path: string) => fetch(server.url + path, { headers });
        rows.push({ name: 'API RSS after start', value: rssMb(server.child.pid) ?? -1, unit: 'MB' });
        const list = await get('/v1/documents?limit=100');
        const listed = ((await list.json()) as { data: unknown[] }).data.length;
        const one = await get(`/v1/documents/${ids[ids.length >> 1]}`);
        const created = await fetch(server.url + '/v1/documents', { method: 'POST', headers, body: JSON.stringify({ title: '새 계약서', content: '<p>본문</p>' }) });
        if (list.status !== 200 || listed !== 100 || one.status !== 200 || created.status !== 201) {
          throw new Error(`with ${DOCUMENTS} documents: list ${list.status} (${listed}), get ${one.status}, create ${created.status}`);
        }
        rows.push({ name: 'API RSS after list, get and create', value: rssMb(server.child.pid) ?? -1, unit: 'MB' });
        // A few seconds of paging through the list, 16 at a time.
        const until = Date.now() + 5_000;
        let pages = 0;
        await Promise.all(
          Array.from({ length: 16 }, async () => {
            while (Date.now() < until) {
              const res = await get('/v1/documents?limit=100');
              await res.arrayBuffer();
              pages++;
            }
          }),
        );
        rows.push({ name: 'list pages served in 5 s (16 concurrent)', value: pages, unit: 'pages' });
        rows.push({ name: 'API RSS after 5 s of lists', value: rssMb(server.child.pid) ?? -1, unit: 'MB' });
      } finally {
        await server.stop(15_000);
      }
      rows.unshift({ name: 'documents in the store', value: DOCUMENTS, unit: 'documents' });
      const markdown = [
        `### Memory with ${DOCUMENTS.toLocaleString('en')} documents (embedded stores)`,
        '',
        'The API process (with its PDF worker threads) started on a data directory holding the documents; list, get and create all answered.',
        '',
        '| measure | value | unit |',
        '|---|---:|---|',
        ...rows.map((r) => `| ${r.name} | ${r.value.toLocaleString('en')} | ${r.unit} |`),
        '',
      ].join('\n');
      return { rows, markdown };
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  },
};
