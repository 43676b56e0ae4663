/**
 * HTTP to one upstream provider: a keep-alive undici Pool per provider (created once), timeouts from config,
 * one retry only when the connection could not be opened (the request provably never left), and every failure
 * turned into an `UpstreamError` through the one factory.
 */
import { Pool } from 'undici';
import type { ProviderConfig } from '../../../config/sections/gateway.js';
import type { Clock } from '../../../kernel/clock.js';
import { UpstreamError, rateLimitHeadersOf, upstreamError } from '../../normalized/index.js';
import { dispatchExchange, type UpstreamResponse } from './upstream-exchange.js';
import type { CallSignal } from '../../normalized/index.js';
import { activeSpan, traceHeaders } from '../../../telemetry/index.js';

/** Extracts the upstream's error message from its error body (each provider's shape differs). */
export type ErrorMessageReader = (body: unknown) => string | undefined;

const CONNECT_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'EADDRNOTAVAIL',
]);
const TIMEOUT_ERROR_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const CONNECT_RETRY_DELAY_MS = 50;
const ERROR_BODY_LIMIT_BYTES = 64 * 1024;

function errorCode(error: unknown): string | undefined {
  const value = error as { code?: string; cause?: { code?: string } } | undefined;
  return value?.code ?? value?.cause?.code;
}

/** Maps a transport failure; an abort by our own signal is passed through untouched. */
export function transportFailure(error: unknown, signal: CallSignal): UpstreamError | unknown {
  if (signal.aborted) return error;
  const code = errorCode(error);
  if (code && CONNECT_ERROR_CODES.has(code)) return upstreamError({ kind: 'connect' });
  if (code && TIMEOUT_ERROR_CODES.has(code)) return upstreamError({ kind: 'timeout' });
  return upstreamError({ kind: 'network' });
}

export class UpstreamHttp {
  private readonly pool: Pool;
  /** Path prefix of the base URL (`/v1` for `https://api.openai.com/v1`), without a trailing slash. */
  private readonly basePath: string;

  constructor(
    private readonly provider: ProviderConfig,
    private readonly readErrorMessage: ErrorMessageReader,
    private readonly clock: Clock,
  ) {
    const base = new URL(provider.baseUrl);
    this.basePath = base.pathname.replace(/\/+$/, '');
    this.pool = new Pool(base.origin, {
      connections: 256,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      connect: { timeout: provider.connectTimeoutMs },
      headersTimeout: provider.requestTimeoutMs,
      bodyTimeout: provider.idleTimeoutMs,
    });
  }

  /**
   * POSTs a JSON body and resolves with the 2xx response; rejects with an UpstreamError for an error status or a
   * transport failure. The connect retry is safe because a refused connection carried no request bytes.
   */
  async post(options: { path: string; body: string; headers: Record<string, string>; signal: CallSignal }): Promise<UpstreamResponse> {
    const response = await this.requestWithConnectRetry(options);
    if (response.statusCode >= 200 && response.statusCode < 300) return response;
    throw await this.statusFailure(response);
  }

  /** Sends as-is and returns whatever status came back (auxiliary passthrough routes). */
  async forward(options: { path: string; body: string; headers: Record<string, string>; signal: CallSignal }): Promise<UpstreamResponse> {
    return this.requestWithConnectRetry(options);
  }

  private async requestWithConnectRetry(options: {
    path: string;
    body: string;
    headers: Record<string, string>;
    signal: CallSignal;
  }): Promise<UpstreamResponse> {
    // A key that resolved empty (`${OPENAI_API_KEY:-}` unset) would only earn a 401 upstream; say what is wrong.
    if (this.provider.apiKey === '') {
      throw new UpstreamError({
        status: 503,
        retryable: false,
        failure: 'connect',
        message: `The provider ${this.provider.id} has no API key configured; the operator must set it before this model can be used`,
      });
    }
    const request = {
      method: 'POST' as const,
      path: this.basePath + options.path,
      body: options.body,
      // The upstream exchange's `traceparent` when tracing is on (nothing otherwise).
      headers: { 'content-type': 'application/json', ...options.headers, ...traceHeaders() },
    };
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await dispatchExchange(this.pool, request, options.signal);
      } catch (error) {
        const failure = transportFailure(error, options.signal);
        const connectFailed = (failure as UpstreamError)?.failure === 'connect';
        if (!connectFailed || attempt >= 2) throw failure;
        activeSpan()?.addEvent('retry', { attempt: attempt + 1, reason: 'connect' });
        await new Promise((resolve) => setTimeout(resolve, CONNECT_RETRY_DELAY_MS));
      }
    }
  }

  private async statusFailure(response: UpstreamResponse): Promise<UpstreamError> {
    let message: string | undefined;
    try {
      message = this.readErrorMessage(JSON.parse(await response.body.text(ERROR_BODY_LIMIT_BYTES)));
    } catch {
      await response.body.return();
    }
    const retryAfter = response.headers['retry-after'];
    return upstreamError({
      kind: 'status',
      upstreamStatus: response.statusCode,
      retryAfterHeader: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
      nowMs: this.clock.nowMs(),
      message,
      rateLimitHeaders: response.statusCode === 429 ? rateLimitHeadersOf(response.headers) : undefined,
    });
  }

  get providerId(): string {
    return this.provider.id;
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
