/**
 * The legacy completions chunk stream: per prompt, its echo (with `echo`), its text deltas and a closing chunk with
 * its finish reason; then the usage chunk (`stream_options.include_usage`) and `[DONE]`. The prompts of a batch run
 * one after another; a failure inside the stream (or a later prompt refused) is one `{error}` chunk, then `[DONE]`.
 */
import { AppError, isAppError } from '../../../kernel/errors.js';
import type { JsonObject } from '../../../kernel/json.js';
import type { GatewayCall } from '../../execute.js';
import { mergeUsage, type FinishReason, type StreamPart, type Usage } from '../../normalized/index.js';
import type { CallContext, StreamEncoder } from '../contract.js';
import { requestForPrompt, type CompletionsRequest } from './decode.js';
import { completionChunk, completionUsageChunk, estimatedUsage, legacyFinishReason, type CompletionsIdentity } from './encode.js';
import { completionStreamError } from './errors.js';
import { SSE_DONE, sseData } from '../../../kernel/sse.js';

function frame(data: JsonObject): string {
  return sseData(JSON.stringify(data));
}

const DONE = SSE_DONE;

export class CompletionsStreamEncoder implements StreamEncoder {
  private index = 0;
  private text = '';
  private finishReason: FinishReason | undefined;
  private usage: Usage | undefined;
  private readonly usages: Usage[] = [];
  private failed = false;

  constructor(
    private readonly decoded: CompletionsRequest,
    private readonly identity: CompletionsIdentity,
    private readonly context: CallContext,
  ) {}

  /** The first prompt's echo. */
  opening(): string {
    return this.echo();
  }

  encode(part: StreamPart): string {
    if (this.failed) return '';
    switch (part.type) {
      case 'text-delta':
        this.text += part.delta;
        return frame(completionChunk(this.identity, this.index, part.delta, null));
      case 'finish':
        this.finishReason = part.reason;
        return '';
      case 'usage':
        this.usage = mergeUsage(this.usage, part.usage);
        return '';
      case 'error':
        return this.fail(part.error.toAppError());
      default:
        return '';
    }
  }

  /** Closes the prompt that ended and starts the next one, if any. */
  async advance(): Promise<{ text: string; next?: GatewayCall }> {
    if (this.failed) return { text: '' };
    const prompt = this.decoded.prompts[this.index]!;
    this.usages.push(this.usage ?? (await estimatedUsage(prompt, this.text)));
    let text = frame(completionChunk(this.identity, this.index, '', legacyFinishReason(this.finishReason) ?? 'stop'));
    this.index += 1;
    this.text = '';
    this.finishReason = undefined;
    this.usage = undefined;
    const next = this.decoded.prompts[this.index];
    if (next === undefined) return { text };
    try {
      const call = await this.context.start(requestForPrompt(this.decoded, next));
      return { text: text + this.echo(), next: call };
    } catch (error) {
      text += this.fail(isAppError(error) ? error : new AppError('INTERNAL', 'Internal server error', { cause: error }));
      return { text };
    }
  }

  closing(): string {
    if (this.failed) return '';
    return (this.decoded.includeUsage ? frame(completionUsageChunk(this.identity, this.usages)) : '') + DONE;
  }

  private echo(): string {
    return this.decoded.echo ? frame(completionChunk(this.identity, this.index, this.decoded.prompts[this.index]!, null)) : '';
  }

  private fail(error: AppError): string {
    this.failed = true;
    return frame(completionStreamError(error)) + DONE;
  }
}
