import { randomUUID } from 'crypto';
import {
  DocumentCommand,
  KeyMode,
  KeyRole,
  MemberRole,
  OrganizationCommand,
  WorkspaceKind,
  documentDecider,
  documentStreamId,
  organizationDecider,
  organizationStreamId,
} from '@dojang/domain';
import { verifyChain } from '@dojang/event-store';
import { ORGANIZATIONS, OrganizationRow } from '@dojang/projections';
import { WithoutNow } from '@dojang/domain';
import { newApiKey, prefixedId } from './ids';
import { Infrastructure } from './infrastructure';
import { sha256Hex } from './secrets';

/**
 * Administrative and auditor use cases shared by the CLI and tests. Writes go through the same
 * generic command handler as the API; afterwards the projections are caught up so a running
 * server (polling the same log) and this process agree at once.
 */
export class AdminService {
  constructor(
    private readonly infra: Infrastructure,
    private readonly now: () => string = () => new Date().toISOString(),
  ) {}

  private async org(organizationId: string, command: WithoutNow<OrganizationCommand>) {
    const decision = await this.infra.commands.execute(
      organizationDecider,
      organizationStreamId(organizationId),
      { ...command, now: this.now() } as OrganizationCommand,
      { actor: 'admin', organization_id: organizationId },
      this.now,
    );
    await this.infra.runner.catchUp();
    return decision;
  }

  async createOrganization(input: { name: string; kind?: WorkspaceKind; plan?: string }) {
    const id = prefixedId('org');
    await this.org(id, {
      type: 'CreateOrganization',
      organization_id: id,
      name: input.name,
      workspace_kind: input.kind ?? 'personal',
      plan: input.plan ?? 'business',
    });
    const test = await this.issueKey(id, 'test');
    const live = await this.issueKey(id, 'live');
    return { organization: await this.presentOrganization(id), keys: { test: test.secret, live: live.secret } };
  }

  async issueKey(organizationId: string, mode: KeyMode, role: KeyRole = 'full') {
    const secret = newApiKey(mode);
    const keyId = prefixedId('key');
    await this.org(organizationId, { type: 'IssueApiKey', key_id: keyId, mode, role, key_hash: sha256Hex(secret), key_hint: secret.slice(-4) });
    return { id: keyId, object: 'api_key', mode, role, secret };
  }

  async revokeKey(organizationId: string, keyId: string) {
    await this.org(organizationId, { type: 'RevokeApiKey', key_id: keyId });
    return { id: keyId, object: 'api_key', revoked: true };
  }

  async addMember(organizationId: string, input: { name: string; email: string; role: MemberRole }) {
    const userId = prefixedId('usr');
    await this.org(organizationId, { type: 'AddMember', user_id: userId, ...input });
    return { object: 'member', user_id: userId, ...input };
  }

  async grantCredits(organizationId: string, amount: number, reason: string) {
    await this.org(organizationId, { type: 'GrantCredits', amount, reason });
    return this.presentOrganization(organizationId);
  }

  async changeSettings(organizationId: string, settings: { default_expiry_days?: number; reminder_interval_days?: number | null }) {
    await this.org(organizationId, { type: 'ChangeSettings', ...settings });
    return this.presentOrganization(organizationId);
  }

  async setEditLock(documentId: string, locked: boolean) {
    const { state } = await this.infra.commands.load(documentDecider, documentStreamId(documentId));
    await this.infra.commands.execute(
      documentDecider,
      documentStreamId(documentId),
      { type: 'SetEditLock', locked, now: this.now() } as DocumentCommand,
      { actor: 'admin', organization_id: state.organization_id, livemode: state.livemode, correlation_id: randomUUID() },
      this.now,
    );
    await this.infra.runner.catchUp();
    return { id: documentId, object: 'document', edit_locked: locked };
  }

  async presentOrganization(organizationId: string) {
    const row = await this.infra.reads.get<OrganizationRow>(ORGANIZATIONS, organizationId);
    if (!row) throw new Error(`no such organization: ${organizationId}`);
    return {
      id: row.id,
      object: 'organization',
      name: row.name,
      workspace_kind: row.workspace_kind,
      plan: row.plan,
      credit_balance: row.credit_balance,
      created_at: row.created_at,
    };
  }

  async streamEvents(streamId: string) {
    return this.infra.events.readStream(streamId);
  }

  /** Walks a document's hash chain; also checks a stored final PDF against its recorded hash. */
  async verifyDocument(documentId: string) {
    const events = await this.infra.events.readStream(documentStreamId(documentId));
    if (events.length === 0) return { document_id: documentId, found: false as const };
    const chain = verifyChain(events);
    const completed = events.find((e) => e.type === 'DocumentCompleted');
    const finalPdf = completed?.data.final_pdf as { sha256: string } | null | undefined;
    let final_pdf: { sha256: string; status: 'intact' | 'missing' | 'altered' } | null = null;
    if (finalPdf) {
      const bytes = await this.infra.blobs.get(finalPdf.sha256);
      final_pdf = { sha256: finalPdf.sha256, status: !bytes ? 'missing' : sha256Hex(bytes) === finalPdf.sha256 ? 'intact' : 'altered' };
    }
    return { document_id: documentId, found: true as const, chain, final_pdf };
  }

  async rebuildProjections(names?: string[]) {
    return this.infra.runner.rebuild(names);
  }
}
