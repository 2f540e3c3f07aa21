import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { Infrastructure, CommandContext, Decision, CLOCK, Clock, DocumentPdfService, readBody } from '@dojang/application';
import { isPdfLimitError } from '@dojang/pdf';
import {
  DocumentCommand,
  DocumentEvent,
  DocumentState,
  PartPages,
  documentDecider,
  layParts,
  documentStreamId,
  WithoutNow,
} from '@dojang/domain';
import { DOCUMENTS, DocumentRow } from '@dojang/projections';
import { ApiError } from '../shared/api-error';
import { AuthContext, RequestInfo, commandContext } from '../shared/auth.guard';
import { DecideCommand } from '../shared/decide.command';
import { createOnce } from '../idempotency/idempotent-creation';
import { INFRA } from '../shared/infrastructure.token';
import { PresentedDocument, presentDocument } from './document.presenter';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type DocCommandBody = WithoutNow<DocumentCommand>;

/**
 * Loads documents within the caller's organization and mode, and dispatches document commands.
 * Anything outside the caller's world is reported exactly like a document that does not exist.
 */
@Injectable()
export class DocumentAccess {
  constructor(
    @Inject(INFRA) readonly infra: Infrastructure,
    @Inject(CLOCK) readonly clock: Clock,
    private readonly commandBus: CommandBus,
    @Inject(DocumentPdfService) private readonly pdf: DocumentPdfService,
  ) {}

  get origin(): string {
    return this.infra.config.publicOrigin ?? `http://localhost:${this.infra.config.port}`;
  }

  nowIso(): string {
    return this.clock.now().toISOString();
  }

  async row(auth: AuthContext, id: string): Promise<DocumentRow> {
    if (!UUID.test(id)) throw ApiError.documentNotFound();
    const row = await this.infra.reads.get<DocumentRow>(DOCUMENTS, id.toLowerCase());
    if (!row || !row.exists || row.trashed || row.organization_id !== auth.organization_id || row.livemode !== auth.livemode) {
      throw ApiError.documentNotFound();
    }
    return row;
  }

  /**
   * A signing link lets its holder sign: a read-only (auditor) key never sees one, and neither does
   * a past state (`as_of`), whose links may be dead or belong to someone who has since signed.
   */
  async present(row: DocumentRow, auth?: AuthContext, options: { links?: boolean } = {}): Promise<PresentedDocument> {
    const partContents = row.parts ? await Promise.all(row.parts.map((p) => readBody(this.infra.blobs, p))) : [];
    const presented = presentDocument(row, this.origin, this.infra.secrets, await readBody(this.infra.blobs, row), partContents, await this.draftLayout(row));
    if (auth?.role === 'full' && options.links !== false) return presented;
    return { ...presented, participants: presented.participants.map((p) => ({ ...p, signing_url: null })) };
  }

  /**
   * Where a draft's parts fall in the document (each body's render, cached: PUT /fields made it),
   * so its fields' pages are shown across the whole document before send too. Only a draft with
   * parts and fields needs it; one whose render is refused shows pages within their parts.
   */
  private async draftLayout(row: DocumentRow): Promise<PartPages[] | null> {
    if (!row.parts || row.part_pages || row.fields.length === 0) return null;
    try {
      return layParts((await this.pdf.partPdfs(row)).map((p) => p.page_count));
    } catch (error) {
      if (isPdfLimitError(error)) return null;
      throw error;
    }
  }

  async presentById(auth: AuthContext, id: string): Promise<PresentedDocument> {
    return this.present(await this.row(auth, id), auth);
  }

  context(auth: AuthContext, info: RequestInfo, actor?: string): CommandContext {
    return commandContext(auth, info, actor);
  }

  /**
   * Runs a document command against the authoritative event stream. The ownership check runs on
   * the folded state, inside the retry loop, so it can't be raced.
   */
  async decide(
    auth: AuthContext,
    info: RequestInfo,
    documentId: string,
    build: DocCommandBody | ((state: DocumentState) => DocCommandBody | Promise<DocCommandBody>),
    /** `newStream`: the id was just made up (a creation), so the stream is not read first. */
    options: { allowMissing?: boolean; actor?: string; newStream?: boolean } = {},
  ): Promise<Decision<DocumentState, DocumentEvent>> {
    if (!UUID.test(documentId)) throw ApiError.documentNotFound();
    const streamId = documentStreamId(documentId.toLowerCase());
    const source = async (state: DocumentState): Promise<DocumentCommand> => {
      if (!options.allowMissing) this.assertOwned(auth, state);
      const body = typeof build === 'function' ? await build(state) : build;
      return { ...body, now: this.nowIso() } as DocumentCommand;
    };
    return this.commandBus.execute(
      new DecideCommand(documentDecider, streamId, source, this.context(auth, info, options.actor), true, options.newStream === true && options.allowMissing === true),
    );
  }

  /** `createOnce` (idempotent-creation.ts) for a document of the caller's organization and mode. */
  createOnce(auth: AuthContext, info: RequestInfo, documentId: string, create: () => Promise<boolean | void>): Promise<boolean> {
    const mine = (state: DocumentState) => state.exists && state.organization_id === auth.organization_id && state.livemode === auth.livemode;
    return createOnce(this.infra, info.idempotency, { decider: documentDecider, id: documentStreamId(documentId.toLowerCase()), existsCode: 'document_exists', mine }, create);
  }

  assertOwned(auth: AuthContext, state: DocumentState): void {
    if (!state.exists || state.trashed || state.organization_id !== auth.organization_id || state.livemode !== auth.livemode) {
      throw ApiError.documentNotFound();
    }
  }

  /** The authoritative state (for commands that copy from another document, e.g. duplicate). */
  async load(auth: AuthContext, documentId: string): Promise<DocumentState> {
    if (!UUID.test(documentId)) throw ApiError.documentNotFound();
    const { state } = await this.infra.commands.load(documentDecider, documentStreamId(documentId.toLowerCase()));
    this.assertOwned(auth, state);
    return state;
  }
}
