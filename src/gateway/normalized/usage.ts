/** Token usage as providers report it, normalized. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** Input tokens served from the upstream's prompt cache (part of inputTokens). */
  cachedInputTokens?: number;
  /** Input tokens written to the upstream's prompt cache (part of inputTokens; Anthropic reports them apart). */
  cacheWriteInputTokens?: number;
  /** Of the cache writes, those kept for an hour (Anthropic prices them apart). */
  cacheWrite1hInputTokens?: number;
  /** Output tokens spent on reasoning (part of outputTokens). */
  reasoningTokens?: number;
}

/** Anthropic reports input tokens at the start and output tokens at the end; later reports never lower a figure. */
export function mergeUsage(total: Usage | undefined, next: Usage): Usage {
  if (!total) return { ...next };
  return {
    inputTokens: Math.max(total.inputTokens, next.inputTokens),
    outputTokens: Math.max(total.outputTokens, next.outputTokens),
    cachedInputTokens: next.cachedInputTokens ?? total.cachedInputTokens,
    cacheWriteInputTokens: next.cacheWriteInputTokens ?? total.cacheWriteInputTokens,
    cacheWrite1hInputTokens: next.cacheWrite1hInputTokens ?? total.cacheWrite1hInputTokens,
    reasoningTokens: next.reasoningTokens ?? total.reasoningTokens,
  };
}
