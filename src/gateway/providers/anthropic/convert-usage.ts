import type { Usage } from '../../normalized/index.js';
import type { AnthropicUsage } from './wire-types.js';

/** Anthropic counts cache reads and writes apart from `input_tokens`; normalized input includes them. */
export function usageFromAnthropic(usage: AnthropicUsage): Usage {
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  const cacheWriteHour = Math.min(cacheWrite, usage.cache_creation?.ephemeral_1h_input_tokens ?? 0);
  return {
    inputTokens: (usage.input_tokens ?? 0) + cacheRead + cacheWrite,
    outputTokens: usage.output_tokens ?? 0,
    ...(cacheRead > 0 ? { cachedInputTokens: cacheRead } : {}),
    ...(cacheWrite > 0 ? { cacheWriteInputTokens: cacheWrite } : {}),
    ...(cacheWriteHour > 0 ? { cacheWrite1hInputTokens: cacheWriteHour } : {}),
  };
}
