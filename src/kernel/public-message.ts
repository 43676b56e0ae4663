/** What an error may tell a client: 5xx messages are replaced, never echoed, except the upstream and readiness ones. */
import type { AppError } from './errors.js';

export function publicMessage(error: AppError): string {
  return error.status >= 500 &&
    error.code !== 'UPSTREAM_FAILED' &&
    error.code !== 'UPSTREAM_UNAVAILABLE' &&
    error.code !== 'UPSTREAM_TIMEOUT' &&
    error.code !== 'NOT_READY'
    ? 'Internal server error'
    : error.message;
}
