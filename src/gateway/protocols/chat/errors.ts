/**
 * Chat completions errors: before the stream, OpenAI's body (shared/openai-errors.ts); inside it, one `data: {error}`
 * chunk, then `[DONE]`.
 */
import type { UpstreamError } from '../../normalized/index.js';
import type { Json } from '../shared/decode-helpers.js';
import { SSE_DONE, sseData } from '../../../kernel/sse.js';

export function chatStreamError(error: UpstreamError): Json {
  return {
    error: {
      message: error.message,
      type: error.status === 429 ? 'rate_limit_error' : 'api_error',
      code: error.status === 429 ? 'rate_limited' : 'upstream_failed',
    },
  };
}

/** The in-stream error frames: the error chunk and the end marker. */
export function chatStreamErrorFrames(error: UpstreamError): string {
  return sseData(JSON.stringify(chatStreamError(error))) + SSE_DONE;
}
