/**
 * The pages' only way to the service: the documented `/api` routes, with the dashboard session cookie and the
 * CSRF header on every state-changing request. Errors come back as `ApiError` carrying the `/api` `detail`.
 *
 * `client` is typed from the service's OpenAPI document (`api-schema.ts`, generated): paths, parameters, bodies
 * and answers are checked at compile time. `call` runs one of its requests the way `request` does (a 403 asking
 * for a recent sign-in is confirmed and repeated once; any other failure is thrown as `ApiError`).
 */

import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './api-schema';
import { humanIssue, type Issue } from './validation';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: unknown,
    readonly body: unknown,
  ) {
    super(describeDetail(detail) || `HTTP ${status}`);
  }
}

/** `detail` is a string or a list of field errors (`{loc, msg, type}`); this reads both as sentences. */
export function describeDetail(detail: unknown): string {
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail))
    return detail.map((item) => (item && typeof item === 'object' && 'msg' in item ? humanIssue(item as Issue) : String(item))).join(' ');
  if (detail && typeof detail === 'object' && 'message' in detail) return String((detail as { message: unknown }).message);
  return '';
}

export function cookie(name: string): string | undefined {
  for (const part of document.cookie.split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return decodeURIComponent(rest.join('='));
  }
  return undefined;
}

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Sent as `Idempotency-Key` (paid routes). */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Minting or changing credentials needs a recent sign-in: the server answers 403 with `reauthenticate`; the page
 * asks for the password once, confirms it (POST /api/v1/auth/reauthenticate) and repeats the request.
 */
export async function request<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  try {
    return await send<T>(method, path, options);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 403 || !needsReauthentication(error.body)) throw error;
    const password = window.prompt('Confirm your password to continue');
    if (!password) throw error;
    await send('POST', '/api/v1/auth/reauthenticate', { body: { password } });
    return send<T>(method, path, options);
  }
}

function needsReauthentication(body: unknown): boolean {
  return typeof body === 'object' && body !== null && typeof (body as { reauthenticate?: unknown }).reauthenticate === 'string';
}

async function send<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  let body: BodyInit | undefined;
  if (options.body !== undefined) {
    if (typeof options.body === 'string') body = options.body;
    else {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
  }
  if (UNSAFE.has(method)) {
    const csrf = cookie('sy_csrf');
    if (csrf) headers['x-csrf-token'] = csrf;
  }
  if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
  const response = await fetch(path, { method, headers, body, credentials: 'same-origin', signal: options.signal });
  const text = await response.text();
  let parsed: unknown = text;
  if ((response.headers.get('content-type') ?? '').includes('json') && text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  if (!response.ok) {
    const detail = parsed && typeof parsed === 'object' && 'detail' in parsed ? (parsed as { detail: unknown }).detail : parsed;
    throw new ApiError(response.status, detail, parsed);
  }
  return parsed as T;
}

/** Sends the CSRF cookie's token as `x-csrf-token` on every state-changing request of the typed client. */
const csrfHeader: Middleware = {
  onRequest({ request }) {
    request.headers.set('accept', 'application/json');
    const csrf = UNSAFE.has(request.method) ? cookie('sy_csrf') : undefined;
    if (csrf) request.headers.set('x-csrf-token', csrf);
    return request;
  },
};

/** The typed client of the documented `/api` routes (same origin, the session cookie sent). */
export const client = createClient<paths>({ baseUrl: globalThis.location?.origin ?? '', credentials: 'same-origin' });
client.use(csrfHeader);

/** What one request of `client` settles to: the parsed answer, or the parsed error body. */
interface Sent<D> {
  data?: D;
  error?: unknown;
  response: Response;
}

/**
 * Runs one request of the typed client and answers its data: a 403 asking for a recent sign-in is confirmed
 * (the password, once) and the request repeated; any other failure is thrown as `ApiError` with the `detail`.
 * `send` is called again for the repeat, so it must build a fresh request each time.
 */
export async function call<D>(send: () => Promise<Sent<D>>): Promise<D> {
  let sent = await send();
  if (sent.response.status === 403 && needsReauthentication(sent.error)) {
    const password = window.prompt('Confirm your password to continue');
    if (!password) throw apiError(sent);
    const confirmed = await client.POST('/api/v1/auth/reauthenticate', { body: { password } });
    if (!confirmed.response.ok) throw apiError(confirmed);
    sent = await send();
  }
  if (!sent.response.ok) throw apiError(sent);
  return sent.data as D;
}

function apiError(sent: { error?: unknown; response: Response }): ApiError {
  const body = sent.error;
  const detail = body && typeof body === 'object' && 'detail' in body ? (body as { detail: unknown }).detail : body;
  return new ApiError(sent.response.status, detail, body);
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type JsonOf<R> = R extends { content: { 'application/json': infer J } } ? J : never;
type ResponsesOf<P extends keyof paths, M extends Method> = paths[P][M] extends { responses: infer R } ? R : never;
/** The JSON answer of a documented route (its 2xx), from the generated types: `Answer<'/api/v1/me'>`. */
export type Answer<P extends keyof paths, M extends Method = 'get'> = JsonOf<
  ResponsesOf<P, M>[keyof ResponsesOf<P, M> & (200 | 201 | 202)]
>;

/** The JSON body a documented route takes, from the generated types: `Body<'/api/v1/me/api-keys', 'post'>`. */
export type Body<P extends keyof paths, M extends Method> = paths[P][M] extends { requestBody?: infer B } ? JsonOf<NonNullable<B>> : never;

/** The `Idempotency-Key` header of a paid request (`client.POST(path, { body, headers: idempotent(key) })`). */
export function idempotent(key: string): { 'idempotency-key': string } {
  return { 'idempotency-key': key };
}

export const api = {
  get: <T = unknown>(path: string, options?: RequestOptions) => request<T>('GET', path, options),
  post: <T = unknown>(path: string, body?: unknown, options?: RequestOptions) => request<T>('POST', path, { ...options, body: body ?? {} }),
  put: <T = unknown>(path: string, body?: unknown, options?: RequestOptions) => request<T>('PUT', path, { ...options, body }),
  patch: <T = unknown>(path: string, body?: unknown, options?: RequestOptions) => request<T>('PATCH', path, { ...options, body }),
  delete: <T = unknown>(path: string, options?: RequestOptions) => request<T>('DELETE', path, options),
};

/** A fresh idempotency key for one user action (kept while the action is retried). */
export function newIdempotencyKey(): string {
  return crypto.randomUUID();
}

/** Builds a query string from the defined values only. */
export function query(params: Record<string, string | number | boolean | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}
