import { Context, Link, ROOT_CONTEXT, Span, SpanKind, SpanStatusCode, context, propagation, trace } from '@opentelemetry/api';

/**
 * OpenTelemetry tracing, off unless OTEL_EXPORTER_OTLP_ENDPOINT is set (or a test installs an
 * in-process exporter). Our own code uses only the API (`@opentelemetry/api`), which is a no-op
 * without a registered provider, so the cost when off is a function call.
 *
 * A request's trace follows its events: at append the active span's context is written into the
 * event's metadata (`trace_parent`, W3C traceparent), and the projection that makes the event
 * readable and the reactors it triggers start their spans as children of it — even in another
 * process, later. correlation_id/causation_id stay the durable, tracing-independent link.
 */
export const tracer = () => trace.getTracer('dojang');

let enabled = false;

export function tracingEnabled(): boolean {
  return enabled;
}

export interface TracingHandle {
  shutdown(): Promise<void>;
  forceFlush(): Promise<void>;
}

/**
 * Registers a tracer provider. `exporter` given: spans go to it (tests pass an
 * InMemorySpanExporter); otherwise OTLP over HTTP to OTEL_EXPORTER_OTLP_ENDPOINT, with the HTTP and
 * PostgreSQL instrumentations.
 */
export async function startTracing(options: { serviceName: string; exporter?: import('@opentelemetry/sdk-trace-base').SpanExporter }): Promise<TracingHandle> {
  const { NodeTracerProvider, SimpleSpanProcessor, BatchSpanProcessor } = await import('@opentelemetry/sdk-trace-node');
  const { resourceFromAttributes } = await import('@opentelemetry/resources');
  let processor;
  if (options.exporter) {
    processor = new SimpleSpanProcessor(options.exporter);
  } else {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    processor = new BatchSpanProcessor(new OTLPTraceExporter());
  }
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName }),
    spanProcessors: [processor],
  });
  provider.register();
  if (!options.exporter) {
    const { registerInstrumentations } = await import('@opentelemetry/instrumentation');
    const { HttpInstrumentation } = await import('@opentelemetry/instrumentation-http');
    const { PgInstrumentation } = await import('@opentelemetry/instrumentation-pg');
    registerInstrumentations({ tracerProvider: provider, instrumentations: [new HttpInstrumentation(), new PgInstrumentation()] });
  }
  enabled = true;
  return {
    forceFlush: () => provider.forceFlush(),
    async shutdown() {
      enabled = false;
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

/** Starts tracing from the environment (OTEL_EXPORTER_OTLP_ENDPOINT); null when it is unset. */
export async function startTracingFromEnv(serviceName: string, env: NodeJS.ProcessEnv = process.env): Promise<TracingHandle | null> {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT) return null;
  return startTracing({ serviceName: env.OTEL_SERVICE_NAME || serviceName });
}

/** Runs `work` in a child span of the active context, recording errors. */
export async function inSpan<T>(name: string, attributes: Record<string, string | number | boolean>, work: (span: Span) => Promise<T>, parent?: Context): Promise<T> {
  if (!enabled) return work(trace.wrapSpanContext({ traceId: '', spanId: '', traceFlags: 0 }));
  return tracer().startActiveSpan(name, { attributes, kind: SpanKind.INTERNAL }, parent ?? context.active(), async (span) => {
    try {
      return await work(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** The active span's context as a W3C traceparent, for event metadata; undefined when not tracing. */
export function currentTraceParent(): string | undefined {
  if (!enabled) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** The context an event's metadata carries (ROOT when it carries none). */
export function contextFromTraceParent(traceParent: unknown): Context {
  if (typeof traceParent !== 'string') return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, { traceparent: traceParent });
}

/**
 * Records work that already happened (a projection batch, a reactor pass) as one span per event,
 * each a child of the event's own trace, with the batch's start and end times.
 */
export function recordEventSpans(
  name: string,
  events: Array<{ type: string; event_id: string; metadata: Record<string, unknown> }>,
  startedAt: number,
  attributes: Record<string, string | number | boolean> = {},
  error?: unknown,
): void {
  if (!enabled) return;
  const endedAt = Date.now();
  for (const event of events) {
    if (typeof event.metadata.trace_parent !== 'string') continue;
    const parent = contextFromTraceParent(event.metadata.trace_parent);
    const links: Link[] = [];
    const span = tracer().startSpan(
      `${name} ${event.type}`,
      { startTime: startedAt, kind: SpanKind.CONSUMER, attributes: { ...attributes, 'dojang.event_id': event.event_id, 'dojang.event_type': event.type }, links },
      parent,
    );
    if (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end(endedAt);
  }
}
