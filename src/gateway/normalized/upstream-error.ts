/**
 * Upstream failures, built by one factory so every provider maps them the same way. `status` is what the caller
 * sees (429, 400, 502, 503), never the upstream's raw 5xx; messages never carry upstream addresses or keys.
 */
import { AppError, type ErrorCode } from '../../kernel/errors.js';

export type UpstreamFailure =
  /** The upstream answered with an HTTP error status. */
  /** `nowMs` (the service clock) reads a Retry-After given as an HTTP date; without it only delta-seconds are read. */
  | {
      kind: 'status';
      upstreamStatus: number;
      retryAfterHeader?: string | null;
      nowMs?: number;
      message?: string;
      rateLimitHeaders?: Record<string, string>;
    }
  /** The connection could not be opened (refused, DNS, connect timeout): the request was provably not sent. */
  | { kind: 'connect' }
  /** No answer, or silence between chunks, for longer than the configured timeout. */
  | { kind: 'timeout' }
  /** The connection broke after the request was sent (reset, closed mid-body). */
  | { kind: 'network' }
  /** The upstream sent something we cannot read, or an error event inside a stream. */
  | { kind: 'protocol'; message?: string; upstreamType?: string };

export class UpstreamError extends Error {
  readonly status: number;
  readonly retryable: boolean;
  readonly retryAfterSeconds?: number;
  readonly failure: UpstreamFailure['kind'];
  /** The upstream's rate-limit headers, passed on to the caller with a 429. */
  readonly headers?: Record<string, string>;

  constructor(options: {
    status: number;
    retryable: boolean;
    retryAfterSeconds?: number;
    message: string;
    failure: UpstreamFailure['kind'];
    headers?: Record<string, string>;
  }) {
    super(options.message);
    this.name = 'UpstreamError';
    this.status = options.status;
    this.retryable = options.retryable;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.failure = options.failure;
    this.headers = options.headers;
  }

  /** The same failure as the service's one error model (rendered by app.ts in the caller's protocol). */
  toAppError(): AppError {
    const code: ErrorCode =
      this.status === 429
        ? 'RATE_LIMITED'
        : this.status === 503
          ? 'UPSTREAM_UNAVAILABLE'
          : this.status >= 500
            ? 'UPSTREAM_FAILED'
            : 'BAD_REQUEST';
    return new AppError(code, this.message, { retryAfterSeconds: this.retryAfterSeconds, headers: this.headers, cause: this });
  }
}

const DEFAULT_RATE_LIMIT_RETRY_SECONDS = 5;
const DEFAULT_UNAVAILABLE_RETRY_SECONDS = 2;

const RATE_LIMIT_HEADER = /^(anthropic-ratelimit-|x-ratelimit-)/;

/** The upstream's rate-limit headers (`anthropic-ratelimit-*`, `x-ratelimit-*`), to pass on with a 429. */
export function rateLimitHeadersOf(headers: Record<string, string | string[] | undefined>): Record<string, string> | undefined {
  const found = Object.entries(headers).filter(([name, value]) => RATE_LIMIT_HEADER.test(name) && value !== undefined);
  return found.length === 0
    ? undefined
    : Object.fromEntries(found.map(([name, value]) => [name, Array.isArray(value) ? value[0]! : value!]));
}

/**
 * Integer seconds from a Retry-After header (delta-seconds, or an HTTP date when the current time `nowMs` is
 * given); undefined when absent or unreadable.
 */
export function parseRetryAfter(header: string | null | undefined, nowMs?: number): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.max(1, Math.ceil(Number(trimmed)));
  const dateMs = Date.parse(trimmed);
  return Number.isNaN(dateMs) || nowMs === undefined ? undefined : Math.max(1, Math.ceil((dateMs - nowMs) / 1000));
}

/** Keeps upstream wording for client errors but strips anything that looks like a URL or an address. */
function scrub(message: string | undefined): string | undefined {
  if (!message) return undefined;
  return message
    .replace(/https?:\/\/\S+/g, '[upstream]')
    .replace(/\b\d{1,3}(\.\d{1,3}){3}(:\d+)?\b/g, '[upstream]')
    .slice(0, 500);
}

/** An HTTP error status of the upstream, as the caller should see it. */
function statusError(failure: Extract<UpstreamFailure, { kind: 'status' }>): UpstreamError {
  const status = failure.upstreamStatus;
  if (status === 429) {
    return new UpstreamError({
      status: 429,
      retryable: true,
      retryAfterSeconds: parseRetryAfter(failure.retryAfterHeader, failure.nowMs) ?? DEFAULT_RATE_LIMIT_RETRY_SECONDS,
      message: 'The upstream model provider is rate limiting requests; retry after the delay in Retry-After',
      failure: 'status',
      headers: failure.rateLimitHeaders,
    });
  }
  if (status === 503 || status === 529) {
    return new UpstreamError({
      status: 503,
      retryable: true,
      retryAfterSeconds: parseRetryAfter(failure.retryAfterHeader, failure.nowMs) ?? DEFAULT_UNAVAILABLE_RETRY_SECONDS,
      message: 'The upstream model provider is overloaded or unavailable',
      failure: 'status',
    });
  }
  if (status >= 500) {
    return new UpstreamError({
      status: 502,
      retryable: true,
      retryAfterSeconds: parseRetryAfter(failure.retryAfterHeader, failure.nowMs) ?? DEFAULT_UNAVAILABLE_RETRY_SECONDS,
      message: `The upstream model provider failed (status ${status})`,
      failure: 'status',
    });
  }
  if (status === 400 || status === 413 || status === 422) {
    return new UpstreamError({
      status: 400,
      retryable: false,
      message: `The upstream model provider rejected the request: ${scrub(failure.message) ?? `status ${status}`}`,
      failure: 'status',
    });
  }
  // 401/403/404 from the upstream are our configuration problem, not the caller's request.
  return new UpstreamError({
    status: 502,
    retryable: false,
    retryAfterSeconds: DEFAULT_UNAVAILABLE_RETRY_SECONDS,
    message: `The upstream model provider refused the call (status ${status})`,
    failure: 'status',
  });
}

export function upstreamError(failure: UpstreamFailure): UpstreamError {
  switch (failure.kind) {
    case 'status':
      return statusError(failure);
    case 'connect':
      return new UpstreamError({
        status: 503,
        retryable: true,
        retryAfterSeconds: DEFAULT_UNAVAILABLE_RETRY_SECONDS,
        message: 'The upstream model provider could not be reached',
        failure: 'connect',
      });
    case 'timeout':
      return new UpstreamError({
        status: 502,
        retryable: true,
        retryAfterSeconds: DEFAULT_UNAVAILABLE_RETRY_SECONDS,
        message: 'The upstream model provider did not answer in time',
        failure: 'timeout',
      });
    case 'network':
      return new UpstreamError({
        status: 502,
        retryable: false,
        retryAfterSeconds: DEFAULT_UNAVAILABLE_RETRY_SECONDS,
        message: 'The connection to the upstream model provider broke',
        failure: 'network',
      });
    case 'protocol':
      return new UpstreamError({
        status: 502,
        retryable: false,
        retryAfterSeconds: DEFAULT_UNAVAILABLE_RETRY_SECONDS,
        message: scrub(failure.message) ?? 'The upstream model provider sent an unreadable reply',
        failure: 'protocol',
      });
  }
}
