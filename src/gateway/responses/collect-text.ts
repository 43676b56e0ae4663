/** Drains a non-streamed call into its text, finish reason and usage (estimated when the upstream gave none). */
import type { FinishReason, StreamPart, Usage } from '../spec/index.js';
import { countTextTokens } from '../tokens.js';

export interface CollectedText {
  text: string;
  finishReason: FinishReason | undefined;
  usage: Usage;
  /** True when the upstream reported no usage and the figures are our tokenizer's. */
  usageEstimated: boolean;
}

/** An `error` part (upstream failure after 200) becomes the thrown error, in the service's error model. */
export async function collectText(parts: AsyncIterable<StreamPart>, promptText: string): Promise<CollectedText> {
  let text = '';
  let finishReason: FinishReason | undefined;
  let usage: Usage | undefined;
  for await (const part of parts) {
    if (part.type === 'text-delta') text += part.delta;
    else if (part.type === 'finish') finishReason = part.reason;
    else if (part.type === 'usage') usage = { ...usage, ...part.usage };
    else if (part.type === 'error') throw part.error.toAppError();
  }
  if (usage) return { text, finishReason, usage, usageEstimated: false };
  return {
    text,
    finishReason,
    usage: { inputTokens: await countTextTokens(promptText), outputTokens: await countTextTokens(text) },
    usageEstimated: true,
  };
}
