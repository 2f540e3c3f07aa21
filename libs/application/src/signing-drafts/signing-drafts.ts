import { StoredEvent } from '@dojang/event-store';
import { CollectionSpec, ReadDoc, ReadStore } from '@dojang/read-store';
import { Reactor } from '../reactors/reactor-runner';

/**
 * Signing drafts: what a signer filled so far under their signing link (GET/PUT
 * /v1/signing/{token}/draft), so a reload, another tab or another device resumes there. A draft
 * is not a legal fact: it lives in this side table of the read store, never in the event log, so
 * no history, audit trail, webhook, export or evidence bundle carries it, and it is not a
 * projection (a rebuild neither fills nor empties it).
 */
export const SIGNING_DRAFTS = 'signing_drafts';

export const SIGNING_DRAFTS_COLLECTION: CollectionSpec = { name: SIGNING_DRAFTS, indexes: [['document_id']] };

export type DraftValue = string | boolean;

export interface SigningDraftRow extends ReadDoc {
  /** Maintained by ReadStore.putIfVersion. */
  _version?: number;
  document_id: string;
  participant_id: string;
  /** The link the draft was saved under: a replaced link (correction, delegation) never sees it. */
  token_hash: string;
  values: Record<string, DraftValue>;
  updated_at: string;
}

export const signingDraftId = (documentId: string, participantId: string) => `${documentId}:${participantId}`;

/** Read, merge and clear drafts; merges are compare-and-set, so two tabs saving at once both land. */
export class SigningDraftStore {
  private ready: Promise<void> | null = null;

  constructor(private readonly reads: ReadStore) {}

  private init(): Promise<void> {
    this.ready ??= this.reads.ensureCollection(SIGNING_DRAFTS_COLLECTION).catch((err: unknown) => {
      this.ready = null;
      throw err;
    });
    return this.ready;
  }

  /** The draft saved under this link, or null (none, or saved under a link since replaced). */
  async get(documentId: string, participantId: string, tokenHash: string): Promise<SigningDraftRow | null> {
    await this.init();
    const row = await this.reads.get<SigningDraftRow>(SIGNING_DRAFTS, signingDraftId(documentId, participantId));
    return row && row.token_hash === tokenHash ? row : null;
  }

  /**
   * Merges `changes` (null clears a field) into the link's draft and answers the whole draft.
   * `check` sees what the draft holds before the merge (for limits over the whole draft) and
   * answers the checked changes; it runs again if another save landed in between.
   */
  async merge(
    documentId: string,
    participantId: string,
    tokenHash: string,
    now: string,
    check: (kept: Record<string, DraftValue>) => Record<string, DraftValue | null>,
  ): Promise<SigningDraftRow> {
    await this.init();
    const id = signingDraftId(documentId, participantId);
    for (let attempt = 0; ; attempt++) {
      const row = await this.reads.get<SigningDraftRow>(SIGNING_DRAFTS, id);
      // A draft saved under a replaced link is not carried over to the new one.
      const kept = row && row.token_hash === tokenHash ? { ...row.values } : {};
      const changes = check(kept);
      for (const [field, value] of Object.entries(changes)) {
        if (value === null) delete kept[field];
        else kept[field] = value;
      }
      const next: SigningDraftRow = { id, document_id: documentId, participant_id: participantId, token_hash: tokenHash, values: kept, updated_at: now };
      if (await this.reads.putIfVersion(SIGNING_DRAFTS, next, row ? Number(row._version ?? 0) : null)) return next;
      if (attempt >= 20) throw new Error(`signing draft ${id}: too many concurrent saves`);
    }
  }

  /** Removes the participant's draft, or with no participant every draft of the document. */
  async clear(documentId: string, participantId?: string): Promise<void> {
    await this.init();
    // The drafts that exist, looked up first: most signers never save one, and a delete of nothing
    // would still be a write transaction, twice per signer (at signing and by the reactor below).
    let ids: string[];
    if (participantId) {
      const id = signingDraftId(documentId, participantId);
      ids = (await this.reads.get<SigningDraftRow>(SIGNING_DRAFTS, id)) ? [id] : [];
    } else {
      ids = (await this.reads.find<SigningDraftRow>(SIGNING_DRAFTS, { where: { document_id: documentId } })).map((r) => r.id);
    }
    if (ids.length) await this.reads.commit(ids.map((rid) => ({ op: 'delete' as const, collection: SIGNING_DRAFTS, id: rid })), {});
  }
}

/** Events that end a document's drafts (all of them) or one participant's. */
const DOCUMENT_ENDS = ['DocumentCompleted', 'DocumentCanceled', 'DocumentDeclined', 'DocumentExpired', 'DocumentTrashed'];
const PARTICIPANT_ENDS = ['ParticipantSigned', 'ParticipantDeclined', 'ParticipantCorrected', 'ParticipantDelegated', 'ParticipantRemoved'];

/**
 * Clears drafts once nobody may use them: the participant signed or declined, their link was
 * replaced (correction, delegation), another member signed for their signing group, or the
 * document concluded (completed, canceled, declined, expired, deleted). Reads never show a draft
 * past that point anyway (the session offers one only while the participant may still sign, under
 * the link it was saved with); this removes the data. Idempotent: deleting twice is deleting once.
 */
export class SigningDraftsReactor implements Reactor {
  readonly name = 'signing_drafts';
  readonly handles = new Set([...DOCUMENT_ENDS, ...PARTICIPANT_ENDS, 'SigningGroupSatisfied']);

  constructor(private readonly drafts: SigningDraftStore) {}

  async react(event: StoredEvent): Promise<void> {
    const documentId = event.stream_id.slice('document-'.length);
    const data = event.data as { participant_id?: string; released?: string[] };
    if (DOCUMENT_ENDS.includes(event.type)) return this.drafts.clear(documentId);
    if (event.type === 'SigningGroupSatisfied') {
      for (const id of data.released ?? []) await this.drafts.clear(documentId, id);
      return;
    }
    if (data.participant_id) await this.drafts.clear(documentId, data.participant_id);
  }
}
