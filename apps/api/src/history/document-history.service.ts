import { Inject, Injectable } from '@nestjs/common';
import { DocumentHistory, Infrastructure, parseInstant } from '@dojang/application';
import { DocumentState } from '@dojang/domain';
import { DocumentRow } from '@dojang/projections';
import { PresentedDocument } from '../documents/document.presenter';
import { DocumentAccess } from '../documents/document-access.service';
import { ApiError } from '../shared/api-error';
import { AuthContext } from '../shared/auth.guard';
import { INFRA } from '../shared/infrastructure.token';

/**
 * Time travel and history over HTTP: ownership is checked on the current read model (another
 * organization's or a trashed document is 404, as everywhere), then the query in libs/application
 * reads and folds the stream.
 */
@Injectable()
export class DocumentHistoryService {
  readonly history: DocumentHistory;

  constructor(
    @Inject(INFRA) infra: Infrastructure,
    private readonly docs: DocumentAccess,
  ) {
    this.history = new DocumentHistory(infra.events);
  }

  /** `as_of` as epoch ms; undefined when absent; 400 invalid_parameter when not an ISO 8601 instant. */
  parseAsOf(raw: unknown): number | undefined {
    if (raw === undefined) return undefined;
    const t = parseInstant(raw);
    if (t === null) {
      throw ApiError.invalid('as_of', 'as_of must be an ISO 8601 date or date-time with a UTC offset, e.g. 2026-03-02T09:00:00Z.');
    }
    return t;
  }

  /** The document as the normal detail presents it, but folded from the events up to `asOf`. */
  async presentAsOf(auth: AuthContext, id: string, asOf: number): Promise<PresentedDocument> {
    const current = await this.docs.row(auth, id);
    const then = await this.history.stateAt(current.id, asOf);
    if (!then) throw ApiError.documentNotFound();
    return this.presentState(auth, then.state, then.updated_at);
  }

  presentState(auth: AuthContext, state: DocumentState, updatedAt: string): Promise<PresentedDocument> {
    const row: DocumentRow = {
      ...state,
      id: state.id,
      participants: state.participants.map((p) => ({ ...p, pin: p.pin && { ...p.pin, pin_hash: '' } })),
      updated_at: updatedAt,
      sort_key: '',
    };
    return this.docs.present(row, auth, { links: false });
  }
}
