/**
 * `npm run generate:client`: regenerates libs/client/src/schema.d.ts, the types of the typed client
 * (@dojang/client), from the OpenAPI document the API serves. The document is built from the
 * application itself without listening on a port (apps/api/src/openapi/offline-document.ts), and
 * openapi-typescript turns it into types (scripts/client-types.js, run as a child: see there).
 * Same code, same output: nothing depends on the time, the machine or the environment.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { buildOfflineOpenApiDocument } from '../apps/api/src/openapi/offline-document';

export const CLIENT_SCHEMA_FILE = path.join(__dirname, '..', 'libs', 'client', 'src', 'schema.d.ts');
const CONVERTER = path.join(__dirname, 'client-types.js');

/** The text of schema.d.ts for a given OpenAPI document. */
export function renderClientSchema(document: object): string {
  const out = spawnSync(process.execPath, [CONVERTER], {
    input: JSON.stringify(document),
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (out.error) throw out.error;
  if (out.status !== 0) throw new Error(`scripts/client-types.js exited with ${out.status}:\n${out.stderr}`);
  return out.stdout;
}

/** The text schema.d.ts should have for the code as it is now. */
export async function generateClientSchema(): Promise<string> {
  return renderClientSchema(await buildOfflineOpenApiDocument());
}

if (require.main === module) {
  generateClientSchema()
    .then((text) => {
      const before = fs.existsSync(CLIENT_SCHEMA_FILE) ? fs.readFileSync(CLIENT_SCHEMA_FILE, 'utf8') : null;
      fs.writeFileSync(CLIENT_SCHEMA_FILE, text);
      const where = path.relative(process.cwd(), CLIENT_SCHEMA_FILE);
      process.stdout.write(`${where}: ${before === text ? 'unchanged' : 'written'} (${text.length} characters)\n`);
      // The PDF worker pool and store handles would otherwise keep the process alive.
      process.exit(0);
    })
    .catch((err) => {
      process.stderr.write(`generate:client: ${err && err.stack ? err.stack : err}\n`);
      process.exit(1);
    });
}
