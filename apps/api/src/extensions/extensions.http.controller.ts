import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { findPluginEndpoint, Infrastructure } from '@dojang/application';
import { ReadEndpoint } from '@dojang/projections';
import { Condition, ReadDoc } from '@dojang/read-store';
import { parseLimit } from '../documents/documents.http.controller';
import { ApiError } from '../shared/api-error';
import { Auth, AuthContext } from '../shared/auth.guard';
import { INFRA } from '../shared/infrastructure.token';
import { listPage } from '../shared/list-page';
import { ExtensionRowListResponse, ExtensionRowResponse } from '../openapi/response-schemas';

/** The query parameters every list takes; any other must be one of the endpoint's filters. */
const PAGING = ['limit', 'starting_after', 'ending_before'];

interface ScopedRow extends ReadDoc {
  organization_id: string;
  livemode: boolean;
}

/** The row as served: the runner's `_position`/`_generation` stamps are bookkeeping, not data. */
function present(row: ScopedRow): ExtensionRowResponse {
  return Object.fromEntries(Object.entries(row).filter(([k]) => !k.startsWith('_'))) as ExtensionRowResponse;
}

/**
 * The read endpoints projection plugins declare (`Projection.endpoints`, docs/EXTENDING.md), all
 * served by this one controller, so a plugin ships an HTTP read model without touching apps/. Rows
 * are scoped like every other answer: the caller's organization and key mode, anything else 404.
 */
@Controller('extensions')
export class ExtensionsHttpController {
  constructor(@Inject(INFRA) private readonly infra: Infrastructure) {}

  private endpoint(projection: string, name: string): ReadEndpoint {
    const endpoint = findPluginEndpoint(this.infra.runner.projections, projection, name);
    if (!endpoint) {
      throw ApiError.notFound('extension_not_found', `No read endpoint ${projection}/${name} on this server: the plugin is not loaded (PROJECTIONS) or does not declare it.`);
    }
    return endpoint;
  }

  private async row(auth: AuthContext, endpoint: ReadEndpoint, id: string): Promise<ScopedRow | null> {
    const row = await this.infra.reads.get<ScopedRow>(endpoint.collection, id);
    return row && row.organization_id === auth.organization_id && row.livemode === auth.livemode ? row : null;
  }

  @Get(':projection/:endpoint')
  async list(
    @Auth() auth: AuthContext,
    @Param('projection') projection: string,
    @Param('endpoint') name: string,
    @Query() query: Record<string, unknown>,
  ): Promise<ExtensionRowListResponse> {
    const endpoint = this.endpoint(projection, name);
    const where: Record<string, Condition> = { organization_id: auth.organization_id, livemode: auth.livemode };
    const filters = endpoint.filters ?? [];
    for (const [param, value] of Object.entries(query)) {
      if (PAGING.includes(param)) continue;
      if (!filters.includes(param)) {
        throw ApiError.invalid(param, `${projection}/${name} has no filter ${param}; ${filters.length ? `its filters: ${filters.join(', ')}` : 'it declares no filters'}.`);
      }
      if (typeof value !== 'string') throw ApiError.invalid(param, `${param} must be given once, as a string.`);
      where[param] = value;
    }
    const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
    const { rows, has_more } = await listPage<ScopedRow>(
      this.infra.reads,
      { limit: parseLimit(str(query.limit)), starting_after: str(query.starting_after), ending_before: str(query.ending_before) },
      { collection: endpoint.collection, where, sortField: 'id', cursor: (id) => this.row(auth, endpoint, id), noun: 'a row' },
    );
    return { object: 'list', data: rows.map(present), has_more };
  }

  @Get(':projection/:endpoint/:id')
  async get(@Auth() auth: AuthContext, @Param('projection') projection: string, @Param('endpoint') name: string, @Param('id') id: string): Promise<ExtensionRowResponse> {
    const endpoint = this.endpoint(projection, name);
    const row = await this.row(auth, endpoint, id);
    if (!row) throw ApiError.notFound('extension_row_not_found', `No row ${id} in ${projection}/${name}.`);
    return present(row);
  }
}
