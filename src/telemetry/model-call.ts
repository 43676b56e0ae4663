/**
 * The span of one model call, named and attributed after the OpenTelemetry GenAI semantic conventions, with its
 * three steps as children: the hold (admission and the wallet hold), the upstream exchange (time to first token,
 * connect retries) and the settlement. `modelCallTrace` returns undefined when tracing is off, and every caller
 * holds the trace as optional, so an untraced call builds nothing.
 */
import { SpanKind, SpanStatusCode, type Context, type Link, type Span } from '@opentelemetry/api';
import { trace } from '@opentelemetry/api';
import { activeContext, activeSpan, endFailed, recordsContent, startSpan, withSpan } from './tracing.js';

/** GenAI `gen_ai.operation.name` of each gateway operation. */
const OPERATION_NAMES: Record<string, string> = {
  chat: 'chat',
  responses: 'chat',
  messages: 'chat',
  compact: 'chat',
  completions: 'text_completion',
  embeddings: 'embeddings',
};

export interface ModelCallStart {
  /** The service's operation (`chat`, `responses`, `messages`, `completions`, `compact`, `embeddings`). */
  operation: string;
  requestedModel: string;
  requestId: string;
  customerId?: number;
  /** Set for a model request of an agent turn: the span then sits under that turn's span. */
  turnParent?: Context;
  stream?: boolean;
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  /** The prompt, recorded only when the deployment opted in (`tracing.recordContent`). */
  input?: () => unknown;
}

export interface ModelCallUsage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens?: number;
  source?: string;
}

export class ModelCallTrace {
  private hold: Span | undefined;
  private upstream: Span | undefined;
  private settle: Span | undefined;
  private readonly startedMs = performance.now();
  private firstTokenSeen = false;
  private finishReasons: string[] = [];
  private output = '';

  constructor(private readonly span: Span) {}

  /** The hold: admission, rate limits and the wallet hold before anything is sent. */
  holdStarted(): void {
    this.hold = startSpan('switchyard.hold', { parent: this.context() });
  }

  holdEnded(error?: unknown): void {
    if (this.hold === undefined) return;
    if (error === undefined) this.hold.end();
    else endFailed(this.hold, error);
    this.hold = undefined;
  }

  /** The destination is known: the provider and the model the upstream is asked for. */
  routed(destination: { provider: { id: string; kind: string; baseUrl: string }; model: { id: string; upstreamModel: string } }): void {
    this.span.setAttributes({
      'gen_ai.provider.name': destination.provider.kind,
      'gen_ai.system': destination.provider.kind,
      'switchyard.provider': destination.provider.id,
      'switchyard.model': destination.model.id,
      'gen_ai.response.model': destination.model.upstreamModel,
    });
    this.upstream = startSpan('switchyard.upstream', {
      kind: SpanKind.CLIENT,
      parent: this.context(),
      attributes: { 'server.address': hostOf(destination.provider.baseUrl), 'gen_ai.provider.name': destination.provider.kind },
    });
  }

  /** Runs the upstream request with the exchange's span in force, so its `traceparent` names it. */
  inUpstream<T>(fn: () => T): T {
    return withSpan(this.upstream ?? this.span, fn);
  }

  /** A streamed part arrived (the first one is the time to first token). */
  part(part: { type: string; delta?: string; reason?: string }): void {
    if (!this.firstTokenSeen && part.type !== 'usage') {
      this.firstTokenSeen = true;
      const ms = performance.now() - this.startedMs;
      this.upstream?.addEvent('gen_ai.first_token');
      this.upstream?.setAttribute('switchyard.time_to_first_token_ms', Math.round(ms * 10) / 10);
    }
    if (part.type === 'finish' && part.reason !== undefined) this.finishReasons.push(part.reason);
    if (part.type === 'text-delta' && part.delta !== undefined && recordsContent()) this.output += part.delta;
  }

