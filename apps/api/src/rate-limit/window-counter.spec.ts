import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Infrastructure } from '@dojang/application';
import { SqliteReadStore } from '@dojang/read-store/sqlite';
import { WindowCounter } from './rate-limit.middleware';

describe('WindowCounter', () => {
  let dir: string;
  let reads: SqliteReadStore;
  let now: Date;
  const clock = { now: () => now };
  const counterOn = (store: SqliteReadStore) => new WindowCounter({ reads: store } as unknown as Infrastructure, clock);

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-window-'));
    reads = new SqliteReadStore(path.join(dir, 'read.sqlite'));
    now = new Date('2026-11-22T10:00:05Z');
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await reads.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('writes a burst of hits on one key as one increment, giving each request its own place in order', async () => {
    const increments = jest.spyOn(reads, 'incrementWindow');
    const counter = counterOn(reads);
    const decisions = await Promise.all(Array.from({ length: 12 }, () => counter.count('key_a', 10)));
    expect(increments).toHaveBeenCalledTimes(1);
    expect(increments.mock.calls[0][3]).toBe(12);
    expect(decisions.map((d) => d.remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0, 0]);
    expect(decisions.map((d) => d.allowed)).toEqual([...Array(10).fill(true), false, false]);
    expect(decisions[11].retryAfter).toBe(55);
    expect(decisions[0].reset).toBe(Date.parse('2026-11-22T10:01:00Z') / 1000);
  });

  it('sends the hits that arrive while an increment of the key is on its way as one increment after it', async () => {
    // A database server answers after some rounds of the event loop: a burst spread over them.
    const increment = reads.incrementWindow.bind(reads);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const increments = jest.spyOn(reads, 'incrementWindow').mockImplementation(async (...args) => {
      if (increments.mock.calls.length === 1) await gate;
      return increment(...args);
    });
    const counter = counterOn(reads);
    const first = counter.count('key_a', 100);
    const later: Array<Promise<unknown>> = [];
    for (let round = 0; round < 5; round++) {
      await new Promise((resolve) => setImmediate(resolve));
      later.push(counter.count('key_a', 100), counter.count('key_a', 100));
    }
    const other = counter.count('key_b', 100);
    await new Promise((resolve) => setImmediate(resolve));
    release();
    const decisions = (await Promise.all([first, ...later])) as Array<{ remaining: number }>;
    expect((await other).remaining).toBe(99);
    // key_a: the first hit, then the ten that waited for it in one increment; key_b apart.
    expect(increments.mock.calls.map((c) => [c[0], c[3]])).toEqual([
      ['ratelimit:key_a', 1],
      ['ratelimit:key_b', 1],
      ['ratelimit:key_a', 10],
    ]);
    expect(decisions.map((d) => d.remaining)).toEqual([99, 98, 97, 96, 95, 94, 93, 92, 91, 90, 89]);
  });

  it('keeps keys apart and continues the count of earlier rounds and of other processes', async () => {
    const other = new SqliteReadStore(path.join(dir, 'read.sqlite'));
    try {
      const mine = counterOn(reads);
      const theirs = counterOn(other);
      await Promise.all([mine.count('key_a', 100), mine.count('key_a', 100), mine.count('key_b', 100)]);
      await Promise.all([theirs.count('key_a', 100), theirs.count('key_a', 100)]);
      const [a, b] = await Promise.all([mine.count('key_a', 100), mine.count('key_b', 100)]);
      expect(a.remaining).toBe(100 - 5);
      expect(b.remaining).toBe(100 - 2);
    } finally {
      await other.close();
    }
  });

  it('starts from 1 again in the next window', async () => {
    const counter = counterOn(reads);
    await Promise.all([counter.count('key_a', 10), counter.count('key_a', 10)]);
    now = new Date('2026-11-22T10:01:00Z');
    expect((await counter.count('key_a', 10)).remaining).toBe(9);
  });

  it('fails every request of a round whose increment failed', async () => {
    jest.spyOn(reads, 'incrementWindow').mockRejectedValueOnce(new Error('disk I/O error'));
    const counter = counterOn(reads);
    const results = await Promise.allSettled([counter.count('key_a', 10), counter.count('key_a', 10)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect((await counter.count('key_a', 10)).remaining).toBe(9);
  });
});
