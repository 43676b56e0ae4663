/** Normalized parts → the Anthropic Messages event stream (`message_start` … `message_stop`). */
import { newId } from '../../../kernel/ids.js';
import type { FinishReason, StreamPart, Usage } from '../../normalized/index.js';
import { mergeUsage } from '../../normalized/index.js';
import type { Json } from '../shared/decode-helpers.js';
import type { StreamEncoder } from '../contract.js';
import { STOP, usageJson } from './encode.js';
import { messagesStreamError } from './errors.js';
import { sseEvent } from '../../../kernel/sse.js';

function event(type: string, data: Json): string {
  return sseEvent(type, JSON.stringify(data));
}

/**
 * `message_start` waits for the first content (or the end) so that an upstream which reports input tokens up
 * front (Anthropic) has them in it; others are corrected in `message_delta`.
 */
export class MessagesStreamEncoder implements StreamEncoder {
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
    const message = {
      id: newId('msg', 24),
      type: 'message',
      role: 'assistant',
      model: this.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usageJson(this.usage, this.estimatedInputTokens), output_tokens: 0 },
    };
    return event('message_start', { type: 'message_start', message });
  }

  private closeBlock(): string {
    if (this.openBlock === undefined) return '';
    const suffix =
      this.openBlock === 'custom'
        ? event('content_block_delta', {
            type: 'content_block_delta',
            index: this.blockIndex,
            delta: { type: 'input_json_delta', partial_json: '"}' },
          })
        : '';
    this.openBlock = undefined;
    return suffix + event('content_block_stop', { type: 'content_block_stop', index: this.blockIndex });
  }

  opening(): string {
    return '';
  }

  closing(): string {
    return '';
  }

  encode(part: StreamPart): string {
    switch (part.type) {
      case 'usage':
        this.usage = mergeUsage(this.usage, part.usage);
        return '';
      case 'text-delta':
        return this.delta('text', { type: 'text', text: '' }, { type: 'text_delta', text: part.delta });
      case 'reasoning-delta':
        return this.delta('thinking', { type: 'thinking', thinking: '', signature: '' }, { type: 'thinking_delta', thinking: part.delta });
      case 'tool-call-start':
        return this.toolStart(part);
      case 'tool-call-delta': {
        if (this.openBlock !== 'tool' && this.openBlock !== 'custom') return '';
        const partial = this.openBlock === 'custom' ? JSON.stringify(part.delta).slice(1, -1) : part.delta;
        return this.blockDelta({ type: 'input_json_delta', partial_json: partial });
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
        return this.start() + messagesStreamError(part.error);
      default:
        return '';
    }
  }

  /** A text or thinking delta, opening its block first when another kind (or none) is open. */
  private delta(kind: 'text' | 'thinking', block: Json, delta: Json): string {
    let out = this.start();
    if (this.openBlock !== kind) {
      out += this.closeBlock();
      this.blockIndex += 1;
      this.openBlock = kind;
      out += event('content_block_start', { type: 'content_block_start', index: this.blockIndex, content_block: block });
    }
    return out + this.blockDelta(delta);
  }

  private toolStart(part: Extract<StreamPart, { type: 'tool-call-start' }>): string {
    let out = this.start() + this.closeBlock();
    this.blockIndex += 1;
    this.openBlock = part.kind === 'custom' ? 'custom' : 'tool';
    out += event('content_block_start', {
      type: 'content_block_start',
      index: this.blockIndex,
      content_block: { type: 'tool_use', id: part.id, name: part.name, input: {} },
    });
    // A freeform call's raw input is streamed as the JSON string value of `input`.
    if (part.kind === 'custom') out += this.blockDelta({ type: 'input_json_delta', partial_json: '{"input":"' });
    return out;
  }

  private blockDelta(delta: Json): string {
    return event('content_block_delta', { type: 'content_block_delta', index: this.blockIndex, delta });
  }
}