  /** The exchange ended (`completed`, `aborted` by the client, or `failed`); the settlement starts. */
  upstreamEnded(outcome: string, error?: unknown): void {
    if (this.upstream !== undefined) {
      this.upstream.setAttribute('switchyard.outcome', outcome);
      if (error !== undefined) endFailed(this.upstream, error);
      else {
        if (outcome === 'failed') this.upstream.setStatus({ code: SpanStatusCode.ERROR, message: 'the upstream stream failed' });
        this.upstream.end();
      }
      this.upstream = undefined;
    }
    this.settle = startSpan('switchyard.settle', { parent: this.context() });
  }

  /** The call's end: the settled usage and cost (undefined when the settlement failed). */
  end(outcome: string, usage: ModelCallUsage | undefined, costMicros: number | undefined): void {
    if (this.settle !== undefined) {
      if (costMicros !== undefined) this.settle.setAttribute('switchyard.cost_micros', costMicros);
      if (usage === undefined) this.settle.setStatus({ code: SpanStatusCode.ERROR, message: 'settling failed' });
      this.settle.end();
    }
    if (usage !== undefined) {
      this.span.setAttributes({
        'gen_ai.usage.input_tokens': usage.inputTokens,
        'gen_ai.usage.output_tokens': usage.outputTokens,
        ...(usage.cachedInputTokens ? { 'gen_ai.usage.cache_read.input_tokens': usage.cachedInputTokens } : {}),
        ...(usage.source ? { 'switchyard.usage_source': usage.source } : {}),
      });
    }
    if (costMicros !== undefined) this.span.setAttribute('switchyard.cost_micros', costMicros);
    if (this.finishReasons.length > 0) this.span.setAttribute('gen_ai.response.finish_reasons', this.finishReasons);
    if (this.output !== '')
      this.span.setAttribute(
        'gen_ai.output.messages',
        JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: this.output }] }]),
      );
    this.span.setAttribute('switchyard.outcome', outcome);
    if (outcome === 'failed') this.span.setStatus({ code: SpanStatusCode.ERROR, message: 'the model call failed' });
    this.span.end();
  }

  /** Refused or failed before the upstream answered (nothing was generated). */
  failed(error: unknown, outcome: string): void {
    this.holdEnded(error);
    if (this.upstream !== undefined) {
      endFailed(this.upstream, error);
      this.upstream = undefined;
    }
    this.span.setAttribute('switchyard.outcome', outcome);
    endFailed(this.span, error);
  }

  private context(): Context {
    return trace.setSpan(activeContext(), this.span);
  }
}

function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).host;
  } catch {
    return '';
  }
}

/** The trace of a model call about to start; undefined when tracing is off. */
export function modelCallTrace(start: ModelCallStart): ModelCallTrace | undefined {
  const links: Link[] = [];
  // An agent turn's model request sits under the turn; the HTTP request that carried it is linked.
  const request = start.turnParent === undefined ? undefined : activeSpan();
  if (request !== undefined) links.push({ context: request.spanContext() });
  const operationName = OPERATION_NAMES[start.operation] ?? start.operation;
  const span = startSpan(`${operationName} ${start.requestedModel}`, {
    kind: SpanKind.CLIENT,
    parent: start.turnParent,
    links,
    attributes: {
      'gen_ai.operation.name': operationName,
      'gen_ai.request.model': start.requestedModel,
      'switchyard.operation': start.operation,
      'switchyard.request_id': start.requestId,
      ...(start.customerId !== undefined ? { 'switchyard.customer_id': start.customerId } : {}),
      ...(start.stream !== undefined ? { 'switchyard.stream': start.stream } : {}),
      ...(start.maxOutputTokens !== undefined ? { 'gen_ai.request.max_tokens': start.maxOutputTokens } : {}),
      ...(start.temperature !== undefined ? { 'gen_ai.request.temperature': start.temperature } : {}),
      ...(start.topP !== undefined ? { 'gen_ai.request.top_p': start.topP } : {}),
    },
  });
  if (span === undefined) return undefined;
  if (start.input !== undefined && recordsContent()) span.setAttribute('gen_ai.input.messages', JSON.stringify(start.input()));
  return new ModelCallTrace(span);
}
