/**
 * Error rendering: one `AppError` becomes a body in the caller's protocol. `/api/*` and the service's own routes
 * use `{detail, code, request_id}` (422: FastAPI-style `detail` list); `/v1/*` uses OpenAI's
 * `{error:{message,type,code}}`; `/v1/messages*` uses Anthropic's `{type:"error",error:{type,message}}` (each protocol's
 * table lives in its folder under gateway/protocols/). The `/v1` routes pin their format through their prefix's error
 * handler (http/routes/v1/index.ts); the URL is read only for requests that matched no route.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppError } from '../kernel/errors.js';
import { publicMessage } from '../kernel/public-message.js';
import { messagesErrorBody } from '../gateway/protocols/messages/errors.js';
import { openAiErrorBody } from '../gateway/protocols/shared/openai-errors.js';

export type ErrorFormat = 'api' | 'openai' | 'anthropic';

export function errorFormatFor(url: string): ErrorFormat {
  const path = url.split('?', 1)[0]!;
  if (path.startsWith('/v1/messages') || path.startsWith('/v1/v1/messages')) return 'anthropic';
  if (path.startsWith('/v1/') || path === '/v1') return 'openai';
  return 'api';
}

/** The message a client may see (kernel/public-message.ts). */
export { publicMessage };

export function renderError(format: ErrorFormat, error: AppError, requestId: string): Record<string, unknown> {
  if (format === 'openai') return openAiErrorBody(error, requestId);
  if (format === 'anthropic') return messagesErrorBody(error, requestId);
  const details = error.status >= 500 ? {} : (error.details ?? {});
  if (error.issues) return { detail: error.issues, code: error.code, request_id: requestId };
  return { detail: publicMessage(error), code: error.code, ...details, request_id: requestId };
}

/** Requests whose error shape their prefix's error handler chose (see `prefixErrorHandler`). */
const prefixFormats = new WeakMap<FastifyRequest, ErrorFormat>();

export function formatOf(request: FastifyRequest): ErrorFormat {
  const prefixed = prefixFormats.get(request);
  if (prefixed !== undefined) return prefixed;
  return errorFormatFor(request.url);
}

type ErrorHandler = (this: FastifyInstance, error: FastifyError, request: FastifyRequest, reply: FastifyReply) => unknown;

/**
 * The error handler of a route prefix (`/v1` answers in OpenAI's shape, `/v1/messages` in Anthropic's): it fixes
 * the shape for every error of its routes, hooks included, and leaves the rest (status, headers, logging) to
 * `parent`, the enclosing context's handler (in the end the service's one handler).
 */
export function prefixErrorHandler(parent: ErrorHandler, format: ErrorFormat): ErrorHandler {
  return function handle(this: FastifyInstance, error, request, reply) {
    // The innermost prefix runs first (`/v1/messages` before `/v1`): its shape stands.
    if (!prefixFormats.has(request)) prefixFormats.set(request, format);
    return parent.call(this, error, request, reply);
  };
}
