/**
 * The hook through which completed chat completions and responses are kept per bearer (implemented in
 * gateway/stored). The gateway calls it after a call finished successfully, streaming or not, with the object
 * exactly as the caller received it (a stream's final state). Whether to keep it (`store`) is the store's call.
 */
import type { Principal } from '../../accounts/principal.js';

export interface ChatCompletionRecord {
  principal: Principal;
  requestId: string;
  /** The caller's `store` flag (OpenAI keeps chat completions only with `store: true`). */
  store: boolean;
  metadata?: Record<string, string>;
  /** The inbound `messages` as the caller sent them. */
  requestMessages: unknown[];
  /** The `chat.completion` object (for a stream, assembled from what was streamed). */
  completion: Record<string, unknown>;
}

export interface ResponseRecord {
  principal: Principal;
  requestId: string;
  /** The caller's `store` flag (Responses default to `true`). */
  store: boolean;
  /** The inbound `input` as a list of items (a string input becomes one user message item). */
  inputItems: unknown[];
  /** The `response` object (for a stream, the one in `response.completed` / `response.failed`). */
  response: Record<string, unknown>;
}

export interface StoredObjects {
  saveChatCompletion(record: ChatCompletionRecord): Promise<void>;
  saveResponse(record: ResponseRecord): Promise<void>;
}
