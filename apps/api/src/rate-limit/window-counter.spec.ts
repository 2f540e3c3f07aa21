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
