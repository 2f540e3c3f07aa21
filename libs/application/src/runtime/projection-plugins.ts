import * as path from 'path';
import { ALL_PROJECTIONS, PROJECTION_STATUS, Projection, ReadEndpoint } from '@dojang/projections';
import { COLLECTION_NAME, ReadDoc, ReadStore } from '@dojang/read-store';
import { AppConfig } from './config';

/** Shown in every shape error, so the fix is in the message. */
const SAMPLE = `expected a module exporting Projection objects (default export, or a named \`projections\` array), e.g.

  export default {
    name: 'signing_times',            // unique; its checkpoint's name
    version: 1,                       // bump when evolve changes: the projection is rebuilt
    collections: [{ name: 'report_signing_times', indexes: [['organization_id']] }],
    handles: new Set(['DocumentSent', 'DocumentCompleted']),
    keys: (event) => [{ collection: 'report_signing_times', id: event.stream_id }],
    evolve: (event, rows) => [{ op: 'put', collection: 'report_signing_times', doc: { id: event.stream_id } }],
  } satisfies Projection;`;

export class ProjectionPluginError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProjectionPluginError';
  }
}

// A projection's name is its checkpoint's and often its collection's: the same rule as collections.
const NAME = COLLECTION_NAME;

/**
 * Bookkeeping collections that are not projections: a plugin's reset would empty them. Plugin
 * collections should carry their own prefix (`report_…`) so later built-ins cannot collide.
 */
const RESERVED_COLLECTIONS = [
  'checkpoints',
  PROJECTION_STATUS,
  'reactor_failures',
  'timers',
  'outbox',
  'message_log',
  'webhook_deliveries',
  'idempotency_keys',
  'windows',
];

/**
 * Loads the PROJECTIONS plugin modules (paths resolved from the working directory) and returns
 * the built-in projections followed by theirs, every one checked: its shape, and no projection or
 * collection name used twice. API, worker and CLI all start through here (openInfrastructure), so
 * they run the same set. A `.ts` module needs a TypeScript loader: jest has one; elsewhere ts-node
 * is registered on demand (a dev dependency: production should list compiled `.js`).
 */
export function loadProjectionPlugins(config: Pick<AppConfig, 'projections'>, builtIn: Projection[] = ALL_PROJECTIONS, cwd = process.cwd()): Projection[] {
  const plugins: Projection[] = [];
  for (const entry of config.projections) {
    const file = path.resolve(cwd, entry);
    const mod = requirePlugin(file, entry);
    const exported = exportedProjections(mod);
    if (exported.length === 0) throw new ProjectionPluginError(`PROJECTIONS: ${entry} exports no projection; ${SAMPLE}`);
    exported.forEach((p, i) => plugins.push(assertProjection(p, `${entry}${exported.length > 1 ? ` (projection ${i + 1})` : ''}`)));
  }
  const reserved = plugins.flatMap((p) => p.collections.map((c) => c.name)).filter((c) => RESERVED_COLLECTIONS.includes(c));
  if (reserved.length) throw new ProjectionPluginError(`PROJECTIONS: collection name(s) reserved for Dojang's own bookkeeping: ${reserved.join(', ')}`);
  return checkUnique([...builtIn, ...plugins]);
}

function requirePlugin(file: string, entry: string): unknown {
  if (file.endsWith('.ts') && !require.extensions['.ts']) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      require('ts-node').register({ transpileOnly: true, compilerOptions: { module: 'commonjs' } });
    } catch {
      throw new ProjectionPluginError(`PROJECTIONS: ${entry} is TypeScript and ts-node is not installed; compile it and list the .js file`);
    }
  }
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(file);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'MODULE_NOT_FOUND' && String(e.message).includes(file)) throw new ProjectionPluginError(`PROJECTIONS: cannot find ${entry} (resolved to ${file})`);
    throw new ProjectionPluginError(`PROJECTIONS: loading ${entry} failed: ${e.message}`);
  }
}

function exportedProjections(mod: unknown): unknown[] {
  const m = (mod ?? {}) as { default?: unknown; projections?: unknown };
  const out: unknown[] = [];
  for (const candidate of [m.default, m.projections]) {
    if (candidate === undefined) continue;
    for (const p of Array.isArray(candidate) ? candidate : [candidate]) if (!out.includes(p)) out.push(p);
  }
  return out;
}

