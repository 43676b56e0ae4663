/**
 * The contract every provider adapter keeps (providers/openai, providers/anthropic). `stream` resolves once the
 * upstream answered 2xx, or rejects with an `UpstreamError` (never anything else) before any part exists. After
 * that, the upstream's own failures arrive as an `error` part; a broken connection, a timeout or unreadable data
 * may instead throw from the iteration, and execute.ts turns that into one `error` part (streamFailurePart).
 * Aborting `signal` closes the upstream socket.
 */
import type { Destination } from './destination.js';
import type { NormalizedRequest } from './request.js';
import type { StreamPart } from './stream-parts.js';
import type { CallSignal } from './call-signal.js';

export interface ProviderCall {
  request: NormalizedRequest;
  destination: Destination;
  /** Send `request.native.body` instead of encoding the normalized request (Responses-capable destinations). */
  native: boolean;
  signal: CallSignal;
  requestId: string;
}

export interface ProviderAdapter {
  stream(call: ProviderCall): Promise<AsyncIterable<StreamPart>>;
  /**
   * Counts a request's input tokens with the provider's own counter (Anthropic-kind: `/v1/messages/count_tokens`
   * with the caller's native Messages body); the reply is relayed as the provider sent it. Absent: counted locally.
   */
  countTokens?(call: { request: NormalizedRequest; destination: Destination; signal: CallSignal }): Promise<ForwardedReply>;
  /** OpenAI-kind: `POST {base}/embeddings` with the caller's body (model rewritten); the parsed JSON reply. */
  embed?(options: { body: Record<string, unknown>; signal: CallSignal; requestId: string }): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export interface ForwardedReply {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}
