import {
  type Attributes,
  type Context,
  context,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import { logger } from "./logger";

/*
 * OpenTelemetry tracing across a request and the events it causes (docs/operations.md, "Tracing"). Off unless a
 * process starts it with an OTLP endpoint: until then the API's tracer is a no-op and every helper below costs
 * almost nothing. W3C trace context crosses each hop: HTTP headers (`traceparent`) between processes, the
 * `traceparent` column of outbox rows and webhook deliveries, and the field of the same name on bus events.
 */

const tracer = trace.getTracer("pos-cloud");
let started = false;

/** Whether this process started tracing: what costs even as a no-op (a wrapper per statement) is added only then. */
export const tracingOn = () => started;

export interface TracingSettings {
  /** The service as traces name it: `pos-cloud` embedded, `pos-cloud-edge`, `pos-cloud-payments`... in the cluster. */
  serviceName: string;
  /** The collector's OTLP/HTTP base URL (`OTEL_EXPORTER_OTLP_ENDPOINT`); spans go to `<endpoint>/v1/traces` as JSON. */
  endpoint: string;
}

export interface Tracing {
  /** Sends the spans ended so far. */
  flush(): Promise<void>;
  /** Sends what is left and stops tracing in this process. */
  shutdown(): Promise<void>;
}

/**
 * Registers this process's tracer provider: spans batched and exported by OTLP/HTTP (JSON), context kept across
 * `await` by AsyncLocalStorage, W3C trace context as the propagator. The SDK is loaded only here, when tracing is on.
 */
export async function startTracing(settings: TracingSettings): Promise<Tracing> {
  const [{ NodeTracerProvider }, { BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }] =
    await Promise.all([
      import("@opentelemetry/sdk-trace-node"),
      import("@opentelemetry/sdk-trace-base"),
      import("@opentelemetry/exporter-trace-otlp-http"),
      import("@opentelemetry/resources"),
    ]);
  const exporter = new OTLPTraceExporter({ url: `${settings.endpoint.replace(/\/$/, "")}/v1/traces` });
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": settings.serviceName }),
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 1000 })],
  });
  provider.register();
  started = true;
  logger.info("tracing on", { service: settings.serviceName, endpoint: settings.endpoint });
  return {
    flush: () => provider.forceFlush(),
    async shutdown() {
      await provider.shutdown();
      started = false;
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

/** Tracing as a process's configuration asks: on when an OTLP endpoint is set (its entry point calls this first). */
export const tracingFor = (serviceName: string, endpoint: string | undefined) =>
  endpoint ? startTracing({ serviceName, endpoint }) : Promise.resolve(undefined);

/** Runs `work` in a new span, child of the current one (or of `parent`), ended when it settles; failures recorded. */
export function inSpan<T>(
  name: string,
  options: { kind?: SpanKind; attributes?: Attributes; parent?: Context },
  work: (span: Span) => Promise<T>,
): Promise<T> {
  return tracer.startActiveSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes },
    options.parent ?? context.active(),
    async (span) => {
      try {
        return await work(span);
      } catch (error) {
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** The headers that carry the current trace to another process (`traceparent`, `tracestate`); none while off. */
export function traceHeaders(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

/** The current span's `traceparent`, to be stored with a row that a later hop picks up; null while tracing is off. */
export const currentTraceparent = (): string | null => traceHeaders().traceparent ?? null;

/** The trace context that incoming headers (or a stored `traceparent`) carry, for the span that continues it. */
export function traceContextOf(headers: Record<string, string | string[] | undefined> | string | null | undefined) {
  const carrier = typeof headers === "string" ? { traceparent: headers } : (headers ?? {});
  return propagation.extract(context.active(), carrier);
}

/** Handles an event from the bus in a consumer span of the trace its publish carried. */
export const inEventSpan = <T>(
  consumer: string,
  event: { id: string; event_type: string; traceparent?: string | null },
  work: () => Promise<T>,
) =>
  inSpan(
    `${consumer} ${event.event_type}`,
    {
      kind: SpanKind.CONSUMER,
      parent: traceContextOf(event.traceparent),
      attributes: { "messaging.message.id": event.id, "messaging.consumer.group.name": consumer },
    },
    work,
  );

export { SpanKind };
