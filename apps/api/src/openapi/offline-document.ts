import { openInfrastructure, loadConfig } from '@dojang/application';
import { OpenAPIObject } from '@nestjs/swagger';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { createApp } from '../create-app';
import { buildOpenApiDocument } from './openapi.document';

/**
 * The document GET /v1/openapi.json serves, built without listening on a port: the same
 * application (create-app.ts) on throwaway embedded stores, so the routes, DTOs and global prefix
 * are exactly the served ones. Used to generate the typed client (scripts/generate-client.ts).
 * The environment is not read: a DATABASE_URL or PROJECTIONS set in the shell must not change it.
 */
export async function buildOfflineOpenApiDocument(): Promise<OpenAPIObject> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-openapi-'));
  try {
    const infra = await openInfrastructure(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
    try {
      const app = await createApp(infra);
      try {
        return buildOpenApiDocument(app);
      } finally {
        await app.close();
      }
    } finally {
      await infra.close();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