/** Checks what the runner relies on; the error names the module and the field. */
export function assertProjection(value: unknown, source: string): Projection {
  const p = value as Partial<Projection> | null;
  const problems: string[] = [];
  if (!p || typeof p !== 'object') problems.push('not an object');
  else {
    if (typeof p.name !== 'string' || !NAME.test(p.name)) problems.push('name must be lower_snake_case (a-z, 0-9, _; up to 60 characters)');
    if (typeof p.version !== 'number' || !Number.isInteger(p.version) || p.version < 1) problems.push('version must be an integer ≥ 1');
    if (!Array.isArray(p.collections) || p.collections.length === 0) problems.push('collections must be a non-empty array of { name, indexes? }');
    else
      for (const c of p.collections) {
        if (!c || typeof c.name !== 'string' || !NAME.test(c.name)) problems.push(`collection name ${JSON.stringify(c?.name)} must be lower_snake_case (a-z, 0-9, _; up to 60 characters, so every store can hold it)`);
        else if (c.indexes !== undefined && (!Array.isArray(c.indexes) || !c.indexes.every((i) => Array.isArray(i) && i.every((f) => typeof f === 'string'))))
          problems.push(`collection ${c.name}: indexes must be arrays of field names`);
      }
    if (!(p.handles instanceof Set) || ![...p.handles].every((t) => typeof t === 'string')) problems.push('handles must be a Set of event type names');
    if (typeof p.keys !== 'function') problems.push('keys must be a function (event) => [{ collection, id }]');
    if (typeof p.evolve !== 'function') problems.push('evolve must be a function (event, rows) => writes');
    if (p.endpoints !== undefined) problems.push(...endpointProblems(p));
  }
  if (problems.length) throw new ProjectionPluginError(`PROJECTIONS: ${source}: ${problems.join('; ')}\n${SAMPLE}`);
  return p as Projection;
}

function endpointProblems(p: Partial<Projection>): string[] {
  if (!Array.isArray(p.endpoints)) return ['endpoints must be an array of { name, collection, filters? }'];
  const own = new Set((Array.isArray(p.collections) ? p.collections : []).map((c) => c?.name));
  const problems: string[] = [];
  const names = new Set<string>();
  for (const e of p.endpoints as Array<Partial<ReadEndpoint> | null>) {
    const label = `endpoint ${JSON.stringify(e?.name)}`;
    if (!e || typeof e.name !== 'string' || !NAME.test(e.name)) problems.push(`${label}: name must be lower_snake_case`);
    else if (names.has(e.name)) problems.push(`${label}: declared twice`);
    else names.add(e.name);
    if (!e || typeof e.collection !== 'string' || !own.has(e.collection)) problems.push(`${label}: collection must be one of this projection's collections (${[...own].join(', ')})`);
    if (e?.filters !== undefined && (!Array.isArray(e.filters) || !e.filters.every((f) => typeof f === 'string' && /^[a-z][a-z0-9_]*$/.test(f) && !RESERVED_FILTERS.includes(f)))) {
      problems.push(`${label}: filters must be top-level field names (not ${RESERVED_FILTERS.join(', ')})`);
    }
  }
  return problems;
}

/** Query parameters the extensions route answers itself: a filter cannot take their names. */
export const RESERVED_FILTERS = ['limit', 'starting_after', 'ending_before', 'organization_id', 'livemode'];

/** The plugin projections among those loaded (built-ins excluded). */
export function pluginProjections(projections: readonly Projection[]): Projection[] {
  return projections.filter((p) => !ALL_PROJECTIONS.includes(p));
}

/** A loaded plugin's declared read endpoint, or null: what GET /v1/extensions/{projection}/{name} serves. */
export function findPluginEndpoint(projections: readonly Projection[], projection: string, name: string): ReadEndpoint | null {
  const plugin = pluginProjections(projections).find((p) => p.name === projection);
  return plugin?.endpoints?.find((e) => e.name === name) ?? null;
}

function checkUnique(all: Projection[]): Projection[] {
  const seen = new Map<string, number>();
  for (const name of all.flatMap((p) => [`projection ${p.name}`, ...p.collections.map((c) => `collection ${c.name}`)])) seen.set(name, (seen.get(name) ?? 0) + 1);
  const clash = [...seen].filter(([, n]) => n > 1).map(([name]) => name);
  if (clash.length) throw new ProjectionPluginError(`PROJECTIONS: used twice (built-in or plugin): ${clash.join(', ')}`);
  return all;
}

/**
 * A plugin collection's rows (for `cli report`), optionally one organization's. Built-in
 * collections are refused: some hold secrets' hashes, and each has its own API already.
 */
export async function readPluginRows(reads: ReadStore, projections: Projection[], collection: string, organizationId?: string): Promise<ReadDoc[]> {
  const plugin = pluginProjections(projections).flatMap((p) => p.collections.map((c) => c.name));
  if (!plugin.includes(collection)) {
    throw new ProjectionPluginError(
      `no plugin collection named ${collection}; ${plugin.length ? `loaded: ${plugin.join(', ')}` : 'no PROJECTIONS plugin is loaded'}`,
    );
  }
  const rows = await reads.find(collection, {
    ...(organizationId ? { where: { organization_id: organizationId } } : {}),
    orderBy: [{ field: 'id', direction: 'asc' }],
  });
  return rows.map((row) => Object.fromEntries(Object.entries(row).filter(([k]) => !k.startsWith('_'))) as ReadDoc);
}
