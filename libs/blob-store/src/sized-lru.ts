/**
 * Values by key, least recently used first, bounded by the sum of their sizes (bytes, characters:
 * the caller's unit). The memory a process keeps of immutable things (blobs by hash, bodies, their
 * encoded JSON) is held in these, so each is bounded the same way.
 */
export class SizedLru<K, V> {
  private readonly entries = new Map<K, { value: V; size: number }>();
  private total = 0;

  constructor(readonly capacity: number) {}

  /** The value, now the most recently used; undefined when not kept. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** Keeps the value (a key already kept keeps its value), then drops the least recently used past the capacity. */
  set(key: K, value: V, size: number): void {
    if (this.entries.has(key)) return;
    this.entries.set(key, { value, size });
    this.total += size;
    for (const [oldest, entry] of this.entries) {
      if (this.total <= this.capacity) break;
      this.entries.delete(oldest);
      this.total -= entry.size;
    }
  }

  /** The sum of the kept values' sizes. */
  get size(): number {
    return this.total;
  }
}
