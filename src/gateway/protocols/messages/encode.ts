/** Normalized parts → the Anthropic Messages `message` object (the event stream is in stream.ts). */
import { newId } from '../../../kernel/ids.js';
import type { FinishReason, Usage } from '../../normalized/index.js';
import type { Collected } from '../shared/collect.js';
import type { Json } from '../shared/decode-helpers.js';

export const STOP: Record<FinishReason, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  'tool-calls': 'tool_use',
  'content-filter': 'refusal',
  pause: 'pause_turn',
  other: 'end_turn',
};

export function usageJson(usage: Usage | undefined, estimatedInputTokens: number): Json {
  const cached = usage?.cachedInputTokens ?? 0;
  const written = usage?.cacheWriteInputTokens ?? 0;
  return {
    input_tokens: (usage?.inputTokens ?? estimatedInputTokens) - cached - written,
    output_tokens: usage?.outputTokens ?? 0,
    cache_read_input_tokens: cached,
    cache_creation_input_tokens: written,
  };
}

function toolInput(call: Collected['toolCalls'][number]): unknown {
  if (call.kind === 'custom') return { input: call.arguments };
  try {
    return call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
  } catch {
    return {};
  }
}

export function messageObject(options: { model: string; collected: Collected; estimatedInputTokens: number }): Json {
  const { collected } = options;
  const content: Json[] = [];
  // Reasoning from a destination that is not Anthropic-kind: a thinking block without a signature.
  if (collected.reasoning !== '') content.push({ type: 'thinking', thinking: collected.reasoning, signature: '' });
  if (collected.text !== '') content.push({ type: 'text', text: collected.text });
  for (const call of collected.toolCalls.filter(Boolean))
    content.push({ type: 'tool_use', id: call.id, name: call.name, input: toolInput(call) });
  return {
    id: newId('msg', 24),
    type: 'message',
    role: 'assistant',
    model: options.model,
    content,
    stop_reason: STOP[collected.finish ?? 'stop'],
    stop_sequence: null,
    usage: usageJson(collected.usage, options.estimatedInputTokens),
  };
}
