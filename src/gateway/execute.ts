/**
 * The one function every protocol calls to run a model call.
 *
 * How a protocol uses it:
 *   1. decode the inbound body into a `NormalizedRequest` (for Responses also set `request.native` to the body);
 *   2. `const call = await execute(deps, { principal, request, operation, requestId, signal })`, where `signal`
 *      aborts when the client goes away. It throws `AppError` (rendered by app.ts in the caller's protocol)
 *      for anything that happens before the upstream answered 200: unknown model (404), a missing tool result
 *      or an image/tool the destination cannot take (400), billing refusals (402/403/429), upstream 429/5xx,
 *      timeout or refused connection (429/502/503, always with Retry-After);
 *   3. only then commit the response (status 200, SSE headers) and `for await (const part of call.parts)`,
 *      encoding each part in the caller's protocol. An `error` part means the upstream failed after 200: write
 *      the protocol-native error event and end. `call.native` says whether `native-event` parts carry a faithful
 *      Responses stream (Responses-capable destination) that the Responses protocol writes instead.
 *   A protocol must always iterate `call.parts` (or call `return()` on it): settlement happens in its `finally`.
 *
 * Routing resolves the alias twice: before billing admission (which needs a model) and again immediately before
 * the upstream call, so an alias switched while a request waited takes effect for it.
 *
 * Metering: `meter.begin` before the upstream call; `settle` exactly once in `finally` on every exit (done,
 * client abort, upstream error, timeout) with the upstream's usage, or a tokenizer estimate marked `estimated`.
 * The parts end without waiting for the settlement's commit (it is journaled first; see billing/settlement-journal.ts).
 */
import type { Logger } from 'pino';
import type { Principal } from '../accounts/principal.js';
import type { Meter, MeteredCall, MeteredUsage, SettleOutcome } from '../billing/meter.js';
import { AppError } from '../kernel/errors.js';
import type { GatewayMetrics, UpstreamCallProbe } from '../metrics/recorder.js';
import type { CallsInFlight } from './calls-in-flight.js';
import { checkCapabilities, checkToolResults, hostedToolsFor } from './checks.js';
import { anthropicSetAside } from './providers/anthropic/set-aside.js';
import { streamFailurePart } from './providers/shared/stream-failure.js';
import type { Destination, NormalizedRequest, ProviderAdapter, StreamPart, Usage } from './normalized/index.js';
import { UpstreamError, droppedFieldsOf, mergeUsage, nativeStructuredOutput } from './normalized/index.js';
import { countInputTokens, countTextTokens, estimateInputTokensUpperBound, inputSizeOf, type InputSize } from './tokens.js';
import type { CallSignal } from './normalized/index.js';

const NOTHING_CONSUMED: MeteredUsage = { inputTokens: 0, outputTokens: 0, source: 'estimated' };

export type GatewayOperation = 'chat' | 'responses' | 'completions' | 'messages' | 'compact';

export interface Routing {
  /** The destination for a model id or alias at this moment; undefined when the name is unknown. */
  resolve(name: string): Destination | undefined;
  adapterFor(destination: Destination): ProviderAdapter;
}

export interface ExecuteDeps {
  routing: Routing;
  meter: Meter;
  logger: Logger;
  /** Output tokens reserved when the request names no maximum. */
  defaultMaxOutputTokens: number;
  /** Every call between its hold and its settlement (shutdown waits for them). */
  calls: CallsInFlight;
  /** Upstream call counts, latency, time to first part, tokens and micro-USD billed. */
  metrics?: GatewayMetrics;
}

export interface ExecuteOptions {
  principal: Principal;
  request: NormalizedRequest;
  operation: GatewayOperation;
  requestId: string;
  signal: CallSignal;
  /** The request's Host header (billing recognises VIP servers by host name). */
  host?: string;
}

export interface Dropped {
  /** Hosted tools the destination does not run (`web_search`). */
  tools: string[];
  /** Request fields the translation to the destination's protocol could not carry (see normalized/field-fates.ts). */
  fields: string[];
}

export interface GatewayCall {
  destination: Destination;
  /** The request's input size, for protocols that show an input estimate before the upstream reports usage. */
  inputSize: InputSize;
  /** `native-event` parts carry the upstream's own stream (its protocol is the caller's). */
  native: boolean;
  /** What the destination does not take and the call went on without (named in response headers). */
  dropped: Dropped;
  parts: AsyncGenerator<StreamPart, void, undefined>;
}

/** The destination of a model id or alias, or the 404 every protocol answers for an unknown model. */
export function resolveModel(routing: Routing, model: string): Destination {
  const destination = routing.resolve(model);
  if (!destination) {
    throw new AppError('NOT_FOUND', `The model ${model} does not exist or you do not have access to it`, {
      details: { param: 'model', code: 'model_not_found' },
    });
  }
  return destination;
}

function resolveOrThrow(routing: Routing, request: NormalizedRequest, agentTurn: boolean): Destination {
  const destination = resolveModel(routing, request.model);
  checkCapabilities(destination, request);
  hostedToolsFor(destination, request, { agentTurn, native: isNative(destination, request) });
  return destination;
}

