/**
 * The contract between the gateway and billing. The gateway calls `begin` before it contacts an upstream and
 * `settle` exactly once when the call ends on any path (done, client abort, upstream error, timeout).
 *
 * `begin` enforces, in order: model permission (403 MODEL_NOT_ALLOWED), VIP entitlement (403 VIP_REQUIRED),
 * spending limit (403 SPENDING_LIMIT_REACHED), rate limits and concurrency (429 RATE_LIMITED
 * with retryAfterSeconds), Unlimited coverage (fair use: 429), and finally places a hold of the worst-case cost
 * in one guarded statement (402 INSUFFICIENT_CREDIT). Operator principals are not billed.
 */
import type { Principal } from '../accounts/principal.js';

export interface MeterRequest {
  principal: Principal;
  /** The model id the caller asked for (an alias such as `power-ai`, or a model id). */
  requestedModel: string;
  /** The configured model the alias/model resolved to (destination). */
  modelId: string;
  /** Which inbound route: `chat`, `responses`, `completions`, `messages`, `compact`. */
  operation: string;
  estimatedInputTokens: number;
  /** max_tokens of the request, or the configured default cap. */
  maxOutputTokens: number;
  requestId: string;
  /** The client's own request id (its x-request-id), recorded beside `requestId`. */
  clientRequestId?: string;
  /** Which surface makes the call (Unlimited plans cover surfaces); default `gateway`. */
  surface?: 'gateway' | 'projects';
  /** The request's Host header (VIP servers are recognised by host name). */
  host?: string;
}

export interface MeteredUsage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens?: number;
  /** Written to the upstream's prompt cache (part of inputTokens), of which `cacheWrite1hTokens` for an hour. */
  cacheWriteTokens?: number;
  cacheWrite1hTokens?: number;
  /** `upstream` when the provider reported usage; `estimated` when we counted it ourselves. */
  source: 'upstream' | 'estimated';
}

export interface SettleOutcome {
  /** What the call cost (micro-USD); 0 when covered by an Unlimited plan. */
  costMicros: number;
  covered: boolean;
}

export interface MeteredCall {
  readonly holdMicros: number;
  /**
   * Present when the call may start before its hold has committed: resolves once it has, rejects with the refusal
   * (402 INSUFFICIENT_CREDIT) otherwise. The gateway sends the upstream request meanwhile and no byte of the answer
   * before it resolves; a refused call is settled like any other (it owes nothing).
   */
  readonly confirmed?: Promise<void>;
  /** Idempotent: the first call settles, later calls return the first outcome. */
  settle(usage: MeteredUsage, status: 'completed' | 'aborted' | 'failed'): Promise<SettleOutcome>;
}

export interface Meter {
  begin(request: MeterRequest): Promise<MeteredCall>;
}

/** A meter that bills nothing (operator calls, or billing disabled in benchmarks). */
export const freeMeter: Meter = {
  async begin() {
    return {
      holdMicros: 0,
      async settle() {
        return { costMicros: 0, covered: true };
      },
    };
  },
};
