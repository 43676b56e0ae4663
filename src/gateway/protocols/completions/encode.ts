/**
 * Legacy text completions: the model's text in the legacy `text_completion` shape (`choices[].text`,
 * `finish_reason`, `usage`), whole or as legacy chunks (the stream is driven in stream.ts).
 */
import { newId } from '../../../kernel/ids.js';
import { type JsonObject } from '../../../kernel/json.js';
import type { FinishReason, Usage } from '../../normalized/index.js';
import { countTextTokens } from '../../tokens.js';

export function legacyFinishReason(reason: FinishReason | undefined): string | null {
  if (reason === undefined) return null;
  if (reason === 'length') return 'length';
  if (reason === 'content-filter') return 'content_filter';
  return 'stop';
}

export interface CompletionsIdentity {
  id: string;
  createdSeconds: number;
  model: string;
}

export function completionsIdentity(model: string, nowMs: number): CompletionsIdentity {
  return { id: newId('cmpl'), createdSeconds: Math.floor(nowMs / 1000), model };
}

/** Usage when the upstream reported none: our tokenizer's count of the prompt and the text. */
export async function estimatedUsage(prompt: string, text: string): Promise<Usage> {
  return { inputTokens: await countTextTokens(prompt), outputTokens: await countTextTokens(text) };
}

export function legacyUsage(usages: Usage[]): JsonObject {
  const promptTokens = usages.reduce((sum, usage) => sum + usage.inputTokens, 0);
  const completionTokens = usages.reduce((sum, usage) => sum + usage.outputTokens, 0);
  return { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
}

export function completionBody(
  identity: CompletionsIdentity,
  choices: { text: string; finishReason: FinishReason | undefined }[],
  usages: Usage[],
): JsonObject {
  return {
    id: identity.id,
    object: 'text_completion',
    created: identity.createdSeconds,
    model: identity.model,
    choices: choices.map((choice, index) => ({
      text: choice.text,
      index,
      logprobs: null,
      finish_reason: legacyFinishReason(choice.finishReason) ?? 'stop',
    })),
    usage: legacyUsage(usages),
  };
}

/** One legacy stream chunk: a text delta, or the closing chunk of a choice with its finish reason. */
export function completionChunk(identity: CompletionsIdentity, index: number, text: string, finishReason: string | null): JsonObject {
  return {
    id: identity.id,
    object: 'text_completion',
    created: identity.createdSeconds,
    model: identity.model,
    choices: [{ text, index, logprobs: null, finish_reason: finishReason }],
  };
}

/** The trailing usage-only chunk (`stream_options.include_usage`). */
export function completionUsageChunk(identity: CompletionsIdentity, usages: Usage[]): JsonObject {
  return {
    id: identity.id,
    object: 'text_completion',
    created: identity.createdSeconds,
    model: identity.model,
    choices: [],
    usage: legacyUsage(usages),
  };
}
