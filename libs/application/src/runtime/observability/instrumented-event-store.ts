import { AppendResult, EventStore, ExpectedRevision, NewEvent, ReadStreamOptions, StoredEvent } from '@dojang/event-store';
import { Metrics } from './metrics';
import { currentTraceParent, inSpan } from './tracing';

/**
 * The event store as every process uses it: appends are timed into
 * `dojang_event_store_append_duration_seconds`, traced, and carry the active trace context in their
 * metadata so the projections and reactors that follow join the request's trace. Reads pass
 * through untouched.
 */
export class InstrumentedEventStore implements EventStore {
  constructor(
    private readonly inner: EventStore,
    private readonly metrics: Metrics,
  ) {}

  append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    return inSpan('event_store.append', { 'dojang.stream_id': streamId, 'dojang.events': events.length }, () => {
      const traceParent = currentTraceParent();
      const withTrace = traceParent ? events.map((e) => ({ ...e, metadata: { ...e.metadata, trace_parent: traceParent } })) : events;
      return this.metrics.time(this.metrics.appendDuration, () => this.inner.append(streamId, withTrace, expected));
    });
  }

  readStream(streamId: string, options?: ReadStreamOptions): Promise<StoredEvent[]> {
    return this.inner.readStream(streamId, options);
  }

  readAll(after: number, limit: number): Promise<StoredEvent[]> {
    return this.inner.readAll(after, limit);
  }

  headPosition(): Promise<number> {
    return this.inner.headPosition();
  }

  onAppended(listener: () => void): () => void {
    return this.inner.onAppended(listener);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** The adapter underneath (tests and tools that reach behind the port). */
  get adapter(): EventStore {
    return this.inner;
  }
}
