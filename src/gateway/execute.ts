/**
 * The metered model call. The driver (protocols/driver.ts) is its only caller; every protocol and every other model
 * call of the service goes through the driver.
 *
 * How the driver uses it:
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
 * Metering: `meter.begin` (the service's meter, or the call's own `options.meter`) before the upstream call;
 * `settle` exactly once in `finally` on every exit (done, client abort, upstream error, timeout) with the upstream's
 * usage, or a tokenizer estimate marked `estimated`. The parts end without waiting for the settlement's commit (it
 * is journaled first; see billing/settlement-journal.ts). `executeWhole` takes the same steps for a call answered
 * whole (embeddings).
 */
import type { Logger } from 'pino';
import type { Principal } from '../accounts/principal.js';
import type { CallNotes } from '../billing/call-notes.js';
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
import { modelCallTrace, tracer, turnContext, type ModelCallTrace } from '../telemetry/index.js';

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
  /** Where a call's dropped tool and field names are kept beside its billing record. */
  notes?: CallNotes;
}

export interface ExecuteOptions {
  principal: Principal;
  request: NormalizedRequest;
  operation: GatewayOperation;
  requestId: string;
  /** The client's own request id (its x-request-id), recorded with the call. */
  clientRequestId?: string;
  signal: CallSignal;
  /** The request's Host header (billing recognises VIP servers by host name). */
  host?: string;
  /** Who holds and settles the call in place of the service's meter (a desktop chat's free daily quota). */
  meter?: Meter;
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
  checkToolResults(options.request);
  // A model request of an agent turn: its principal is the key that started the turn (see accounts/turn-principals.ts).
  const agentTurn =
    options.principal.kind === 'customer' && (options.principal.agentTurn !== undefined || options.principal.policy.agentRuntime === true);
  const admitted = resolveOrThrow(deps.routing, options.request, agentTurn);
  const inputSize = inputSizeOf(options.request);
  // Tracing off: one branch, no span objects.
  const traced = tracer() === null ? undefined : startTrace(options, agentTurn);
  traced?.holdStarted();
  const admission = admissionOf(deps, options, admitted, agentTurn, inputSize);
  const meter = options.meter ?? deps.meter;
  const metered = traced === undefined ? await meter.begin(admission) : await beginMetered(traced, () => meter.begin(admission));
  const refusal = refusalOf(metered);
  const leave = deps.calls.enter();
  const probe = deps.metrics?.upstreamCall(admitted.provider.id, admitted.model.id);
  let sent: Sent;
  try {
    sent = await send(deps, options, agentTurn, traced);
  } catch (error) {
    // Nothing was generated: the request was refused here, never sent, or answered with an error status.
    await settleQuietly(deps.logger, metered, NOTHING_CONSUMED, signal.aborted ? 'aborted' : 'failed', options.requestId);
    probe?.end(signal.aborted ? 'aborted' : 'failed');
    traced?.failed(error, signal.aborted ? 'aborted' : 'failed');
    leave();
    // A call its hold refused was never allowed: the refusal is the answer, whatever the upstream said.
    const refused = refusal && (await refusal);
    if (refused) throw refused;
    // The caller left before the upstream answered: nobody reads this, and it is not a server failure.
    if (signal.aborted) throw new AppError('BAD_REQUEST', 'The client closed the request');
    throw error instanceof UpstreamError ? error.toAppError() : error;
  }
  const tracker = new UsageTracker(sent.request);
  const abandoned = { value: false };
  const parts = meteredParts(deps.logger, sent.upstream, {
    metered,
    tracker,
    signal,
    requestId: options.requestId,
    leave,
    abandoned,
    probe,
    traced,
  });
  const { destination, native, dropped } = sent;
  const call = { destination, inputSize, native, dropped, parts: new SettledOnClose(parts, signal, abandoned) };
  // An early hold: the upstream request went out while it committed; nothing of the answer leaves before it has.
  const refused = refusal && (await refusal);
  if (refused) {
    // Closed unread: the upstream request ends and the call settles owing nothing.
    await call.parts.return(undefined);
    throw refused;
  }
  return call;
}

