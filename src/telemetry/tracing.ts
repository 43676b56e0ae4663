/**
 * OpenTelemetry traces, off unless an OTLP endpoint is configured. Like OpenTelemetry's own global tracer provider,
 * the tracer is process-wide: `installTracing` sets it once at start, and every caller asks `tracer()` first, so
 * with tracing off a call site costs one branch and no span object is built. The span in force (the HTTP request's,
 * a model call's upstream exchange) travels in an AsyncLocalStorage of this module, never in a global context
 * manager, so nothing outside these files changes when tracing is on.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type TextMapGetter,
  type TextMapSetter,
  type Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';

export type { Span } from '@opentelemetry/api';

export interface TracingOptions {
  /** Where spans go: an OTLP/HTTP exporter in production, an in-memory one in tests. */
  exporter: SpanExporter;
  serviceName: string;
  /** The node id (several nodes) or host name, as `service.instance.id`. */
  instanceId: string;
  serviceVersion: string;
  /** Prompts and completions on model-call spans (`gen_ai.input.messages`, `gen_ai.output.messages`). */
  recordContent: boolean;
  /** Share of traces recorded where they start (default 1: all); a remote parent's decision is followed. */
  sampleRatio?: number;
  /** Export each span as it ends (tests) instead of in batches. */
  immediate?: boolean;
}

export interface TracingHandle {
  /** Exports what is buffered (tests read the exporter after it). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

interface State {
  tracer: Tracer;
  recordContent: boolean;
}

let state: State | null = null;
const current = new AsyncLocalStorage<Context>();
const propagator = new W3CTraceContextPropagator();

const headerGetter: TextMapGetter<Record<string, string | string[] | undefined>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key],
};
const headerSetter: TextMapSetter<Record<string, string>> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};

/** Starts exporting spans; the SDK is loaded only now, so a node without tracing never loads it. */
export async function installTracing(options: TracingOptions): Promise<TracingHandle> {
  const [
    { BasicTracerProvider, BatchSpanProcessor, SimpleSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler },
    { resourceFromAttributes },
  ] = await Promise.all([import('@opentelemetry/sdk-trace-base'), import('@opentelemetry/resources')]);
  const processor = options.immediate ? new SimpleSpanProcessor(options.exporter) : new BatchSpanProcessor(options.exporter);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      'service.name': options.serviceName,
      'service.version': options.serviceVersion,
      'service.instance.id': options.instanceId,
    }),
    spanProcessors: [processor],
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(options.sampleRatio ?? 1) }),
  });
  state = { tracer: provider.getTracer('switchyard', options.serviceVersion), recordContent: options.recordContent };
  return {
    flush: () => provider.forceFlush(),
    shutdown: async () => {
      state = null;
      await provider.shutdown();
    },
  };
}

/** The tracer when tracing is on; null (the one branch every call site takes) when off. */
export function tracer(): Tracer | null {
  return state?.tracer ?? null;
}

export function recordsContent(): boolean {
  return state?.recordContent === true;
}

/** The context in force here: the one entered by the request or call around this code, else the root. */
export function activeContext(): Context {
  return current.getStore() ?? ROOT_CONTEXT;
}

/** Runs `fn` with `span` as the span in force (its child spans and outbound `traceparent` come from it). */
export function withSpan<T>(span: Span | undefined, fn: () => T): T {
  if (span === undefined) return fn();
  return current.run(trace.setSpan(activeContext(), span), fn);
}

/** Makes `span` the span in force for the rest of this asynchronous flow (an HTTP request's hooks and handler). */
export function enterSpan(span: Span): void {
  current.enterWith(trace.setSpan(activeContext(), span));
}

/** The span in force, if any. */
export function activeSpan(): Span | undefined {
  return state === null ? undefined : trace.getSpan(activeContext());
}

/** A child of `parent` (default: the span in force). */
export function startSpan(
  name: string,
  options: { attributes?: Attributes; kind?: SpanKind; links?: Link[]; parent?: Context } = {},
): Span | undefined {
  const active = state?.tracer;
  if (active === undefined) return undefined;
  return active.startSpan(
    name,
    { attributes: options.attributes, kind: options.kind ?? SpanKind.INTERNAL, links: options.links },
    options.parent ?? activeContext(),
  );
}

/** The remote parent an inbound request names in `traceparent` / `tracestate` (W3C), or the root. */
export function extractContext(headers: Record<string, string | string[] | undefined>): Context {
  return propagator.extract(ROOT_CONTEXT, headers, headerGetter);
}

/**
 * `traceparent` (and `tracestate`) of the span in force, for an outbound request: toward the upstream, or to the
 * node a request is forwarded to. Undefined when tracing is off or no span is in force.
 */
export function traceHeaders(): Record<string, string> | undefined {
  if (state === null) return undefined;
  const context = current.getStore();
  if (context === undefined || trace.getSpan(context) === undefined) return undefined;
  const headers: Record<string, string> = {};
  propagator.inject(context, headers, headerSetter);
  return headers;
}

/**
 * Ends `span` as failed, naming the kind of failure only (an error's code or type): an error's message may quote
 * what an upstream answered, which is not the service's to copy into a trace backend.
 */
export function endFailed(span: Span, error: unknown): void {
  const type = error instanceof Error ? ((error as { code?: unknown }).code ?? error.name) : 'error';
  span.setStatus({ code: SpanStatusCode.ERROR, message: String(type) });
  span.setAttribute('error.type', String(type));
  span.end();
}

export { SpanKind, SpanStatusCode };
