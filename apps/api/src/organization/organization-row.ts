import { Infrastructure } from '@dojang/application';
import { ORGANIZATIONS, OrganizationRow } from '@dojang/projections';
import { ApiError } from '../shared/api-error';
import { AuthContext } from '../shared/auth.guard';

/** The caller's organization as projected; 404 organization_not_found once it is gone. */
export async function organizationRowOf(infra: Infrastructure, auth: AuthContext): Promise<OrganizationRow> {
  const row = await infra.reads.get<OrganizationRow>(ORGANIZATIONS, auth.organization_id);
  if (!row) throw ApiError.notFound('organization_not_found', 'No such organization.');
  return row;
}
