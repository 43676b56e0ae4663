/**
 * The console's calls: the shared fetch wrapper with the operator session's CSRF token (`sy_operator_csrf`) on
 * state changes. The session cookie itself (`sy_operator`, HttpOnly) is sent by the browser to `/api/admin` only.
 */
import { cookie, request, type RequestOptions } from '../shared/api';

function withCsrf(options: RequestOptions = {}): RequestOptions {
  const csrf = cookie('sy_operator_csrf');
  return csrf ? { ...options, headers: { ...options.headers, 'x-csrf-token': csrf } } : options;
}

export const admin = {
  get: <T = unknown>(path: string) => request<T>('GET', path),
  post: <T = unknown>(path: string, body?: unknown, options?: RequestOptions) =>
    request<T>('POST', path, withCsrf({ ...options, body: body ?? {} })),
  put: <T = unknown>(path: string, body?: unknown, options?: RequestOptions) => request<T>('PUT', path, withCsrf({ ...options, body })),
  delete: <T = unknown>(path: string) => request<T>('DELETE', path, withCsrf()),
};

/** Dollars typed by the operator → integer µUSD (up to 6 decimals); null when not a number. */
export function microsFromUsd(text: string): number | null {
  const match = /^\s*(-)?\$?(\d{1,9})(?:\.(\d{1,6}))?\s*$/.exec(text);
  if (!match) return null;
  const micros = Number(match[2]) * 1_000_000 + Number((match[3] ?? '').padEnd(6, '0') || 0);
  return match[1] ? -micros : micros;
}
