/**
 * The inbound-protocol contract. Every protocol the gateway speaks (chat, responses, completions, messages) is a
 * folder with the same parts — `decode.ts` (request body and headers → normalized request), `encode.ts` (the whole
 * answer), `stream.ts` (the stream encoder), `errors.ts` (its error forms: the body answered before a stream, which
 * the `/v1` prefixes' error handlers render through http/error-render.ts, and the frames inside one, which its
 * stream encoder writes) and optionally a store hook — put together in its `index.ts` as one `InboundProtocol`.
 * `driver.ts` runs any of them.
 */
import type { Principal } from '../../accounts/principal.js';
import type { Meter } from '../../billing/meter.js';
import type { GatewayCall, GatewayOperation } from '../execute.js';
import type { NormalizedRequest, StreamPart } from '../normalized/index.js';
import type { Json } from './shared/decode-helpers.js';

export type RequestHeaders = Record<string, string | string[] | undefined>;

/** A decoded request: the normalized request of its (first) call, plus what the protocol keeps for encoding. */
export interface Decoded {
  request: NormalizedRequest;
  /** Who holds and settles the call in place of the service's meter (see `ExecuteOptions.meter`). */
  meter?: Meter;
}

/** What a decoder may read beside the body and headers: the caller, the request id and the route's path parameters. */
export interface DecodeInput {
  principal: Principal;
  requestId: string;
  params?: Record<string, unknown>;
}

export interface CallContext {
  principal: Principal;
  requestId: string;
  /** Wall-clock time when the call started (the `created` fields), from the service's clock. */
  nowMs: number;
  /** Starts one more metered call for the same caller (legacy completions: one call per prompt). */
  start(request: NormalizedRequest): Promise<GatewayCall>;
}

/** Writes one streamed call: text before the first part, per part, after the last. */
export interface StreamEncoder {
  opening(): string;
  /** Text for one part ('' when the part has no wire form); an `error` part becomes the protocol's in-stream error. */
  encode(part: StreamPart): string;
  /**
   * After one call's parts ended: text to write, and the next call of a batch (legacy completions) or none.
   * Absent for single-call protocols.
   */
  advance?(): Promise<{ text: string; next?: GatewayCall }>;
  /** Text after the last call (the end marker); a protocol that stores the answer first gives it asynchronously. */
  closing(): string | Promise<string>;
  /** The finished object to store, when the stream ended in a state worth storing. */
  result?(): Json | undefined;
}

export interface InboundProtocol<D extends Decoded = Decoded> {
  readonly operation: GatewayOperation;
  /**
   * Checks and converts the caller's body and headers; throws `AppError` (400/422/404) naming the field. A protocol
   * whose request is built from stored state (desktop chat: the conversation's context) decodes asynchronously.
   */
  decode(body: Json, headers: RequestHeaders, input: DecodeInput): D | Promise<D>;
  /** What a refused call (the execute step threw) is answered with instead of the refusal itself. */
  refused?(decoded: D, error: unknown): Promise<unknown>;
  /** The whole answer of a non-streaming call; an upstream failure is thrown as `AppError`. */
  collect(decoded: D, call: GatewayCall, context: CallContext): Promise<Json>;
  /** The encoder of a streamed call (chosen once per call: native relay or built from normalized parts). */
  stream(decoded: D, call: GatewayCall, context: CallContext): StreamEncoder;
  /** Keeps a finished answer (stored completions and responses); its failures are logged, never answered. */
  store?(decoded: D, result: Json, context: CallContext): Promise<void>;
}
