/**
 * The normalized stream: providers turn upstream bytes into these parts; protocols encode them in the caller's
 * wire format. A non-streaming call yields the same parts (one `text-delta` with the whole text).
 */
import type { ToolKind } from './request.js';
import type { UpstreamError } from './upstream-error.js';
import type { Usage } from './usage.js';

/** `pause`: the model paused a long-running turn (Anthropic `pause_turn`); the caller continues it by sending it back. */
export type FinishReason = 'stop' | 'length' | 'tool-calls' | 'content-filter' | 'pause' | 'other';

/** One event of an upstream Responses stream, parsed (never text-edited); `type` is the SSE event type. */
export interface NativeResponsesEvent {
  type: string;
  [field: string]: unknown;
}

export type StreamPart =
  /** First part of every call: the upstream's id for the message/response, when it gave one. */
  | { type: 'start'; upstreamId?: string }
  | { type: 'text-delta'; delta: string }
  | { type: 'reasoning-delta'; delta: string }
  /** `index` counts tool calls within one response (0, 1, …). */
  | { type: 'tool-call-start'; index: number; id: string; kind: ToolKind; name: string }
  | { type: 'tool-call-delta'; index: number; delta: string }
  | { type: 'tool-call-end'; index: number }
  | { type: 'usage'; usage: Usage }
  | { type: 'finish'; reason: FinishReason }
  /** The upstream failed after it had answered 200: the protocol writes its native error event and ends. */
  | { type: 'error'; error: UpstreamError }
  /**
   * Faithful passthrough of a native Responses upstream. Providers emit it alongside the normalized parts
   * (which execute uses for metering); the Responses protocol in native mode writes only these.
   */
  | { type: 'native-event'; event: NativeResponsesEvent }
  /** One chunk (or the whole body) of an OpenAI chat upstream answering a chat caller's own body, parsed. */
  | { type: 'native-chunk'; chunk: Record<string, unknown> };
