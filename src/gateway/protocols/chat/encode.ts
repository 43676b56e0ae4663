/** Normalized parts → the OpenAI `chat.completion` object (the chunk stream is in stream.ts). */
import type { FinishReason, Usage } from '../../normalized/index.js';
import type { Collected } from '../shared/collect.js';

export const FINISH: Record<FinishReason, string> = {
  stop: 'stop',
  length: 'length',
  'tool-calls': 'tool_calls',
  'content-filter': 'content_filter',
  pause: 'stop',
  other: 'stop',
};

export function chatUsage(usage: Usage | undefined): Record<string, unknown> {
  const input = usage?.inputTokens ?? 0;
  const output = usage?.outputTokens ?? 0;
  return {
    prompt_tokens: input,
    completion_tokens: output,
    total_tokens: input + output,
    prompt_tokens_details: { cached_tokens: usage?.cachedInputTokens ?? 0 },
    completion_tokens_details: { reasoning_tokens: usage?.reasoningTokens ?? 0 },
  };
}

function toolCallJson(call: Collected['toolCalls'][number]): Record<string, unknown> {
  return call.kind === 'custom'
    ? { id: call.id, type: 'custom', custom: { name: call.name, input: call.arguments } }
    : { id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } };
}

/** A legacy `functions` caller's answer: its one call as `function_call` (the legacy API has no parallel calls). */
function legacyMessage(collected: Collected): Record<string, unknown> {
  const call = collected.toolCalls.find(Boolean);
  return {
    role: 'assistant',
    content: collected.text === '' && call ? null : collected.text,
    refusal: null,
    ...(call ? { function_call: { name: call.name, arguments: call.arguments } } : {}),
    annotations: [],
  };
}

export function chatCompletionObject(options: {
  id: string;
  createdSeconds: number;
  model: string;
  collected: Collected;
  /** The caller sent legacy `functions`: a call comes back as `function_call`. */
  legacyFunctions?: boolean;
}): Record<string, unknown> {
  const { collected } = options;
  const toolCalls = collected.toolCalls.filter(Boolean);
  if (options.legacyFunctions) {
    const finish = toolCalls.length > 0 ? 'function_call' : FINISH[collected.finish ?? 'stop'];
    return {
      id: options.id,
      object: 'chat.completion',
      created: options.createdSeconds,
      model: options.model,
      choices: [{ index: 0, message: legacyMessage(collected), finish_reason: finish, logprobs: null }],
      usage: chatUsage(collected.usage),
      system_fingerprint: null,
    };
  }
  return {
    id: options.id,
    object: 'chat.completion',
    created: options.createdSeconds,
    model: options.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: collected.text === '' && toolCalls.length > 0 ? null : collected.text,
          refusal: null,
          ...(collected.reasoning ? { reasoning_content: collected.reasoning } : {}),
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls.map(toolCallJson) } : {}),
          annotations: [],
        },
        finish_reason: FINISH[collected.finish ?? 'stop'],
        logprobs: null,
      },
    ],
    usage: chatUsage(collected.usage),
    system_fingerprint: null,
  };
}
