import { randomUUID } from 'crypto';
import { MongoClient } from 'mongodb';

/**
 * A database of its own for one contract run, dropped after the file's tests, so runs against a
 * shared server never see each other's data. Call at a spec file's top level.
 */
export function throwawayMongoDatabase(url: string): string {
  const dbName = `dojang_contract_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  afterAll(async () => {
    const client = new MongoClient(url);
    try {
      await client.db(dbName).dropDatabase();
    } finally {
      await client.close();
    }
  });
  return dbName;
}
