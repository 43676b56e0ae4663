/** Normalized parts → OpenAI chat completions: the `chat.completion` object and the `chat.completion.chunk` stream. */
import { newId } from '../../../kernel/ids.js';
import type { FinishReason, StreamPart, Usage } from '../../normalized/index.js';
import { mergeUsage, type UpstreamError } from '../../normalized/index.js';
import type { Collected } from '../shared/collect.js';

const FINISH: Record<FinishReason, string> = { stop: 'stop', length: 'length', 'tool-calls': 'tool_calls', 'content-filter': 'content_filter', pause: 'stop', other: 'stop' };

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

export function chatCompletionObject(options: { id: string; createdSeconds: number; model: string; collected: Collected }): Record<string, unknown> {
  const { collected } = options;
  const toolCalls = collected.toolCalls.filter(Boolean);
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

export function chatErrorPayload(error: UpstreamError): Record<string, unknown> {
  return { error: { message: error.message, type: error.status === 429 ? 'rate_limit_error' : 'api_error', code: error.status === 429 ? 'rate_limited' : 'upstream_failed' } };
}

/** Encodes parts as `data:` lines, one write per part, as they arrive. */
export class ChatStreamEncoder {
  readonly id = newId('chatcmpl', 24);
  private readonly createdSeconds = Math.floor(Date.now() / 1000);
  private readonly prefix: string;
  private usage: Usage | undefined;
  private readonly customCalls = new Set<number>();

  constructor(
    readonly model: string,
    private readonly includeUsage: boolean,
  ) {
    this.prefix = `{"id":${JSON.stringify(this.id)},"object":"chat.completion.chunk","created":${this.createdSeconds},"model":${JSON.stringify(model)},"system_fingerprint":null,"choices":[{"index":0,"delta":`;
  }

  get created(): number {
    return this.createdSeconds;
  }

  private chunk(delta: unknown, finishReason: string | null = null): string {
    return `data: ${this.prefix}${JSON.stringify(delta)},"logprobs":null,"finish_reason":${finishReason === null ? 'null' : JSON.stringify(finishReason)}}]}\n\n`;
  }

  /** Text to write for one part ('' when the part has no wire form). */
  encode(part: StreamPart): string {
    switch (part.type) {
      case 'start':
        return this.chunk({ role: 'assistant', content: '', refusal: null });
      case 'text-delta':
        return this.chunk({ content: part.delta });
      case 'reasoning-delta':
        return this.chunk({ reasoning_content: part.delta });
      case 'tool-call-start':
        if (part.kind === 'custom') {
          this.customCalls.add(part.index);
          return this.chunk({ tool_calls: [{ index: part.index, id: part.id, type: 'custom', custom: { name: part.name, input: '' } }] });
        }
        return this.chunk({ tool_calls: [{ index: part.index, id: part.id, type: 'function', function: { name: part.name, arguments: '' } }] });
      case 'tool-call-delta':
        return this.customCalls.has(part.index)
          ? this.chunk({ tool_calls: [{ index: part.index, custom: { input: part.delta } }] })
          : this.chunk({ tool_calls: [{ index: part.index, function: { arguments: part.delta } }] });
      case 'usage':
        this.usage = mergeUsage(this.usage, part.usage);
        return '';
      case 'finish':
        return this.chunk({}, FINISH[part.reason]);
      case 'error':
        return `data: ${JSON.stringify(chatErrorPayload(part.error))}\n\ndata: [DONE]\n\n`;
      default:
        return '';
    }
  }

  /** After a normal finish: the usage chunk when the client asked for it, then `[DONE]`. */
  end(): string {
    const usage = this.includeUsage
      ? `data: {"id":${JSON.stringify(this.id)},"object":"chat.completion.chunk","created":${this.createdSeconds},"model":${JSON.stringify(this.model)},"system_fingerprint":null,"choices":[],"usage":${JSON.stringify(chatUsage(this.usage))}}\n\n`
      : '';
    return `${usage}data: [DONE]\n\n`;
  }
}
