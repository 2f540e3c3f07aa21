import { ensureBuilt, runCli, ServerProcess, startServer, tempDataDir } from '../support/built-server';
import * as fs from 'fs';

jest.setTimeout(300_000);

/** Two real API processes on one DATA_DIR share one count per key. */
describe('rate limit shared by two API processes', () => {
  const dataDir = tempDataDir('dojang-rl-');
  let a: ServerProcess;
  let b: ServerProcess;
  let key: string;

  beforeAll(async () => {
    ensureBuilt();
    const created = (await runCli(['org', 'create', '--name', 'Shared'], { dataDir })).json();
    key = created.keys.test;
    const env = { RATE_LIMIT_PER_MINUTE: '10' };
    a = await startServer({ dataDir, env });
    b = await startServer({ dataDir, env: { ...env, ROLE: 'api' } });
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('alternating requests draw down one count; the 11th and later get 429 from either process', async () => {
    // The window is the real clock's minute here (processes, no test clock): the 14 requests must
    // share one. Started right after a boundary; should a loaded machine still carry them into the
    // next minute (their reset headers differ), the sequence runs again in a fresh window.
    type Result = { via: string; status: number; remaining: string | null; reset: string | null; retryAfter: string | null };
    const freshWindow = async () => {
      const intoMinute = Date.now() % 60_000;
      await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 200));
    };
    const sequence = async (): Promise<Result[]> => {
      const results: Result[] = [];
      for (let i = 0; i < 14; i++) {
        const server = i % 2 === 0 ? a : b;
        const res = await fetch(`${server.url}/v1/organization`, { headers: { Authorization: `Bearer ${key}` } });
        await res.arrayBuffer();
        results.push({
          via: i % 2 === 0 ? 'a' : 'b',
          status: res.status,
          remaining: res.headers.get('ratelimit-remaining'),
          reset: res.headers.get('ratelimit-reset'),
          retryAfter: res.headers.get('retry-after'),
        });
      }
      return results;
    };
    if (Date.now() % 60_000 > 45_000) await freshWindow();
    let results = await sequence();
    for (let tries = 1; tries < 3 && new Set(results.map((r) => r.reset)).size > 1; tries++) {
      await freshWindow();
      results = await sequence();
    }
    expect(new Set(results.map((r) => r.reset)).size).toBe(1);
    expect(results.map((r) => r.status)).toEqual([...Array(10).fill(200), 429, 429, 429, 429]);
    expect(results.map((r) => r.remaining)).toEqual(['9', '8', '7', '6', '5', '4', '3', '2', '1', '0', '0', '0', '0', '0']);
    expect(results.slice(10).map((r) => r.via)).toEqual(['a', 'b', 'a', 'b']);
    for (const r of results.slice(10)) expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
    for (const r of results) expect(r.reset).toMatch(/^\d{10}$/);
  });
});
