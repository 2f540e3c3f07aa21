import { randomUUID, X509Certificate } from 'crypto';
import { readFile } from 'fs/promises';
import {
  DocumentCommand,
  KeyMode,
  KeyRole,
  MemberRole,
  OrganizationCommand,
  WorkspaceKind,
  deliveryStreamId,
  documentDecider,
  documentStreamId,
  organizationDecider,
  organizationStreamId,
} from '@dojang/domain';
import { verifyChain } from '@dojang/event-store';
import { loadSigningIdentity, readPdfEvidence } from '@dojang/evidence';
import { ORGANIZATIONS, OrganizationRow, RebuildProgress } from '@dojang/projections';
import { WithoutNow } from '@dojang/domain';
import { newApiKey, prefixedId } from './ids';
import { Infrastructure } from './runtime/infrastructure';
import { sha256Hex } from './runtime/secrets';
import { CHAIN_HEAD_PDF_KEY } from './document-pdf.service';
import { ChainHead } from './verification/chain-head-proof';
import { verifyDocumentEvidence } from './verification/verify-document';
import { ProjectionPluginError } from './runtime/projection-plugins';
import { pluginsNotLoadedHint, unloadedProjections } from './projection-status.query';

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
    const decision = await this.infra.commands.decide(
      organizationDecider,
      organizationStreamId(organizationId),
      { ...command, now: this.now() } as OrganizationCommand,
      { actor: 'admin', organization_id: organizationId },
      this.now,
    );
    await this.infra.projections.catchUp();
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

  async changeSettings(organizationId: string, settings: { default_expiry_days?: number; reminder_interval_days?: number | null; embed_origins?: string[] }) {
    await this.org(organizationId, { type: 'ChangeSettings', ...settings });
    return this.presentOrganization(organizationId);
  }

  async setEditLock(documentId: string, locked: boolean) {
    const { state } = await this.infra.commands.load(documentDecider, documentStreamId(documentId));
    await this.infra.commands.decide(
      documentDecider,
      documentStreamId(documentId),
      { type: 'SetEditLock', locked, now: this.now() } as DocumentCommand,
      { actor: 'admin', organization_id: state.organization_id, livemode: state.livemode, correlation_id: randomUUID() },
      this.now,
    );
    await this.infra.projections.catchUp();
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
      settings: { default_expiry_days: row.default_expiry_days, reminder_interval_days: row.reminder_interval_days, embed_origins: row.embed_origins ?? [] },
    };
  }

  async streamEvents(streamId: string) {
    return this.infra.events.readStream(streamId);
  }

  /**
   * Everything `cli verify` checks (see verification/verify-document.ts), against the
   * installation's document-signing certificate. `witnessPdf` is a final PDF the auditor holds
   * (e.g. the one mailed to the signers): its sealed chain head is compared with the log.
   * `trustAnchors` (DER, `--trust FILE`): the final PDF's signer chain must reach one of them.
   */
  async verifyDocument(documentId: string, options: { witnessPdf?: Buffer; trustAnchors?: Buffer[] } = {}) {
    const events = await this.infra.events.readStream(documentStreamId(documentId));
    if (events.length === 0) return { document_id: documentId, found: false as const };
    // With SIGNING_KEY=pkcs11 or remote the evidence is signed with that key: its certificate checks it.
    const external = this.infra.config.signingKey ? await readFile(this.infra.config.signingKey.certificateFile, 'utf8').catch(() => null) : null;
    const identity = external
      ? { certificatePem: external }
      : await loadSigningIdentity({
          dataDir: this.infra.config.dataDir,
          ...(this.infra.config.signingP12 ? { p12Path: this.infra.config.signingP12, p12Password: this.infra.config.signingP12Password ?? '' } : {}),
        });
    const certificate = identity ? Buffer.from(new X509Certificate(identity.certificatePem).raw) : null;
    let witness: { head: ChainHead | null; sha256: string } | null = null;
    if (options.witnessPdf) {
      const recorded = (await readPdfEvidence(options.witnessPdf))[CHAIN_HEAD_PDF_KEY];
      witness = { head: recorded ? (JSON.parse(recorded) as ChainHead) : null, sha256: sha256Hex(options.witnessPdf) };
    }
    // The stored id spelling: the delivery stream is named after the document's own id.
    const id = String(events[0].data.document_id ?? documentId);
    const deliveries = { document_id: id, events: await this.infra.events.readStream(deliveryStreamId(id)) };
    // --trust when given, else the list POST /v1/verify judges with (VERIFY_TRUST_ANCHORS): the
    // same file gets the same trust verdict from the CLI and the API of one installation.
    const trustAnchors = options.trustAnchors?.length ? options.trustAnchors : (this.infra.config.verifyTrustAnchors?.certificates ?? []);
    const verification = await verifyDocumentEvidence({ events, certificate, blob: (sha) => this.infra.blobs.get(sha, { fresh: true }), witness, deliveries, ...(trustAnchors.length ? { trustAnchors } : {}) });
    return { document_id: documentId, found: true as const, ...verification };
  }

  async rebuildProjections(names?: string[], onProgress?: (progress: RebuildProgress) => void) {
    const loaded = this.infra.runner.projections.map((p) => p.name);
    const unknown = (names ?? []).filter((n) => !loaded.includes(n));
    if (unknown.length) {
      // Most often a plugin the server runs and this process was started without.
      const recorded = new Set(await unloadedProjections(this.infra.reads, this.infra.runner.projections));
      const where = unknown.map((n) => (recorded.has(n) ? `${n} (recorded on this store: a plugin this process has not loaded)` : n));
      throw new ProjectionPluginError(`unknown projection(s): ${where.join(', ')}. Loaded here: ${loaded.join(', ')}. ${pluginsNotLoadedHint(this.infra.config.projections)}`);
    }
    return this.infra.runner.rebuild(names, onProgress);
  }
}
