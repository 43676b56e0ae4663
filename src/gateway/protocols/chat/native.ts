/**
 * Relays an OpenAI-kind upstream's own chat reply to a chat caller whose body was sent as given: every chunk (or
 * the one completion body) as the upstream wrote it, with `model` set back to what the caller asked for and `id`
 * to the gateway's (a stored completion is read back by it). The usage-only chunk the gateway asked for itself
 * (billing reads it) is left out when the caller did not ask for usage. The normalized parts alongside are for
 * metering and storing only.
 */
import { newId } from '../../../kernel/ids.js';
import type { StreamPart } from '../../normalized/index.js';
import type { StreamEncoder } from '../contract.js';
import { PartCollector } from '../shared/collect.js';
import type { Json } from '../shared/decode-helpers.js';
import { chatCompletionObject } from './encode.js';
import { chatStreamErrorFrames } from './errors.js';
import { SSE_DONE, sseData } from '../../../kernel/sse.js';

export class NativeChatRelay implements StreamEncoder {
  readonly id = newId('chatcmpl', 24);
  private readonly collector = new PartCollector();
  private finished = false;
  private failed = false;

  constructor(
    private readonly model: string,
    private readonly includeUsage: boolean,
    private readonly store: boolean,
    private readonly nowMs: number,
  ) {}

  opening(): string {
    return '';
  }

  encode(part: StreamPart): string {
    this.collector.add(part);
    if (part.type === 'native-chunk') {
      const chunk = part.chunk;
      const choices = chunk.choices;
      if (!this.includeUsage && Array.isArray(choices) && choices.length === 0 && chunk.usage) return '';
      return sseData(JSON.stringify(this.relabel(chunk)));
    }
    if (part.type === 'finish') this.finished = true;
    if (part.type === 'error' && !this.failed) {
      this.failed = true;
      return chatStreamErrorFrames(part.error);
    }
    return '';
  }

  closing(): string {
    return this.finished && !this.failed ? SSE_DONE : '';
  }

  /** The completion folded from the relayed stream, when it is to be stored and finished without failing. */
  result(): Json | undefined {
    if (!this.store || !this.finished || this.failed) return undefined;
    return chatCompletionObject({ id: this.id, createdSeconds: this.created(), model: this.model, collected: this.collector.result });
  }

  /** A non-streaming caller's completion: the upstream's body, relabelled. */
  completion(body: Json): Json {
    return this.relabel(body);
  }

  relabel(chunk: Json): Json {
    return { ...chunk, id: this.id, model: this.model };
  }

  private created(): number {
    return Math.floor(this.nowMs / 1000);
  }
}
