/** Normalized parts → Anthropic Messages: the `message` object and the `message_start` … `message_stop` stream. */
import { newId } from '../../../kernel/ids.js';
import type { FinishReason, StreamPart, Usage } from '../../normalized/index.js';
import { mergeUsage, type UpstreamError } from '../../normalized/index.js';
import type { Collected } from '../shared/collect.js';
import type { Json } from '../shared/decode-helpers.js';

const STOP: Record<FinishReason, string> = { stop: 'end_turn', length: 'max_tokens', 'tool-calls': 'tool_use', 'content-filter': 'refusal', pause: 'pause_turn', other: 'end_turn' };

function usageJson(usage: Usage | undefined, estimatedInputTokens: number): Json {
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
  for (const call of collected.toolCalls.filter(Boolean)) content.push({ type: 'tool_use', id: call.id, name: call.name, input: toolInput(call) });
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

export function anthropicErrorEvent(error: UpstreamError): string {
  const type = error.status === 429 ? 'rate_limit_error' : error.status === 503 ? 'overloaded_error' : 'api_error';
  return event('error', { type: 'error', error: { type, message: error.message } });
}

function event(type: string, data: Json): string {
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * `message_start` waits for the first content (or the end) so that an upstream which reports input tokens up
 * front (Anthropic) has them in it; others are corrected in `message_delta`.
 */
export class MessagesStreamEncoder {
  private started = false;
  private blockIndex = -1;
  private openBlock: 'text' | 'thinking' | 'tool' | 'custom' | undefined;
  private usage: Usage | undefined;
  private stopReason: FinishReason = 'stop';

  constructor(
    private readonly model: string,
    private readonly estimatedInputTokens: number,
  ) {}

  private start(): string {
    if (this.started) return '';
    this.started = true;
    const message = { id: newId('msg', 24), type: 'message', role: 'assistant', model: this.model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usageJson(this.usage, this.estimatedInputTokens), output_tokens: 0 } };
    return event('message_start', { type: 'message_start', message });
  }

  private closeBlock(): string {
    if (this.openBlock === undefined) return '';
    const suffix = this.openBlock === 'custom' ? event('content_block_delta', { type: 'content_block_delta', index: this.blockIndex, delta: { type: 'input_json_delta', partial_json: '"}' } }) : '';
    this.openBlock = undefined;
    return suffix + event('content_block_stop', { type: 'content_block_stop', index: this.blockIndex });
  }

  encode(part: StreamPart): string {
    switch (part.type) {
      case 'usage':
        this.usage = mergeUsage(this.usage, part.usage);
        return '';
      case 'text-delta': {
        let out = this.start();
        if (this.openBlock !== 'text') {
          out += this.closeBlock();
          this.blockIndex += 1;
          this.openBlock = 'text';
          out += event('content_block_start', { type: 'content_block_start', index: this.blockIndex, content_block: { type: 'text', text: '' } });
        }
        return out + event('content_block_delta', { type: 'content_block_delta', index: this.blockIndex, delta: { type: 'text_delta', text: part.delta } });
      }
      case 'reasoning-delta': {
        let out = this.start();
        if (this.openBlock !== 'thinking') {
          out += this.closeBlock();
          this.blockIndex += 1;
          this.openBlock = 'thinking';
          out += event('content_block_start', { type: 'content_block_start', index: this.blockIndex, content_block: { type: 'thinking', thinking: '', signature: '' } });
        }
        return out + event('content_block_delta', { type: 'content_block_delta', index: this.blockIndex, delta: { type: 'thinking_delta', thinking: part.delta } });
      }
      case 'tool-call-start': {
        let out = this.start() + this.closeBlock();
        this.blockIndex += 1;
        this.openBlock = part.kind === 'custom' ? 'custom' : 'tool';
        out += event('content_block_start', { type: 'content_block_start', index: this.blockIndex, content_block: { type: 'tool_use', id: part.id, name: part.name, input: {} } });
        // A freeform call's raw input is streamed as the JSON string value of `input`.
        if (part.kind === 'custom') out += event('content_block_delta', { type: 'content_block_delta', index: this.blockIndex, delta: { type: 'input_json_delta', partial_json: '{"input":"' } });
        return out;
      }
      case 'tool-call-delta': {
        if (this.openBlock !== 'tool' && this.openBlock !== 'custom') return '';
        const partial = this.openBlock === 'custom' ? JSON.stringify(part.delta).slice(1, -1) : part.delta;
        return event('content_block_delta', { type: 'content_block_delta', index: this.blockIndex, delta: { type: 'input_json_delta', partial_json: partial } });
      }
      case 'tool-call-end':
        return this.closeBlock();
      case 'finish': {
        this.stopReason = part.reason;
        const usage = usageJson(this.usage, this.estimatedInputTokens);
        return (
          this.start() +
          this.closeBlock() +
          event('message_delta', { type: 'message_delta', delta: { stop_reason: STOP[this.stopReason], stop_sequence: null }, usage }) +
          event('message_stop', { type: 'message_stop' })
        );
      }
      case 'error':
        return this.start() + anthropicErrorEvent(part.error);
      default:
        return '';
    }
  }
}