function isNative(destination: Destination, request: NormalizedRequest): boolean {
  if (request.native?.protocol === 'openai-responses')
    return destination.provider.kind === 'openai' && destination.model.capabilities.responsesApi;
  if (request.native?.protocol === 'anthropic-messages') return destination.provider.kind === 'anthropic';
  // Chat to an OpenAI-kind model, unless its structured output is emulated with a forced tool (a translation).
  if (request.native?.protocol === 'openai-chat')
    return destination.provider.kind === 'openai' && (request.responseFormat === undefined || nativeStructuredOutput(destination));
  return false;
}

export async function execute(deps: ExecuteDeps, options: ExecuteOptions): Promise<GatewayCall> {
  const { signal } = options;
  let request = options.request;
  checkToolResults(request);
  // A model request of an agent turn: its principal is the key that started the turn (see accounts/turn-principals.ts).
  const agentTurn =
    options.principal.kind === 'customer' && (options.principal.agentTurn !== undefined || options.principal.policy.agentRuntime === true);
  const admitted = resolveOrThrow(deps.routing, request, agentTurn);
  const inputSize = inputSizeOf(request);
  const metered = await deps.meter.begin({
    principal: options.principal,
    requestedModel: request.model,
    modelId: admitted.model.id,
    operation: options.operation,
    estimatedInputTokens: estimateInputTokensUpperBound(inputSize),
    maxOutputTokens: Math.min(request.maxOutputTokens ?? deps.defaultMaxOutputTokens, admitted.model.capabilities.maxOutputTokens),
    requestId: options.requestId,
    surface: agentTurn ? 'projects' : 'gateway',
    host: options.host,
  });
  const leave = deps.calls.enter();
  const probe = deps.metrics?.upstreamCall(admitted.provider.id, admitted.model.id);
  let destination: Destination;
  let upstream: AsyncIterable<StreamPart>;
  let native = false;
  let dropped: Dropped = { tools: [], fields: [] };
  try {
    destination = resolveOrThrow(deps.routing, request, agentTurn);
    native = isNative(destination, request);
    const hosted = hostedToolsFor(destination, request, { agentTurn, native });
    request = hosted.request;
    const setAside = !native && destination.provider.kind === 'anthropic' ? anthropicSetAside(request, destination) : [];
    dropped = { tools: hosted.dropped, fields: [...droppedFieldsOf(request, destination, native), ...setAside] };
    if (dropped.tools.length > 0 || dropped.fields.length > 0)
      deps.logger.info(
        { requestId: options.requestId, model: destination.model.id, dropped },
        'model call sent without what its destination does not take',
      );
    if (!native && request.nativeOnly?.length) {
      const speaks = {
        'anthropic-messages': 'an Anthropic-kind model',
        'openai-chat': 'an OpenAI-kind model',
        'openai-responses': 'a model that speaks the Responses API natively',
      }[request.native?.protocol ?? 'openai-responses'];
      throw new AppError('BAD_REQUEST', `${request.nativeOnly.join(', ')}: only ${speaks} accepts this; ${request.model} does not`, {
        details: {
          param: { 'anthropic-messages': 'messages', 'openai-chat': 'messages', 'openai-responses': 'input' }[
            request.native?.protocol ?? 'openai-responses'
          ],
        },
      });
    }
    if (signal.aborted) throw new AppError('BAD_REQUEST', 'The client closed the request');
    upstream = await deps.routing.adapterFor(destination).stream({ request, destination, native, signal, requestId: options.requestId });
  } catch (error) {
    // Nothing was generated: the request was refused here, never sent, or answered with an error status.
    await settleQuietly(deps.logger, metered, NOTHING_CONSUMED, signal.aborted ? 'aborted' : 'failed', options.requestId);
    probe?.end(signal.aborted ? 'aborted' : 'failed');
    leave();
    // The caller left before the upstream answered: nobody reads this, and it is not a server failure.
    if (signal.aborted) throw new AppError('BAD_REQUEST', 'The client closed the request');
    throw error instanceof UpstreamError ? error.toAppError() : error;
  }
  const tracker = new UsageTracker(request);
  const abandoned = { value: false };
  const parts = meteredParts(deps.logger, upstream, { metered, tracker, signal, requestId: options.requestId, leave, abandoned, probe });
  return { destination, inputSize, native, dropped, parts: new SettledOnClose(parts, signal, abandoned) };
}

/**
 * The call's parts, settled however the consumer ends them. `return()` on an async generator that never started
 * skips its `finally`, so a consumer that gave up before reading a part (a client gone after an echo frame) would
 * leave the hold open; here closing an unstarted call runs it to its end without yielding, which closes the
 * upstream request and settles (outcome `aborted`, nothing consumed). The client-disconnect signal is the backstop
 * for a consumer that never closes at all.
 */
class SettledOnClose implements AsyncGenerator<StreamPart, void, undefined> {
  private started = false;
  private closing: Promise<IteratorResult<StreamPart, void>> | null = null;

