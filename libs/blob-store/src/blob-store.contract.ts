import { createHash, randomBytes } from 'crypto';
import { BlobStore } from './blob-store.port';

/**
 * The behaviour every BlobStore adapter must have. `make` is called for each test; all instances
 * from one suite run share the same storage. Tests write random bytes, so the storage need not be
 * empty.
 */
export function blobStoreContract(name: string, make: () => Promise<BlobStore>): void {
  describe(`BlobStore contract: ${name}`, () => {
    const opened: BlobStore[] = [];
    let store: BlobStore;
    const open = async () => {
      const s = await make();
      opened.push(s);
      return s;
    };
    const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((s) => s.close()));
    });

    it('stores bytes under their SHA-256 and reads them back', async () => {
      const bytes = Buffer.concat([Buffer.from('%PDF-1.7 계약서 '), randomBytes(1000)]);
      const ref = await store.put(bytes);
      expect(ref).toEqual({ sha256: sha256(bytes), byte_size: bytes.length });
      expect(await store.has(ref.sha256)).toBe(true);
      expect((await store.get(ref.sha256))?.equals(bytes)).toBe(true);
    });

    it('is idempotent: the same bytes give the same ref and stay readable', async () => {
      const bytes = randomBytes(4096);
      const first = await store.put(bytes);
      const second = await store.put(Buffer.from(bytes));
      expect(second).toEqual(first);
      const both = await Promise.all([store.put(bytes), (await open()).put(bytes)]);
      expect(both).toEqual([first, first]);
      expect((await store.get(first.sha256))?.equals(bytes)).toBe(true);
    });

    it('keeps different bytes apart', async () => {
      const a = randomBytes(100);
      const b = randomBytes(100);
      const [ra, rb] = await Promise.all([store.put(a), store.put(b)]);
      expect(ra.sha256).not.toBe(rb.sha256);
      expect((await store.get(ra.sha256))?.equals(a)).toBe(true);
      expect((await store.get(rb.sha256))?.equals(b)).toBe(true);
    });

    it('is visible to another instance on the same storage', async () => {
      const bytes = randomBytes(256);
      const ref = await store.put(bytes);
      const other = await open();
      expect(await other.has(ref.sha256)).toBe(true);
      expect((await other.get(ref.sha256))?.equals(bytes)).toBe(true);
    });

    it('answers null and false for a hash it does not have', async () => {
      const unknown = sha256(randomBytes(32));
      expect(await store.get(unknown)).toBeNull();
      expect(await store.has(unknown)).toBe(false);
    });

    it('answers null and false for something that is not a SHA-256', async () => {
      const valid = (await store.put(randomBytes(10))).sha256;
      for (const bad of ['', 'abc', valid.toUpperCase(), `${valid}0`, valid.slice(1), '../../etc/passwd', 'g'.repeat(64), `${valid.slice(0, 62)}/x`]) {
        expect(await store.get(bad)).toBeNull();
        expect(await store.has(bad)).toBe(false);
      }
    });

    it('stores an empty blob', async () => {
      const ref = await store.put(Buffer.alloc(0));
      expect(ref).toEqual({ sha256: sha256(Buffer.alloc(0)), byte_size: 0 });
      expect(await store.has(ref.sha256)).toBe(true);
      expect((await store.get(ref.sha256))?.length).toBe(0);
    });

    it('round-trips a 5 MB blob', async () => {
      const bytes = randomBytes(5 * 1024 * 1024);
      const ref = await store.put(bytes);
      expect(ref.byte_size).toBe(bytes.length);
      const back = await store.get(ref.sha256);
      expect(back?.length).toBe(bytes.length);
      expect(back && sha256(back)).toBe(ref.sha256);
    });
  });
}
