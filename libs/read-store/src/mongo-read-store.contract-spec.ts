import { randomUUID } from 'crypto';
import { MongoClient } from 'mongodb';
import { readStoreContract } from './read-store.contract';
import { MongoReadStore } from './mongo-read-store.adapter';

const url = process.env.MONGO_URL;

if (url) {
  // A database of its own per run, dropped afterwards, so runs never see each other's data.
  const dbName = `dojang_contract_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  afterAll(async () => {
    const client = new MongoClient(url);
    try {
      await client.db(dbName).dropDatabase();
    } finally {
      await client.close();
    }
  });
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
