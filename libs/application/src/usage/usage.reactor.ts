import { DocumentCreated, OrganizationCommand, documentStreamId, organizationDecider, organizationStreamId } from '@dojang/domain';
import { StoredEvent } from '@dojang/event-store';
import { CommandEntry } from '../commands/command-entry';
import { EventStore } from '@dojang/event-store';
import { Reactor } from '../reactors/reactor-runner';

/**
 * Usage is counted when the counterpart completes signing, not at send: on DocumentCompleted the
 * organization records one signature (its free monthly count first, then one credit). Test mode
 * never deducts. Idempotent: the organization decider counts a document once, so a replay of the
 * completion after a crash changes nothing.
 */
export class UsageReactor implements Reactor {
  readonly name = 'usage';
  readonly handles = new Set(['DocumentCompleted']);

  constructor(
    private readonly events: EventStore,
    private readonly commands: CommandEntry,
  ) {}

  async react(event: StoredEvent): Promise<void> {
    const documentId = event.stream_id.slice('document-'.length);
    let { organization_id, livemode } = event.metadata as { organization_id?: string; livemode?: boolean };
    if (!organization_id || typeof livemode !== 'boolean') {
      // Older events may lack the metadata: the document's creation says whose it is.
      const created = (await this.events.readStream(documentStreamId(documentId))).find((e) => e.type === 'DocumentCreated');
      if (!created) return;
      const data = (created as unknown as DocumentCreated).data;
      organization_id = data.organization_id;
      livemode = data.livemode;
    }
    if (!livemode) return;
    // The usage month is the completion's, so a replay months later books it where it happened.
    const now = String(event.metadata.occurred_at ?? (event.data as { completed_at?: string }).completed_at);
    const command: OrganizationCommand = { type: 'RecordSignatureUsage', document_id: documentId, livemode, now };
    await this.commands.decide(
      organizationDecider,
      organizationStreamId(organization_id),
      command,
      { actor: 'system', organization_id, livemode, causation_id: event.event_id, correlation_id: event.metadata.correlation_id },
      () => now,
    );
  }
}
