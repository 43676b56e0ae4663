/**
 * Error rendering: one `AppError` becomes a body in the caller's protocol. `/api/*` and the service's own routes
 * use `{detail, code, request_id}` (422: FastAPI-style `detail` list); `/v1/*` uses OpenAI's
 * `{error:{message,type,code}}`; `/v1/messages*` uses Anthropic's `{type:"error",error:{type,message}}`.
 */
import type { FastifyRequest } from 'fastify';
import { AppError, type ErrorCode } from '../kernel/errors.js';

export type ErrorFormat = 'api' | 'openai' | 'anthropic';

export function errorFormatFor(url: string): ErrorFormat {
  const path = url.split('?', 1)[0]!;
  if (path.startsWith('/v1/messages') || path.startsWith('/v1/v1/messages')) return 'anthropic';
  if (path.startsWith('/v1/') || path === '/v1') return 'openai';
  return 'api';
}

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

/** The message a client may see: 5xx messages are replaced, never echoed. */
export function publicMessage(error: AppError): string {
  return error.status >= 500 && error.code !== 'UPSTREAM_FAILED' && error.code !== 'UPSTREAM_UNAVAILABLE' && error.code !== 'UPSTREAM_TIMEOUT' && error.code !== 'NOT_READY'
    ? 'Internal server error'
    : error.message;
}

export function renderError(format: ErrorFormat, error: AppError, requestId: string): Record<string, unknown> {
  const message = publicMessage(error);
  const details = error.status >= 500 ? {} : (error.details ?? {});
  if (format === 'openai') {
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
  if (format === 'anthropic') {
    const issue = error.issues?.[0];
    return {
      type: 'error',
      error: {
        type: ANTHROPIC_TYPES[error.code] ?? (error.status >= 500 ? 'api_error' : 'invalid_request_error'),
        message: issue ? `${issue.loc.join('.')}: ${issue.msg}` : message,
        ...details,
      },
      request_id: requestId,
    };
  }
  if (error.issues) return { detail: error.issues, code: error.code, request_id: requestId };
  return { detail: message, code: error.code, ...details, request_id: requestId };
}

export function formatOf(request: FastifyRequest): ErrorFormat {
  const configured = (request.routeOptions?.config as { errorFormat?: ErrorFormat } | undefined)?.errorFormat;
  return configured ?? errorFormatFor(request.url);
}
