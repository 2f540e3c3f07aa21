import { throwawayMongoDatabase } from './testing/throwaway-mongo-database';
import { readStoreContract } from './read-store.contract';
import { MongoReadStore } from './mongo-read-store.adapter';

const url = process.env.MONGO_URL;

if (url) {
  const dbName = throwawayMongoDatabase(url);
  readStoreContract('MongoDB', async () => new MongoReadStore(url, { dbName }), {
    guardsStalePuts: true,
    indexCount: async (store, collection) =>
      (await (store as MongoReadStore).db.collection(`rm_${collection}`).indexes()).filter((i) => i.name !== '_id_').length,
  });
} else {
  console.warn('MONGO_URL unset: skipping MongoDB read store contract run; start it with docker compose up mongodb');
  describe.skip('ReadStore contract: MongoDB (MONGO_URL unset)', () => {
    it('runs against MongoDB', () => undefined);
  });
}
