/**
 * Error handling of the HTTP surface: any thrown value becomes one `AppError` (framework and validation errors
 * translated here) and is sent in the caller's shape. Each prefix scope sets its handler: `apiErrorHandler` for
 * `/api` (`{detail, code, request_id}`, with app-server failures mapped once for every agent and direct route);
 * the root handler in app.ts serves the rest.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { mapAppServerError } from '../agent/project-runtime.js';
import { AppError, isAppError, validationError } from '../kernel/errors.js';
import { errorFormatFor, formatOf, renderError, type ErrorFormat } from './error-render.js';
import { issuesFromValidation } from './validation.js';

/** The `/api` scope's handler: the service's own error shape; a failed, silent or restarting app-server is a 400/503/504. */
export function apiErrorHandler(error: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendError(request, reply, toAppError(mapAppServerError(error) as FastifyError | AppError), 'api');
}

export function toAppError(error: FastifyError | AppError): AppError {
  if (isAppError(error)) return error;
  const fastifyError = error as FastifyError & { validationContext?: string };
  if (fastifyError.validation) {
    return validationError(issuesFromValidation(fastifyError.validation, fastifyError.validationContext));
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', 'Request body is too large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported content type; send application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return validationError([{ loc: ['body'], msg: 'Invalid JSON body', type: 'json_invalid' }]);
    default:
      break;
  }
  const status = fastifyError.statusCode ?? 500;
  if (status === 404) return new AppError('NOT_FOUND', 'Not found');
  if (status === 413) return new AppError('PAYLOAD_TOO_LARGE', 'Request body is too large');
  if (status === 415) return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported content type; send application/json');
  if (status >= 400 && status < 500) return new AppError('BAD_REQUEST', fastifyError.message);
  return new AppError('INTERNAL', 'Internal server error', { cause: error });
}

/**
 * Sends `error` in `format`; without one, in the route's configured format, or (requests that matched no route,
 * which no scope's handler sees: the router's own errors and 404s) in the format the URL implies.
 */
export function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError, format?: ErrorFormat): FastifyReply {
  if (error.status >= 500) request.log.error({ err: error.cause ?? error, requestId: request.id }, 'request failed');
  // A refusal rewritten for the client (an app-server's internal text, say) keeps its original in the log only.
  else if (error.cause !== undefined) request.log.warn({ err: error.cause, requestId: request.id }, 'request refused');
  if (error.headers) for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  // 429 and 503 always tell the client when to come back, even when the thrower named no delay.
  const retryAfterSeconds = error.retryAfterSeconds ?? (error.status === 429 || error.status === 503 ? 1 : undefined);
  if (retryAfterSeconds !== undefined) reply.header('retry-after', String(retryAfterSeconds));
  if (error.status === 401) reply.header('www-authenticate', 'Bearer');
  const shape = format ?? (request.routeOptions?.url === undefined ? errorFormatFor(request.url) : formatOf(request));
  // OpenAI and Anthropic answer an invalid request with 400 `invalid_request_error`; the 422 stays on `/api`.
  const status = shape !== 'api' && error.status === 422 ? 400 : error.status;
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send(renderError(shape, error, request.id));
}
