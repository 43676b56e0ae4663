/**
 * OpenAI's error body, `{error:{message,type,code,param}, request_id}`: what chat completions, responses, legacy
 * completions, models and embeddings answer before a stream started. Each protocol's `errors.ts` adds its in-stream form.
 */
import type { AppError, ErrorCode } from '../../../kernel/errors.js';
import { publicMessage } from '../../../kernel/public-message.js';
import type { Json } from './decode-helpers.js';

const OPENAI_TYPES: Partial<Record<ErrorCode, string>> = {
  VALIDATION_FAILED: 'invalid_request_error',
  BAD_REQUEST: 'invalid_request_error',
  UNAUTHENTICATED: 'authentication_error',
  INSUFFICIENT_CREDIT: 'insufficient_quota',
  FORBIDDEN: 'permission_error',
  MODEL_NOT_ALLOWED: 'permission_error',
  SURFACE_NOT_ALLOWED: 'permission_error',
  SPENDING_LIMIT_REACHED: 'permission_error',
  VIP_REQUIRED: 'permission_error',
  NOT_FOUND: 'invalid_request_error',
  CONFLICT: 'invalid_request_error',
  PAYLOAD_TOO_LARGE: 'invalid_request_error',
  RATE_LIMITED: 'rate_limit_error',
  UPSTREAM_FAILED: 'api_error',
  UPSTREAM_UNAVAILABLE: 'api_error',
  UPSTREAM_TIMEOUT: 'api_error',
};

export function openAiErrorBody(error: AppError, requestId: string): Json {
  const message = publicMessage(error);
  const details = error.status >= 500 ? {} : (error.details ?? {});
  const issue = error.issues?.[0];
  return {
    error: {
      message: issue ? `${message}: ${issue.loc.join('.')}: ${issue.msg}` : message,
      type: OPENAI_TYPES[error.code] ?? (error.status >= 500 ? 'api_error' : 'invalid_request_error'),
      code: error.code.toLowerCase(),
      param: issue ? issue.loc.slice(1).join('.') || null : null,
      ...details,
    },
    request_id: requestId,
  };
}
