/**
 * Anthropic Messages errors: before the stream, `{type:"error", error:{type,message}, request_id}`; inside it,
 * an `error` event of the same shape.
 */
import type { AppError, ErrorCode } from '../../../kernel/errors.js';
import { publicMessage } from '../../../kernel/public-message.js';
import type { UpstreamError } from '../../normalized/index.js';
import type { Json } from '../shared/decode-helpers.js';
import { sseEvent } from '../../../kernel/sse.js';

const ANTHROPIC_TYPES: Partial<Record<ErrorCode, string>> = {
  VALIDATION_FAILED: 'invalid_request_error',
  BAD_REQUEST: 'invalid_request_error',
  UNAUTHENTICATED: 'authentication_error',
  INSUFFICIENT_CREDIT: 'billing_error',
  FORBIDDEN: 'permission_error',
  MODEL_NOT_ALLOWED: 'permission_error',
  SURFACE_NOT_ALLOWED: 'permission_error',
  SPENDING_LIMIT_REACHED: 'permission_error',
  VIP_REQUIRED: 'permission_error',
  NOT_FOUND: 'not_found_error',
  PAYLOAD_TOO_LARGE: 'request_too_large',
  RATE_LIMITED: 'rate_limit_error',
  UPSTREAM_UNAVAILABLE: 'overloaded_error',
};

export function messagesErrorBody(error: AppError, requestId: string): Json {
  const details = error.status >= 500 ? {} : (error.details ?? {});
  const issue = error.issues?.[0];
  return {
    type: 'error',
    error: {
      type: ANTHROPIC_TYPES[error.code] ?? (error.status >= 500 ? 'api_error' : 'invalid_request_error'),
      message: issue ? `${issue.loc.join('.')}: ${issue.msg}` : publicMessage(error),
      ...details,
    },
    request_id: requestId,
  };
}

/** The `error` event written inside a started stream. */
export function messagesStreamError(error: UpstreamError): string {
  const type = error.status === 429 ? 'rate_limit_error' : error.status === 503 ? 'overloaded_error' : 'api_error';
  return sseEvent('error', JSON.stringify({ type: 'error', error: { type, message: error.message } }));
}
