/** Drains a non-streamed call into its text, finish reason and usage (estimated when the upstream gave none). */
import { collectParts } from './collect.js';
import type { FinishReason, StreamPart, Usage } from '../../normalized/index.js';
import { countTextTokens } from '../../tokens.js';

export interface CollectedText {
  text: string;
  finishReason: FinishReason | undefined;
  usage: Usage;
  /** True when the upstream reported no usage and the figures are our tokenizer's. */
  usageEstimated: boolean;
}

/** An `error` part (upstream failure after 200) becomes the thrown error, in the service's error model. */
export async function collectText(parts: AsyncIterable<StreamPart>, promptText: string): Promise<CollectedText> {
  const collected = await collectParts(parts);
  if (collected.error) throw collected.error.toAppError();
  const { text, finish: finishReason, usage } = collected;
  if (usage) return { text, finishReason, usage, usageEstimated: false };
  return {
    text,
    finishReason,
    usage: { inputTokens: await countTextTokens(promptText), outputTokens: await countTextTokens(text) },
    usageEstimated: true,
  };
}
