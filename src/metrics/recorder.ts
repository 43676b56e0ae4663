/**
 * What domain code may record. These are plain functions and plain data: no prom-client type crosses into a
 * domain folder, and a domain built without metrics (unit tests) passes `undefined` and records nothing.
 */

export type UpstreamOutcome = 'completed' | 'aborted' | 'failed';

/** One model call to an upstream provider, from just before the request to its settlement. */
export interface UpstreamCallProbe {
  /** The first part (token, tool call, usage) arrived from the upstream; only the first call counts. */
  firstPart(): void;
  /** The call ended; `billed` is what settlement charged (absent when it was refused before reaching the wallet). */
  end(outcome: UpstreamOutcome, billed?: { inputTokens: number; outputTokens: number; costMicros: number }): void;
}

export interface GatewayMetrics {
  /** Starts timing one upstream call of `provider`/`model` (configured ids, never customer text). */
  upstreamCall(provider: string, model: string): UpstreamCallProbe;
}
