import { throwawayMongoDatabase } from '@dojang/read-store/testing/throwaway-mongo-database';
import { blobStoreContract } from './blob-store.contract';
import { GridFsBlobStore } from './gridfs-blob-store.adapter';

const url = process.env.MONGO_URL;

if (url) {
  const dbName = throwawayMongoDatabase(url);
  blobStoreContract('GridFS', async () => new GridFsBlobStore(url, { dbName }));
} else {
  console.warn('MONGO_URL unset: skipping GridFS blob store contract run; start it with docker compose up mongodb');
  describe.skip('BlobStore contract: GridFS (MONGO_URL unset)', () => {
    it('runs against MongoDB GridFS', () => undefined);
  });
}
