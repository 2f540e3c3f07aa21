import { InMemorySpanExporter, ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { TracingHandle, startTracing } from '@dojang/application';
import { client, expectStatus } from '../support/api-helpers';
import { TestApp, startTestApp } from '../support/test-app';

/**
 * With tracing on, one request's trace follows its events: the command, the append, the
 * projection that makes it readable, and the reactors it triggers (which run from the log, after
 * the response, possibly in another process).
 */
describe('tracing: create → send is one connected trace', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: TracingHandle;
  let t: TestApp;
  beforeAll(async () => {
    tracing = await startTracing({ serviceName: 'dojang-test', exporter });
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
    await tracing.shutdown();
  });

  it('links the HTTP span, command, append, projection and reactor spans', async () => {
    const org = await t.createOrg();
    const c = client(t, org.test);
    const doc = expectStatus(await c.post('/documents', { title: '용역계약서', content: '<p>본문</p>' }), 201).body;
    const p = expectStatus(await c.post(`/documents/${doc.id}/participants`, { name: '김서명', auth: 'none', email: 'kim@example.com' }), 201).body;
    expectStatus(await c.put(`/documents/${doc.id}/fields`, { fields: [{ participant_id: p.id, type: 'signature', page: 1, x: 10, y: 70, width: 20, height: 8 }] }), 200);
    expectStatus(await c.post(`/documents/${doc.id}/send`, {}), 200);
    await t.infra.runner.catchUp();
    await t.worker!.runner.catchUp();
    await tracing.forceFlush();

    const spans = exporter.getFinishedSpans();
    const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
    const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;
    const send = spans.find((s) => s.name === 'HTTP POST /v1/documents/:id/send');
    expect(send).toBeDefined();
    const traceId = send!.spanContext().traceId;
    const inTrace = spans.filter((s) => s.spanContext().traceId === traceId);
    const names = inTrace.map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(['command document', 'event_store.append', 'project DocumentSent']));
    expect(names.some((n) => /^react .* DocumentSent$/.test(n))).toBe(true);

    // Every span of the trace leads back to the HTTP span through its parents.
    for (const span of inTrace) {
      let cursor: ReadableSpan | undefined = span;
      const seen = new Set<string>();
      while (cursor && cursor !== send && !seen.has(cursor.spanContext().spanId)) {
        seen.add(cursor.spanContext().spanId);
        const parent = parentOf(cursor);
        cursor = parent ? byId.get(parent) : undefined;
      }
      expect(cursor).toBe(send);
    }
    // The create request is a trace of its own.
    const create = spans.find((s) => s.name === 'HTTP POST /v1/documents');
    expect(create!.spanContext().traceId).not.toBe(traceId);
  });
});