/** An early hold's refusal (null once committed), observed at once so a refusal is never an unhandled rejection. */
function refusalOf(metered: MeteredCall): Promise<unknown> | null {
  return metered.confirmed
    ? metered.confirmed.then(
        () => null,
        (error: unknown) => error ?? new Error('hold refused'),
      )
    : null;
}

function admissionOf(
  deps: ExecuteDeps,
  options: ExecuteOptions,
  admitted: Destination,
  agentTurn: boolean,
  inputSize: InputSize,
): Parameters<Meter['begin']>[0] {
  const request = options.request;
  return {
    principal: options.principal,
    requestedModel: request.model,
    modelId: admitted.model.id,
    operation: options.operation,
    estimatedInputTokens: estimateInputTokensUpperBound(inputSize),
    maxOutputTokens: Math.min(request.maxOutputTokens ?? deps.defaultMaxOutputTokens, admitted.model.capabilities.maxOutputTokens),
    requestId: options.requestId,
    clientRequestId: options.clientRequestId,
    surface: agentTurn ? 'projects' : 'gateway',
    host: options.host,
  };
}

/** What was sent upstream: the request as sent (hosted tools resolved), where, and the upstream's answer. */
interface Sent {
  request: NormalizedRequest;
  destination: Destination;
  native: boolean;
  dropped: Dropped;
  upstream: AsyncIterable<StreamPart>;
}

/** Routes the request again (an alias may have switched while the hold was taken) and sends it upstream. */
async function send(deps: ExecuteDeps, options: ExecuteOptions, agentTurn: boolean, traced: ModelCallTrace | undefined): Promise<Sent> {
  const destination = resolveOrThrow(deps.routing, options.request, agentTurn);
  const native = isNative(destination, options.request);
  traced?.routed(destination);
  const hosted = hostedToolsFor(destination, options.request, { agentTurn, native });
  const request = hosted.request;
  const setAside = !native && destination.provider.kind === 'anthropic' ? anthropicSetAside(request, destination) : [];
  const dropped: Dropped = { tools: hosted.dropped, fields: [...droppedFieldsOf(request, destination, native), ...setAside] };
  if (dropped.tools.length > 0 || dropped.fields.length > 0) {
    deps.logger.info(
      { requestId: options.requestId, model: destination.model.id, dropped },
      'model call sent without what its destination does not take',
    );
    if (options.principal.kind === 'customer') deps.notes?.record(options.principal.customerId, options.requestId, dropped);
  }
  if (!native && request.nativeOnly?.length) throw nativeOnlyRefusal(request);
  if (options.signal.aborted) throw new AppError('BAD_REQUEST', 'The client closed the request');
  const adapter = deps.routing.adapterFor(destination);
  const sending = { request, destination, native, signal: options.signal, requestId: options.requestId };
  const upstream = await (traced ? traced.inUpstream(() => adapter.stream(sending)) : adapter.stream(sending));
  return { request, destination, native, dropped, upstream };
}

