import { SizedLru } from './sized-lru';

describe('SizedLru', () => {
  it('keeps values up to its capacity, dropping the least recently used first', () => {
    const lru = new SizedLru<string, string>(10);
    lru.set('a', 'aaaa', 4);
    lru.set('b', 'bbbb', 4);
    expect(lru.get('a')).toBe('aaaa'); // a is now the most recently used
    lru.set('c', 'cccc', 4);
    expect(lru.has('b')).toBe(false);
    expect(lru.get('a')).toBe('aaaa');
    expect(lru.get('c')).toBe('cccc');
    expect(lru.size).toBe(8);
  });

  it('keeps the first value of a key and counts it once', () => {
    const lru = new SizedLru<string, number>(100);
    lru.set('k', 1, 10);
    lru.set('k', 2, 10);
    expect(lru.get('k')).toBe(1);
    expect(lru.size).toBe(10);
  });

  it('holds nothing larger than its capacity', () => {
    const lru = new SizedLru<string, string>(5);
    lru.set('big', 'x'.repeat(6), 6);
    expect(lru.has('big')).toBe(false);
    expect(lru.size).toBe(0);
  });
});
