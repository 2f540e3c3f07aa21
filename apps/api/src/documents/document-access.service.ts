import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { Infrastructure, CommandContext, Decision, CLOCK, Clock, readBody } from '@dojang/application';
import {
  DocumentCommand,
  DocumentEvent,
  DocumentState,
  documentDecider,
  documentStreamId,
  DomainError,
  WithoutNow,
} from '@dojang/domain';
import { DOCUMENTS, DocumentRow } from '@dojang/projections';
import { ApiError } from '../shared/api-error';
import { AuthContext, RequestInfo, commandContext } from '../shared/auth.guard';
import { DecideCommand } from '../shared/decide.command';
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
    const presented = presentDocument(row, this.origin, this.infra.secrets, await readBody(this.infra.blobs, row), partContents);
    if (auth?.role === 'full' && options.links !== false) return presented;
    return { ...presented, participants: presented.participants.map((p) => ({ ...p, signing_url: null })) };
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

  /**
   * Runs a creation whose document id came from `creationId` (idempotent-creation.ts). When the
   * request carries an Idempotency-Key and the document is already there, an earlier attempt with
   * that key made it (the id derives from the key, the API key's scope and the request): nothing
   * is written again, the answer is marked as a replay, and the route presents what is stored,
   * re-read from the stream rather than rebuilt, so participant and field ids are the first
   * attempt's whatever made them. Returns whether this attempt created the document.
   *
   * `create` throws the decider's `document_exists` when its append meets the stream; a creation
   * that decides nothing for an existing stream (a template send given its id) returns false.
   */
  async createOnce(auth: AuthContext, info: RequestInfo, documentId: string, create: () => Promise<boolean | void>): Promise<boolean> {
    try {
      if ((await create()) !== false) return true;
    } catch (err) {
      if (!info.idempotency || !(err instanceof DomainError && err.code === 'document_exists')) throw err;
    }
    const { state, events } = await this.infra.commands.load(documentDecider, documentStreamId(documentId.toLowerCase()));
    // Not made by this key (an id given explicitly elsewhere), or gone since: say so as before.
    if (!info.idempotency || !state.exists || state.organization_id !== auth.organization_id || state.livemode !== auth.livemode) {
      throw new DomainError('conflict', 'document_exists', 'A document with this id already exists.');
    }
    // Read-your-writes for the attempt that wrote (perhaps in another process): the read model
    // shows its document before it is presented.
    const last = events[events.length - 1]?.global_position;
    if (last !== undefined && !(await this.infra.projections.waitFor(last))) await this.infra.projections.catchUp();
    info.idempotency.replayed();
    return false;
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
