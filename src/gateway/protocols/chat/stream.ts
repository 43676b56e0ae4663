/** Normalized parts → the OpenAI `chat.completion.chunk` stream, one write per part, as they arrive. */
import { newId } from '../../../kernel/ids.js';
import type { StreamPart, Usage } from '../../normalized/index.js';
import { mergeUsage } from '../../normalized/index.js';
import type { StreamEncoder } from '../contract.js';
import { PartCollector } from '../shared/collect.js';
import type { Json } from '../shared/decode-helpers.js';
import { FINISH, chatCompletionObject, chatUsage } from './encode.js';
import { chatStreamErrorFrames } from './errors.js';
import { SSE_DONE, sseData } from '../../../kernel/sse.js';

/**
 * Encodes parts as `data:` lines, one write per part, as they arrive. With `store`, the whole completion is folded
 * alongside (otherwise parts are just relayed) and is the stream's result once it finished without failing.
 */
export class ChatStreamEncoder implements StreamEncoder {
  readonly id = newId('chatcmpl', 24);
  private readonly createdSeconds: number;
  private readonly prefix: string;
  private usage: Usage | undefined;
  private readonly customCalls = new Set<number>();
  private readonly collector: PartCollector | undefined;
  private finished = false;
  private failed = false;

  constructor(
    readonly model: string,
    private readonly includeUsage: boolean,
    nowMs: number,
    store = false,
    /** The caller sent legacy `functions`: the first call streams as `function_call` deltas. */
    private readonly legacyFunctions = false,
  ) {
    this.collector = store ? new PartCollector() : undefined;
    this.createdSeconds = Math.floor(nowMs / 1000);
    this.prefix = `{"id":${JSON.stringify(this.id)},"object":"chat.completion.chunk","created":${this.createdSeconds},"model":${JSON.stringify(model)},"system_fingerprint":null,"choices":[{"index":0,"delta":`;
  }

  get created(): number {
    return this.createdSeconds;
  }

  private chunk(delta: unknown, finishReason: string | null = null): string {
    return sseData(
      `${this.prefix}${JSON.stringify(delta)},"logprobs":null,"finish_reason":${finishReason === null ? 'null' : JSON.stringify(finishReason)}}]}`,
    );
  }

  opening(): string {
    return '';
  }

  /** Text to write for one part ('' when the part has no wire form). */
  encode(part: StreamPart): string {
    this.collector?.add(part);
    switch (part.type) {
      case 'start':
        return this.chunk({ role: 'assistant', content: '', refusal: null });
      case 'text-delta':
        return this.chunk({ content: part.delta });
      case 'reasoning-delta':
        return this.chunk({ reasoning_content: part.delta });
      case 'tool-call-start':
        if (this.legacyFunctions) return this.legacyCall(part.index, { name: part.name, arguments: '' });
        if (part.kind === 'custom') {
          this.customCalls.add(part.index);
          return this.chunk({ tool_calls: [{ index: part.index, id: part.id, type: 'custom', custom: { name: part.name, input: '' } }] });
        }
        return this.chunk({
          tool_calls: [{ index: part.index, id: part.id, type: 'function', function: { name: part.name, arguments: '' } }],
        });
      case 'tool-call-delta':
        if (this.legacyFunctions) return this.legacyCall(part.index, { arguments: part.delta });
        return this.customCalls.has(part.index)
          ? this.chunk({ tool_calls: [{ index: part.index, custom: { input: part.delta } }] })
          : this.chunk({ tool_calls: [{ index: part.index, function: { arguments: part.delta } }] });
      case 'usage':
        this.usage = mergeUsage(this.usage, part.usage);
        return '';
      case 'finish':
        this.finished = true;
        return this.chunk({}, this.legacyFunctions && part.reason === 'tool-calls' ? 'function_call' : FINISH[part.reason]);
      case 'error':
        this.failed = true;
        return chatStreamErrorFrames(part.error);
      default:
        return '';
    }
  }

  /** A legacy `function_call` delta; the legacy API carries one call, so later calls are not shown. */
  private legacyCall(index: number, delta: { name?: string; arguments: string }): string {
    return index === 0 ? this.chunk({ function_call: delta }) : '';
  }

  /** After a normal finish: the usage chunk when the client asked for it, then `[DONE]`; nothing otherwise. */
  closing(): string {
    if (!this.finished || this.failed) return '';
    const usage = this.includeUsage
      ? sseData(
          `{"id":${JSON.stringify(this.id)},"object":"chat.completion.chunk","created":${this.createdSeconds},"model":${JSON.stringify(this.model)},"system_fingerprint":null,"choices":[],"usage":${JSON.stringify(chatUsage(this.usage))}}`,
        )
      : '';
    return usage + SSE_DONE;
  }

  /** The completion as streamed, when it is to be stored and finished without failing. */
  result(): Json | undefined {
    if (!this.collector || !this.finished || this.failed) return undefined;
    return chatCompletionObject({
      id: this.id,
      createdSeconds: this.createdSeconds,
      model: this.model,
      collected: this.collector.result,
      legacyFunctions: this.legacyFunctions,
    });
  }
}
