/**
 * The one model-call driver, the only caller of `execute` (gateway/execute.ts). Two entries:
 * - `drive`: decode → execute → stream or collect → store, for every inbound protocol (the four `/v1` protocols and
 *   desktop chat). Pre-stream failures are thrown (`AppError`) for the route's error handler; once the stream is
 *   open, failures are the encoder's in-stream error frames.
 * - `collect`: one call run to a result by code that is not a route (background responses, compaction, research).
 * - `embed` (of the driver `createDriver` builds): an embeddings call, answered whole.
 * Either way the call's parts are closed in `finally` on every exit (done, client gone, encoder, fold or store
 * failure), which settles its hold whatever state it was in (see execute.ts).
 */
import type { Logger } from 'pino';
import type { Principal } from '../../accounts/principal.js';
import type { Clock } from '../../kernel/clock.js';
import { embeddingsCall, type EmbeddingsOptions } from '../embeddings.js';
import { execute, executeWhole, type ExecuteDeps, type ExecuteOptions, type GatewayCall } from '../execute.js';
import type { CallSignal, NormalizedRequest } from '../normalized/index.js';
import type { CallContext, Decoded, InboundProtocol, RequestHeaders } from './contract.js';
import type { Json } from './shared/decode-helpers.js';

export interface DriverDeps {
  execute(options: ExecuteOptions): Promise<GatewayCall>;
  clock: Clock;
  logger: Logger;
}

/** The service's driver: streamed model calls and embeddings calls, held and settled by execute.ts. */
export interface Driver extends DriverDeps {
  /** `POST /v1/embeddings` (gateway/embeddings.ts): checked and resolved there, held, sent and settled here. */
  embed(options: EmbeddingsOptions): Promise<Json>;
}

/** The driver of the service's gateway: its calls run through `execute` with these deps. */
export function createDriver(executeDeps: ExecuteDeps, clock: Clock, logger: Logger): Driver {
  return {
    execute: (options) => execute(executeDeps, options),
    embed: async (options) => executeWhole(executeDeps, await embeddingsCall(executeDeps.routing, options)),
    clock,
    logger,
  };
}

/**
 * Runs one model call and folds its parts into a result (`fold` may stop reading early); the parts are closed in
 * `finally`, so the call settles however `fold` ended. A refusal before the upstream answered is thrown as is.
 */
export async function collect<T>(
  deps: Pick<DriverDeps, 'execute'>,
  options: ExecuteOptions,
  fold: (call: GatewayCall) => Promise<T>,
): Promise<T> {
  const call = await deps.execute(options);
  try {
    return await fold(call);
  } finally {
    await call.parts.return(undefined);
  }
}

export interface DriveInput {
  principal: Principal;
  body: Json;
  headers: RequestHeaders;
  requestId: string;
  /** The client's own request id (its x-request-id), recorded with the call. */
  clientRequestId?: string;
  /** Fires when the client goes away. */
  signal: CallSignal;
  host?: string;
  /** The route's path parameters (a protocol that decodes from stored state reads its ids there). */
  params?: Record<string, unknown>;
  /** Sets headers on a JSON answer (the dropped tools and fields); a stream gets them from `openStream`. */
  answerHeaders?(headers: Record<string, string>): void;
}

/** Most names one header lists; the rest are counted (`... and N more`), so a body of made-up fields stays small. */
const MAX_HEADER_NAMES = 64;

/**
 * One header value naming `names`: a name is the caller's own field name, so anything outside visible ASCII (or a
 * comma, which separates the list) is percent-encoded, and a header can never carry a character HTTP refuses.
 */
export function headerList(names: readonly string[]): string {
  const safe = names
    .slice(0, MAX_HEADER_NAMES)
    .map((name) => (/^[\x21-\x2b\x2d-\x7e]+$/.test(name) ? name : encodeURIComponent(name) || '""'));
  const rest = names.length - safe.length;
  return rest > 0 ? `${safe.join(', ')}, ... and ${rest} more` : safe.join(', ');
}

/** The response headers naming what the call's destination did not take (absent when nothing was dropped). */
export function droppedHeaders(call: GatewayCall): Record<string, string> {
  const headers: Record<string, string> = {};
  if (call.dropped.tools.length > 0) headers['x-switchyard-dropped-tools'] = headerList(call.dropped.tools);
  if (call.dropped.fields.length > 0) headers['x-switchyard-dropped-fields'] = headerList(call.dropped.fields);
  return headers;
}

/** Where a streamed answer goes (the HTTP layer's SSE writer). Opened only once the upstream answered. */
export interface StreamSink {
  readonly closed: boolean;
  write(text: string): Promise<void>;
  end(): void;
}

/** The JSON answer of a non-streaming call; undefined when the answer was streamed into the sink. */
export async function drive<D extends Decoded>(
  deps: DriverDeps,
  protocol: InboundProtocol<D>,
  input: DriveInput,
  openStream: (headers: Record<string, string>) => StreamSink,
): Promise<Json | undefined> {
  const decoded = await protocol.decode(input.body, input.headers, input);
  const start = (request: NormalizedRequest): Promise<GatewayCall> =>
    deps.execute({
      principal: input.principal,
      request,
      operation: protocol.operation,
      requestId: input.requestId,
      clientRequestId: input.clientRequestId,
      signal: input.signal,
      host: input.host,
      meter: decoded.meter,
    });
  const context: CallContext = { principal: input.principal, requestId: input.requestId, nowMs: deps.clock.nowMs(), start };
  let call: GatewayCall | undefined = await start(decoded.request).catch(async (error: unknown) => {
    throw protocol.refused ? await protocol.refused(decoded, error) : error;
  });
  try {
    const headers = droppedHeaders(call);
    if (!decoded.request.stream) {
      input.answerHeaders?.(headers);
      const result = await protocol.collect(decoded, call, context);
      await store(deps, protocol, decoded, result, context);
      return result;
    }
    const encoder = protocol.stream(decoded, call, context);
    const sink = openStream(headers);
    try {
      await sink.write(encoder.opening());
      while (call) {
        const parts: GatewayCall['parts'] = call.parts;
        for await (const part of parts) await sink.write(encoder.encode(part));
        if (!encoder.advance || sink.closed) break;
        await parts.return(undefined);
        const after = await encoder.advance();
        call = after.next;
        await sink.write(after.text);
      }
      await sink.write(await encoder.closing());
    } finally {
      sink.end();
    }
    const result = encoder.result?.();
    if (result) await store(deps, protocol, decoded, result, context);
    return undefined;
  } finally {
    await call?.parts.return(undefined);
  }
}

async function store<D extends Decoded>(
  deps: DriverDeps,
  protocol: InboundProtocol<D>,
  decoded: D,
  result: Json,
  context: CallContext,
): Promise<void> {
  if (!protocol.store) return;
  try {
    await protocol.store(decoded, result, context);
  } catch (error) {
    deps.logger.error({ err: error, requestId: context.requestId }, `storing a ${protocol.operation} result failed`);
  }
}