/** Fields only the request's own protocol carries, sent to a destination that does not speak it. */
function nativeOnlyRefusal(request: NormalizedRequest): AppError {
  const protocol = request.native?.protocol ?? 'openai-responses';
  const speaks = {
    'anthropic-messages': 'an Anthropic-kind model',
    'openai-chat': 'an OpenAI-kind model',
    'openai-responses': 'a model that speaks the Responses API natively',
  }[protocol];
  return new AppError('BAD_REQUEST', `${request.nativeOnly!.join(', ')}: only ${speaks} accepts this; ${request.model} does not`, {
    details: { param: { 'anthropic-messages': 'messages', 'openai-chat': 'messages', 'openai-responses': 'input' }[protocol] },
  });
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
    traced?: ModelCallTrace;
  },
): AsyncGenerator<StreamPart, void, undefined> {
  let outcome: 'completed' | 'aborted' | 'failed' = 'failed';
  try {
    for await (const part of upstream) {
      // Closed before its first part was read: the consumer took nothing (leaving the loop closes the upstream).
      if (context.abandoned.value) break;
      context.probe?.firstPart();
      context.tracker.observe(part);
      context.traced?.part(part as { type: string; delta?: string; reason?: string });
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
    context.traced?.upstreamEnded(outcome);
    const usage = context.abandoned.value ? NOTHING_CONSUMED : await context.tracker.final();
    // The answer's end does not wait for the settlement: the settlement is journaled now (settle() writes its line
    // before returning) and commits with the next group commit; the call stays in flight until it has.
    void settleQuietly(logger, context.metered, usage, outcome, context.requestId).then((settled) => {
      context.probe?.end(
        outcome,
        settled && { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, costMicros: settled.costMicros },
      );
      context.traced?.end(outcome, settled && usage, settled?.costMicros);
      context.leave();
    });
  }
}

/** A model call answered whole (embeddings): its hold, and the upstream request with the usage it reports. */
export interface WholeCall<T> {
  admission: Parameters<Meter['begin']>[0];
  signal: CallSignal;
  traced?: ModelCallTrace;
  run(): Promise<{ result: T; usage: MeteredUsage }>;
}

/**
 * A metered call answered whole (embeddings), with the steps `execute` takes around a stream: the hold (its span
 * ended either way), the call in flight, and one settlement after `run` — with the usage it reported, or nothing
 * consumed when it threw. The answer does not wait for the settlement's commit (journaled by settle()).
 */
export async function executeWhole<T>(deps: Pick<ExecuteDeps, 'meter' | 'logger' | 'calls'>, call: WholeCall<T>): Promise<T> {
  const { traced, admission, run } = call;
  const options = { signal: call.signal, requestId: admission.requestId };
  traced?.holdStarted();
  const metered = await beginMetered(traced, () => deps.meter.begin(admission));
  const refusal = refusalOf(metered);
  const leave = deps.calls.enter();
  let usage = NOTHING_CONSUMED;
  let status: 'completed' | 'aborted' | 'failed' = 'failed';
  try {
    const done = await run();
    const refused = refusal && (await refusal);
    // Refused after the upstream answered: the answer is not given, and its usage is not charged (nothing was held).
    if (refused) throw refused;
    usage = done.usage;
    status = 'completed';
    return done.result;
  } catch (error) {
    if (options.signal.aborted) status = 'aborted';
    throw error instanceof UpstreamError ? error.toAppError() : error;
  } finally {
    traced?.upstreamEnded(status);
    void settleQuietly(deps.logger, metered, usage, status, options.requestId)
      .then((settled) => traced?.end(status, settled && usage, settled?.costMicros))
      .finally(leave);
  }
}

/** The model call's span, under the agent turn it belongs to when it is one's (see telemetry/agent-turns.ts). */
function startTrace(options: ExecuteOptions, agentTurn: boolean): ModelCallTrace | undefined {
  const principal = options.principal;
  const request = options.request;
  return modelCallTrace({
    operation: options.operation,
    requestedModel: request.model,
    requestId: options.requestId,
    customerId: principal.kind === 'customer' ? principal.customerId : undefined,
    turnParent: agentTurn && principal.kind === 'customer' ? turnContext(principal.agentTurn?.threadId) : undefined,
    stream: request.stream,
    maxOutputTokens: request.maxOutputTokens,
    temperature: request.temperature,
    topP: request.topP,
    input: () => ({ system: request.system, messages: request.messages }),
  });
}

/** The hold, its span ended either way (a refusal ends the whole call's span). */
async function beginMetered(traced: ModelCallTrace | undefined, begin: () => Promise<MeteredCall>): Promise<MeteredCall> {
  if (traced === undefined) return begin();
  try {
    const metered = await begin();
    traced.holdEnded();
    return metered;
  } catch (error) {
    traced.failed(error, 'refused');
    throw error;
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
