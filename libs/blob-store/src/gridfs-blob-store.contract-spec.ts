import { randomUUID } from 'crypto';
import { MongoClient } from 'mongodb';
import { blobStoreContract } from './blob-store.contract';
import { GridFsBlobStore } from './gridfs-blob-store.adapter';

const url = process.env.MONGO_URL;

if (url) {
  // A database of its own per run, dropped afterwards, so runs never see each other's blobs.
  const dbName = `dojang_contract_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  afterAll(async () => {
    const client = new MongoClient(url);
    try {
      await client.db(dbName).dropDatabase();
    } finally {
      await client.close();
    }
  });
  blobStoreContract('GridFS', async () => new GridFsBlobStore(url, { dbName }));
} else {
  console.warn('MONGO_URL unset: skipping GridFS blob store contract run; start it with docker compose up mongodb');
  describe.skip('BlobStore contract: GridFS (MONGO_URL unset)', () => {
    it('runs against MongoDB GridFS', () => undefined);
  });
}