  constructor(
    private readonly inner: AsyncGenerator<StreamPart, void, undefined>,
    signal: CallSignal,
    private readonly abandoned: { value: boolean },
  ) {
    // The client may have left while the upstream was being reached (listeners added now would never fire).
    if (signal.aborted) void this.return(undefined);
    else
      signal.addEventListener('abort', () => {
        if (!this.started) void this.return(undefined);
      });
  }

  next(): Promise<IteratorResult<StreamPart, void>> {
    this.started = true;
    return this.inner.next();
  }

  return(value: void | PromiseLike<void>): Promise<IteratorResult<StreamPart, void>> {
    if (this.started) return this.inner.return(value);
    // A first next() enters the generator; it sees the call as aborted (or reads one part), then return() ends it.
    this.closing ??= this.startAndEnd();
    return this.closing;
  }

  throw(error: unknown): Promise<IteratorResult<StreamPart, void>> {
    if (this.started) return this.inner.throw(error);
    return this.return(undefined);
  }

  [Symbol.asyncIterator](): AsyncGenerator<StreamPart, void, undefined> {
    return this;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.return(undefined);
  }

  private async startAndEnd(): Promise<IteratorResult<StreamPart, void>> {
    this.started = true;
    this.abandoned.value = true;
    // Runs the generator to its end without yielding: it sees `abandoned`, closes the upstream and settles.
    await this.inner.next().catch(() => undefined);
    return { done: true, value: undefined };
  }
}

async function* meteredParts(
  logger: Logger,
  upstream: AsyncIterable<StreamPart>,
  context: {
    metered: MeteredCall;
    tracker: UsageTracker;
    signal: CallSignal;
    requestId: string;
    leave: () => void;
    abandoned: { value: boolean };
    probe?: UpstreamCallProbe;
  },
): AsyncGenerator<StreamPart, void, undefined> {
  let outcome: 'completed' | 'aborted' | 'failed' = 'failed';
  try {
    for await (const part of upstream) {
      // Closed before its first part was read: the consumer took nothing (leaving the loop closes the upstream).
      if (context.abandoned.value) break;
      context.probe?.firstPart();
      context.tracker.observe(part);
      if (part.type === 'finish') outcome = 'completed';
      if (part.type === 'error') outcome = 'failed';
      yield part;
    }
  } catch (error) {
    // Only the upstream iteration throws here (the consumer's own errors arrive through return(), not throw).
    outcome = 'failed';
    const failure = streamFailurePart(error, context.signal);
    if (failure) yield failure;
  } finally {
    if ((context.signal.aborted || context.abandoned.value) && outcome !== 'completed') outcome = 'aborted';
    const usage = context.abandoned.value ? NOTHING_CONSUMED : await context.tracker.final();
    // The answer's end does not wait for the settlement: the settlement is journaled now (settle() writes its line
    // before returning) and commits with the next group commit; the call stays in flight until it has.
    void settleQuietly(logger, context.metered, usage, outcome, context.requestId).then((settled) => {
      context.probe?.end(
        outcome,
        settled && { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, costMicros: settled.costMicros },
      );
      context.leave();
    });
  }
}

async function settleQuietly(
  logger: Logger,
  metered: MeteredCall,
  usage: MeteredUsage,
  status: 'completed' | 'aborted' | 'failed',
  requestId: string,
): Promise<SettleOutcome | undefined> {
  try {
    return await metered.settle(usage, status);
  } catch (error) {
    logger.error({ err: error, requestId }, 'settling a metered call failed');
    return undefined;
  }
}

/** Collects what the upstream reported, and what was streamed, so settlement always has a figure. */
class UsageTracker {
  private usage: Usage | undefined;
  private streamedText = '';
  private streamedAny = false;

  constructor(private readonly request: NormalizedRequest) {}

  observe(part: StreamPart): void {
    switch (part.type) {
      case 'usage':
        this.usage = mergeUsage(this.usage, part.usage);
        break;
      case 'text-delta':
      case 'reasoning-delta':
      case 'tool-call-delta':
        this.streamedAny = true;
        // What an estimate counts if the upstream never reports its final output figure (client abort).
        this.streamedText += part.delta;
        break;
      case 'tool-call-start':
        this.streamedAny = true;
        this.streamedText += part.name;
        break;
      default:
        break;
    }
  }

  async final(): Promise<MeteredUsage> {
    if (this.usage && (this.usage.outputTokens > 0 || !this.streamedAny)) {
      return {
        inputTokens: this.usage.inputTokens,
        outputTokens: this.usage.outputTokens,
        cachedInputTokens: this.usage.cachedInputTokens,
        cacheWriteTokens: this.usage.cacheWriteInputTokens,
        cacheWrite1hTokens: this.usage.cacheWrite1hInputTokens,
        source: 'upstream',
      };
    }
    const inputTokens = this.usage?.inputTokens || (await countInputTokens(this.request));
    const outputTokens = Math.max(await countTextTokens(this.streamedText), this.streamedAny ? 1 : 0);
    return { inputTokens, outputTokens, source: 'estimated' };
  }
}
