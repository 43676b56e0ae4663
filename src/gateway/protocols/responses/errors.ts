/**
 * Responses errors: before the stream, OpenAI's body (shared/openai-errors.ts); inside it (or in a stored or
 * background response), the response's own `error` field on a terminal `response.failed` event.
 */
import type { UpstreamError } from '../../normalized/index.js';
import type { Json } from '../shared/decode-helpers.js';

/** The `error` of a response that failed after the upstream answered. */
export function responseError(error: UpstreamError): Json {
  return { code: error.status === 429 ? 'rate_limit_exceeded' : 'server_error', message: error.message };
}

/** The same for a native relay whose upstream broke without its own terminal event. */
export function nativeResponseError(error: UpstreamError): Json {
  return { code: 'server_error', message: error.message };
}
