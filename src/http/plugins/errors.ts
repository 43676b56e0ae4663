/**
 * Errors of routes outside a scope of their own (health, metrics, the documents, web pages, /v1 until its scope
 * lands) and framework errors, rendered in the caller's protocol; the `/api` scope sets its own handler
 * (routes/index.ts). A path no route matches is a 404 that says what to fix when it is a doubled `/v1`.
 */
import type { FastifyError } from 'fastify';
import { AppError } from '../../kernel/errors.js';
import { sendError, toAppError } from '../error-handler.js';
import type { App } from '../types.js';

export function registerErrorHandlers(app: App): void {
  app.setErrorHandler((error: FastifyError | AppError, request, reply) => sendError(request, reply, toAppError(error)));
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?', 1)[0]!;
    const message = path.startsWith('/v1/v1/')
      ? 'Not found: the path contains /v1 twice. Use {base_url}/v1 as the SDK base URL (the SDK appends endpoint names) and do not add /v1 again.'
      : `Route ${request.method} ${path} not found`;
    return sendError(request, reply, new AppError('NOT_FOUND', message));
  });
}
